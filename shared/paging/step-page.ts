/**
 * What paging a step writes beside marking it sent, wherever it is paged (at its schedule, `page.ts`; or
 * in the transaction that opens the incident, `open.ts`): the `incident.escalation_step` event (version 2:
 * its recipients, with version 1's fields kept for their consumers) and the timeline's `escalation_paged`
 * entry.
 */
import type { TransactItem } from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import type { Incident } from '../incidents/model.js';
import { pagedEntry, timelinePut } from '../incidents/timeline.js';
import { recipientEmail, type PagedRecipient, type ResolvedTargets } from '../escalation/model.js';

export function stepPageRecords(
  incident: Incident,
  step: { step_order: number; delay_minutes: number; emails: string[] },
  resolved: ResolvedTargets | undefined,
  at: string,
  ordinal = 0,
): TransactItem[] {
  // A step of `emails` alone (before targets existed) pages those addresses, as bare addresses.
  const recipients: PagedRecipient[] = resolved ? resolved.recipients : step.emails.map((address) => ({ kind: 'address', channel: 'email', address }));
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
