/**
 * A team holds at most 1,000 members plus pending invites: `400 Team member limit reached` on
 * invite and accept beyond it, settled by the write (10 invites racing for 5 seats), with the
 * seats of cancelled and expired invites given back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { getByKeys } from '../../shared/platform/db/ops.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { createTeam, invite } from '../support/teams.js';

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());
afterEach(() => resetClock());

/** Pretends the team already holds `seats` (members plus pending invites), `members` of them members. */
async function fill(teamId: string, seats: number, members = 1) {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.team(teamId),
      UpdateExpression: 'SET seat_count = :seats, member_count = :members',
      ExpressionAttributeValues: { ':seats': seats, ':members': members },
    }),
  );
}
const seatsOf = async (teamId: string) => (await getByKeys({ team: keys.team(teamId) })).team?.seat_count;
const inviteAs = (owner: User, teamId: string, email = uniqueEmail('seat')) =>
  api.request('POST', `/api/teams/${teamId}/invite`, { token: owner.token, body: { email, role: 'MEMBER' } });

describe('team member limit', () => {
  it('counts members and pending invites; refuses the 1,001st seat; a cancelled invite frees its seat', async () => {
    const owner = await api.signUp(uniqueEmail('limit-owner'));
    const team = await createTeam(api, owner);
    expect(await seatsOf(team.id)).toBe(1);
    const pending = await invite(api, owner, team.id, uniqueEmail('p'), 'VIEWER');
    expect(await seatsOf(team.id)).toBe(2);
    // No TTL on the invite item: DynamoDB never removes it behind the seat count's back.
    const stored = await getByKeys({ invite: keys.teamInvite(team.id, pending.id) });
    expect(stored.invite).toBeDefined();
    expect(stored.invite!.ttl).toBeUndefined();
    await fill(team.id, 999);
    expect((await inviteAs(owner, team.id)).status).toBe(201);
    const refused = await inviteAs(owner, team.id);
    expect(refused).toMatchObject({ status: 400, body: { error: 'Team member limit reached' } });
    expect(await seatsOf(team.id)).toBe(1000);
    const cancelled = await api.request('DELETE', `/api/teams/${team.id}/invite/${pending.id}`, { token: owner.token });
    expect(cancelled.status).toBe(200);
    expect(await seatsOf(team.id)).toBe(999);
    expect((await inviteAs(owner, team.id)).status).toBe(201);
  });

  it('gives 10 invites racing for 5 seats exactly 5', async () => {
    const owner = await api.signUp(uniqueEmail('race-owner'));
    const team = await createTeam(api, owner);
    await fill(team.id, 995);
    const responses = await Promise.all(Array.from({ length: 10 }, () => inviteAs(owner, team.id)));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(5);
    expect(responses.filter((response) => response.status === 400).map((response) => response.body)).toEqual(
      Array.from({ length: 5 }, () => ({ error: 'Team member limit reached' })),
    );
    expect(await seatsOf(team.id)).toBe(1000);
  });

  it('frees the seats of expired invites when the team is full', async () => {
    const owner = await api.signUp(uniqueEmail('expiry-owner'));
    const team = await createTeam(api, owner);
    await invite(api, owner, team.id, uniqueEmail('old-1'), 'VIEWER');
    await invite(api, owner, team.id, uniqueEmail('old-2'), 'VIEWER');
    await fill(team.id, 1000);
    expect((await inviteAs(owner, team.id)).status).toBe(400);
    advanceClock(8 * 24 * 60 * 60 * 1000);
    expect((await inviteAs(owner, team.id)).status).toBe(201);
    expect(await seatsOf(team.id)).toBe(999);
    const detail = await api.request('GET', `/api/teams/${team.id}`, { token: owner.token });
    expect(detail.body.pendingInvites).toHaveLength(1);
  });

  it('refuses accepting beyond 1,000 members, leaving the invite pending', async () => {
    const owner = await api.signUp(uniqueEmail('accept-owner'));
    const invitee = await api.signUp(uniqueEmail('accept-invitee'));
    const team = await createTeam(api, owner);
    const { token } = await invite(api, owner, team.id, invitee.email, 'MEMBER');
    await fill(team.id, 1000, 1000);
    const accepted = await api.request('POST', `/api/teams/invites/${token}/accept`, { token: invitee.token });
    expect(accepted).toMatchObject({ status: 400, body: { error: 'Team member limit reached' } });
    await fill(team.id, 1000, 999);
    expect((await api.request('POST', `/api/teams/invites/${token}/accept`, { token: invitee.token })).status).toBe(200);
  });
});
