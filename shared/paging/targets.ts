/**
 * An escalation step's targets resolved at the moment of its page (issue 31): a schedule to whoever is on
 * call in it at that instant (rendered as `/on-call` renders it, so a member removed from the team is never
 * paged), a person to themselves (on a team policy, while they are a member), an address to itself
 * (issue 43: recipients, not addresses; a person is then paged by their notification rules);
 * de-duplicated (`deduplicated`: a person once, and over a bare address naming their account's address).
 */
import { getSchedule } from '../schedules/repository.js';
import { renderShifts } from '../schedules/render.js';
import { eligiblePeople, renderingOf } from '../schedules/service.js';
import { recipientEmail, type EscalationTarget, type PagedRecipient, type ResolvedTargets, type UnstaffedSchedule } from '../escalation/model.js';

/** Who `targets` page at `at`; `teamId`: the policy's team, whose members alone are paged as people. */
export async function resolveTargets(targets: readonly EscalationTarget[], at: string, teamId: string | null): Promise<ResolvedTargets> {
  const users = targets.flatMap((target) => (target.type === 'user' ? [target.id] : []));
  const schedules = targets.flatMap((target) => (target.type === 'schedule' ? [target.id] : []));
  const [people, onCall] = await Promise.all([eligiblePeople(users, teamId), Promise.all(schedules.map((scheduleId) => onCallIn(scheduleId, at)))]);
  const recipients: PagedRecipient[] = [];
  const nobodyOnCall: UnstaffedSchedule[] = [];
  for (const target of targets) {
    if (target.type === 'email') recipients.push({ kind: 'address', channel: 'email', address: target.address });
    else if (target.type === 'user') {
      const person = people.get(target.id);
      if (person) recipients.push({ kind: 'person', user_id: target.id, name: person.name, email: person.email });
    } else {
      const found = onCall[schedules.indexOf(target.id)]!;
      if ('recipient' in found) recipients.push(found.recipient);
      else nobodyOnCall.push(found.unstaffed);
    }
  }
  return { recipients: deduplicated(recipients), nobodyOnCall };
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

/** Whoever is on call in the schedule at `at`, or the fact that nobody is. */
async function onCallIn(scheduleId: string, at: string): Promise<{ recipient: PagedRecipient } | { unstaffed: UnstaffedSchedule }> {
  const schedule = await getSchedule(scheduleId);
  if (!schedule) return { unstaffed: { schedule_id: scheduleId, schedule_name: null } };
  const until = new Date(Date.parse(at) + 1).toISOString();
  const { rules, overrides, people } = await renderingOf(schedule, at, until);
  const [shift] = renderShifts(rules, overrides, at, until);
  const person = shift && people.get(shift.user_id);
  if (!shift || !person) return { unstaffed: { schedule_id: scheduleId, schedule_name: schedule.name } };
  return { recipient: { kind: 'person', user_id: shift.user_id, name: person.name, email: person.email, schedule_id: scheduleId } };
}
