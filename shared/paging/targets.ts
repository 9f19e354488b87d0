/**
 * An escalation step's targets resolved at the moment of its page (issue 31): a schedule to whoever is on
 * call in it at that instant (rendered as `/on-call` renders it, so a member removed from the team is never
 * paged), a person to themselves (on a team policy, while they are a member), an address to itself
 * (issue 43: recipients, not addresses; a person is then paged by their notification rules);
 * de-duplicated (`deduplicated`: a person once, and over a bare address naming their account's address).
 */
import { getSchedule } from '../schedules/repository.js';
import { renderShifts } from '../schedules/render.js';
import { renderingOf } from '../schedules/service.js';
import type { EscalationTarget, ResolvedTargets } from '../escalation/model.js';
import { recipientsOf, resolvePeople, type OnCall } from './recipients.js';

/** Who `targets` page at `at`; `teamId`: the policy's team, whose members alone are paged as people. */
export async function resolveTargets(targets: readonly EscalationTarget[], at: string, teamId: string | null): Promise<ResolvedTargets> {
  const schedules = targets.flatMap((target) => (target.type === 'schedule' ? [target.id] : []));
  const [people, onCall] = await Promise.all([resolvePeople(targets, teamId), Promise.all(schedules.map((scheduleId) => onCallIn(scheduleId, at)))]);
  const found = new Map(schedules.map((scheduleId, index) => [scheduleId, onCall[index]!]));
  return recipientsOf(targets, people, (scheduleId) => found.get(scheduleId)!);
}

/** Whoever is on call in the schedule at `at`, or the fact that nobody is. */
async function onCallIn(scheduleId: string, at: string): Promise<OnCall> {
  const schedule = await getSchedule(scheduleId);
  if (!schedule) return { unstaffed: { schedule_id: scheduleId, schedule_name: null } };
  const until = new Date(Date.parse(at) + 1).toISOString();
  const { rules, overrides, people } = await renderingOf(schedule, at, until);
  const [shift] = renderShifts(rules, overrides, at, until);
  const person = shift && people.get(shift.user_id);
  if (!shift || !person) return { unstaffed: { schedule_id: scheduleId, schedule_name: schedule.name } };
  return { recipient: { kind: 'person', user_id: shift.user_id, name: person.name, email: person.email, schedule_id: scheduleId }, time_zone: schedule.time_zone };
}
