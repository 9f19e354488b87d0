/**
 * Paging, stage 4c (continued) — a person's delayed rules: person-notification, sending a page's rules
 * due at once, records those due later in a `person.notifications_delayed` event (`notify-person.ts`
 * says which); the escalation scheduler, its target, makes one one-time schedule per rule, invoking
 * `person-notification` at the rule's time. So the functions that send carry no Scheduler client, and
 * the scheduler neither a sender's nor the reading of anyone's rules.
 */
import { createHash } from 'node:crypto';
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import type { EventDetail } from '../platform/events/model.js';
import { scheduleOnce } from '../platform/scheduler.js';

/** The schedule's name: deterministic (a repeat of the event finds it), at most 64 characters. */
export const personScheduleName = (eventId: string, ruleId: string) => `pn-${createHash('sha256').update(`${eventId}#${ruleId}`).digest('hex').slice(0, 40)}`;

/** Schedules each delayed rule of the event (`exists`: a repeat scheduled it already). */
export async function schedulePersonRules(detail: EventDetail<'person.notifications_delayed'>): Promise<{ rule_id: string; outcome: string }[]> {
  const outcomes: { rule_id: string; outcome: string }[] = [];
  for (const { at, ...input } of detail.notifications) {
    const created = await scheduleOnce({
      name: personScheduleName(input.event_id, input.rule_id),
      at,
      target: requireEnv(env.personNotificationArn),
      input,
      deadLetterArn: process.env[env.personNotificationDlqArn],
    });
    outcomes.push({ rule_id: input.rule_id, outcome: created === 'created' ? 'scheduled' : 'already_scheduled' });
  }
  return outcomes;
}

/** A held pages' flush's schedule name: by the method and the instant (a repeat of the event finds it). */
export const heldFlushScheduleName = (contactMethodId: string, flushAt: string) => `th-${createHash('sha256').update(`${contactMethodId}#${flushAt}`).digest('hex').slice(0, 40)}`;

/**
 * Pages held past a phone method's throttle (issue 43 §4): one schedule at the instant its window
 * allows, invoking person-notification with the method (`notifications/throttle.ts` flushes it).
 */
export async function scheduleHeldFlush(detail: EventDetail<'person.messages_held'>): Promise<{ contact_method_id: string; outcome: string }> {
  const { contact_method_id, user_id, email, flush_at } = detail;
  const created = await scheduleOnce({
    name: heldFlushScheduleName(contact_method_id, flush_at),
    at: flush_at,
    target: requireEnv(env.personNotificationArn),
    input: { held_for: contact_method_id, user_id, email, flush_at },
    deadLetterArn: process.env[env.personNotificationDlqArn],
  });
  return { contact_method_id, outcome: created === 'created' ? 'scheduled' : 'already_scheduled' };
}
