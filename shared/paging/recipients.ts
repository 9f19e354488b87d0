/**
 * An escalation step's recipients (issue 43 §1): a person (a `user` target, on a team's policy while a
 * member; or whoever a `schedule` target finds on call, `targets.ts`), or a bare address (an `email`
 * target); de-duplicated (`deduplicated`: a person once, and over a bare address naming their account's
 * address). Without schedule targets a step's recipients need no schedule read at all: that is how a
 * signal pages a step due at once in the transaction that opens its incident (`open.ts`).
 */
import { eligiblePeople, type Person } from '../teams/people.js';
import { recipientEmail, type EscalationTarget, type PagedRecipient, type ResolvedTargets, type UnstaffedSchedule } from '../escalation/model.js';

/** The people the `user` targets name who may be paged (one BatchGetItem; none for nobody). */
export const resolvePeople = (targets: readonly EscalationTarget[], teamId: string | null): Promise<Map<string, Person>> =>
  eligiblePeople(
    targets.flatMap((target) => (target.type === 'user' ? [target.id] : [])),
    teamId,
  );

export type OnCall = { recipient: PagedRecipient; time_zone?: string } | { unstaffed: UnstaffedSchedule };

/** The recipients of `targets`, in their order, given the people found and whoever each schedule found on call. */
export function recipientsOf(targets: readonly EscalationTarget[], people: Map<string, Person>, onCall: (scheduleId: string) => OnCall): ResolvedTargets {
  const recipients: PagedRecipient[] = [];
  const nobodyOnCall: UnstaffedSchedule[] = [];
  const timeZones: Record<string, string> = {};
  for (const target of targets) {
    if (target.type === 'email') recipients.push({ kind: 'address', channel: 'email', address: target.address });
    else if (target.type === 'user') {
      const person = people.get(target.id);
      if (person) recipients.push({ kind: 'person', user_id: target.id, name: person.name, email: person.email });
    } else {
      const found = onCall(target.id);
      if ('recipient' in found) {
        recipients.push(found.recipient);
        if (found.time_zone) timeZones[target.id] = found.time_zone;
      } else nobodyOnCall.push(found.unstaffed);
    }
  }
  return { recipients: deduplicated(recipients), nobodyOnCall, timeZones };
}

/**
 * One recipient per address (case-insensitively; a person's is their account's), in the order first
 * named: the first target naming it keeps it, except that a person takes the place of a bare `email`
 * target naming the same address — so that address is paged as the account holder it is (issue 41).
 */
function deduplicated(recipients: readonly PagedRecipient[]): PagedRecipient[] {
  const byAddress = new Map<string, PagedRecipient>();
  for (const recipient of recipients) {
    const address = recipientEmail(recipient).toLowerCase();
    const kept = byAddress.get(address);
    if (!kept || (kept.kind === 'address' && recipient.kind === 'person')) byAddress.set(address, recipient);
  }
  return [...byAddress.values()];
}
