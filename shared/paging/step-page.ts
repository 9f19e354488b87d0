/**
 * What paging a step writes beside marking it sent, wherever it is paged (at its schedule, `page.ts`; or
 * in the transaction that opens the incident, `open.ts`): the `incident.escalation_step` event (version 2:
 * its recipients, with version 1's fields kept for their consumers) and the timeline's `escalation_paged`
 * entry.
 */
import type { TransactItem } from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import type { Incident, PageRecord } from '../incidents/model.js';
import { pagedEntry, timelinePut } from '../incidents/timeline.js';
import { recipientEmail, type PagedRecipient, type ResolvedTargets } from '../escalation/model.js';

/** The recipients a step pages: its resolved targets, or (a step of `emails` alone, from before targets) those addresses. */
const recipientsOf = (step: { emails: string[] }, resolved: ResolvedTargets | undefined): PagedRecipient[] =>
  resolved ? resolved.recipients : step.emails.map((address) => ({ kind: 'address', channel: 'email', address }));

/**
 * The pages a step sends, as the incident keeps them for reports (issue 45 §4): one per recipient (a person
 * paged by every channel of their rules is one page), with the time zone of the schedule a person was on call in.
 */
export function stepPages(step: { emails: string[] }, resolved: ResolvedTargets | undefined, at: string): PageRecord[] {
  return recipientsOf(step, resolved).map((recipient) => {
    if (recipient.kind === 'address') return { at };
    const zone = recipient.schedule_id ? resolved?.timeZones?.[recipient.schedule_id] : undefined;
    return { at, user_id: recipient.user_id, user_name: recipient.name, ...(zone ? { time_zone: zone } : {}) };
  });
}

export function stepPageRecords(
  incident: Incident,
  step: { step_order: number; delay_minutes: number; emails: string[] },
  resolved: ResolvedTargets | undefined,
  at: string,
  ordinal = 0,
): TransactItem[] {
  // A step of `emails` alone (before targets existed) pages those addresses, as bare addresses.
  const recipients = recipientsOf(step, resolved);
  // Version 1's fields, kept for its consumers: every address, and of them the people's (account holders;
  // every other address is outside, `paging/outside.ts`).
  const emails = recipients.map(recipientEmail);
  const people = recipients.flatMap((recipient) => (recipient.kind === 'person' ? [recipient.email] : []));
  return [
    outboxPut(
      'incident.escalation_step',
      { incident: incidentSnapshot(incident), step: { step_order: step.step_order, delay_minutes: step.delay_minutes, emails }, people, recipients },
      at,
    ),
    timelinePut(pagedEntry(incident, { step_order: step.step_order, emails }, at, ordinal, resolved)),
  ];
}

/** The account holders a step's page reaches (its recipients that are people): they join the incident's responders. */
export const pagedPeople = (resolved: ResolvedTargets | undefined): string[] =>
  resolved ? [...new Set(resolved.recipients.flatMap((recipient) => (recipient.kind === 'person' ? [recipient.user_id] : [])))] : [];
