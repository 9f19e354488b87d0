/**
 * Paging, stage 4c — a person (issue 43 §3): a step that pages a person (a `user` target, or whoever a
 * `schedule` target finds on call) reaches them by their notification rules for the incident's
 * urgency. A rule whose method is usable (verified, not disabled, and its channel set up on this
 * deployment) fires after its delay: at once (the `person-notification` worker, a target of the page's
 * event, sends it), or later through a one-time schedule (`schedule-person.ts`) to the same worker, which sends it only if the
 * incident is by then neither acknowledged nor resolved. A person with no usable rule for that urgency is e-mailed at
 * their account's address: a page never reaches nobody silently. Nothing is ever sent to an unverified
 * or disabled method. Which message each channel carries, and the sending, are `../notifications/pages.ts`'s.
 */
import { clock } from '../platform/clock.js';
import { channelAvailable } from '../channels/availability.js';
import { contactsOf } from '../contacts/repository.js';
import type { ContactMethod, NotificationRule } from '../contacts/model.js';
import { getIncident } from '../incidents/repository.js';
import type { Incident } from '../incidents/model.js';
import { urgencyOf } from '../incidents/model.js';
import type { IncidentSnapshot } from '../platform/events/model.js';

/** A person a page is for (the `incident.escalation_step` event's person recipient). */
export interface PagedPerson {
  user_id: string;
  name: string;
  /** Their account's address (the fallback). */
  email: string;
}

/** One rule to fire: the rule and its (usable) method. */
export interface RuleToFire {
  rule: NotificationRule;
  method: ContactMethod;
}

/** What a page does for one person: the rules due now, those due later, or (none usable) the fallback e-mail. */
export type PersonPlan = { fallback: false; now: RuleToFire[]; later: RuleToFire[] } | { fallback: true };

/** Rules due within this window are sent with the page rather than scheduled (as `escalate.ts` does for steps). */
const SEND_NOW_WINDOW_MS = 30_000;

/** A method a page may use: verified, not disabled, and its channel set up here. */
export const usable = (method: ContactMethod | undefined): method is ContactMethod =>
  Boolean(method && method.verified && !method.disabled && channelAvailable(method.method_type));

/** The person's usable rules for the incident's urgency, each with its method. */
export async function rulesToFire(person: PagedPerson, incident: Pick<IncidentSnapshot, 'severity' | 'urgency'>): Promise<RuleToFire[]> {
  const { methods, rules } = await contactsOf(person.user_id, person.email);
  // The urgency stored at open (issue 43 §3), or, for an incident from before, its severity's.
  const urgency = urgencyOf(incident);
  const byId = new Map(methods.map((method) => [method.id, method]));
  return rules.flatMap((rule) => {
    const method = byId.get(rule.contact_method_id);
    return rule.urgency === urgency && usable(method) ? [{ rule, method }] : [];
  });
}

/** Splits the person's rules into now and later (`pagedAt`: when the step was paged). */
export async function planPersonPage(person: PagedPerson, incident: Pick<IncidentSnapshot, 'severity' | 'urgency'>, pagedAt: string): Promise<PersonPlan> {
  const fire = await rulesToFire(person, incident);
  if (fire.length === 0) return { fallback: true };
  const dueNow = (entry: RuleToFire) => Date.parse(pagedAt) + entry.rule.delay_minutes * 60_000 - clock.now().getTime() <= SEND_NOW_WINDOW_MS;
  return { fallback: false, now: fire.filter(dueNow), later: fire.filter((entry) => !dueNow(entry)) };
}

/** What the `person-notification` worker is invoked with by a schedule: one rule of one person for one paged step (`../notifications/pages.ts` validates it). */
export interface PersonNotificationInput {
  event_id: string;
  incident_id: string;
  step_order: number;
  /** When the step was paged. */
  paged_at: string;
  user_id: string;
  user_name: string;
  email: string;
  rule_id: string;
}

/**
 * At a delayed rule's time: the incident, if the rule should still fire (neither acknowledged nor
 * resolved since the page), and the rule with its method if still there and usable.
 */
export async function dueRule(input: PersonNotificationInput): Promise<{ incident: Incident; fire: RuleToFire } | { skipped: 'acknowledged' | 'resolved' | 'gone' | 'rule_gone' | 'unusable' }> {
  const incident = await getIncident(input.incident_id);
  if (!incident) return { skipped: 'gone' };
  if (incident.acknowledged) return { skipped: 'acknowledged' };
  if (incident.status === 'RESOLVED' || (incident.last_resolved_at ?? '') >= input.paged_at) return { skipped: 'resolved' };
  const { methods, rules } = await contactsOf(input.user_id, input.email);
  const rule = rules.find((candidate) => candidate.id === input.rule_id);
  if (!rule) return { skipped: 'rule_gone' };
  const method = methods.find((candidate) => candidate.id === rule.contact_method_id);
  if (!usable(method)) return { skipped: 'unusable' };
  return { incident, fire: { rule, method } };
}
