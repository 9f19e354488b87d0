/**
 * Deleting a team: nobody sees anything through it from then on, every monitor, escalation policy
 * and schedule shared with it goes back to its owner (with its incidents, subscribers and
 * acknowledgements), and its memberships, invites and lookups are removed. It sits above the
 * resources it hands back, so teams/ never imports them.
 */
import { returnPolicyToOwner } from '../escalation/repository.js';
import { returnToOwner } from '../monitors/service.js';
import type { Caller } from '../platform/caller.js';
import { returnScheduleToOwner } from '../schedules/repository.js';
import * as teams from '../teams/service.js';

/** Only the team's owner may delete it ("Only owner can delete team"). */
export async function deleteTeam(caller: Caller, teamId: string) {
  await teams.deleteTeam(caller, teamId, async (shared) => {
    await inBatches(shared.policyIds, (policyId) => returnPolicyToOwner(policyId, teamId));
    await inBatches(shared.scheduleIds, (scheduleId) => returnScheduleToOwner(scheduleId, teamId));
    await inBatches(shared.monitorIds, (monitorId) => returnToOwner(monitorId, teamId));
  });
}

/** Runs `work` on each id, a few at a time. */
async function inBatches(ids: string[], work: (id: string) => Promise<void>, size = 8) {
  for (let start = 0; start < ids.length; start += size) await Promise.all(ids.slice(start, start + size).map(work));
}
