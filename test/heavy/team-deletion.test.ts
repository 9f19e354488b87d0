/**
 * Deleting a team of 1,000 members and 1,000 pending invites (250 of each in `npm test`,
 * test/support/scale.ts; either way past a page of the team's partition and many batches) leaves
 * nothing behind: no team item, slug claim, member, membership, invite, pending claim or token lookup.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keys, ownerIndex } from '../../shared/platform/db/keys.js';
import { batchGet, batchWrite, queryAll, type Item } from '../../shared/platform/db/ops.js';
import { ttlOf } from '../../shared/teams/repository.js';
import { deleteTeam } from '../../shared/team-deletion/service.js';
import { getTeam, listTeams } from '../../shared/teams/service.js';
import { count, scaled } from '../support/scale.js';
import { within } from '../support/deadlines.js';

const N = scaled(1000, 250);

function seed(teamId: string, ownerId: string, now: string) {
  const expires = new Date(Date.parse(now) + 7 * 24 * 3600 * 1000).toISOString();
  const items: Item[] = [
    { ...keys.team(teamId), id: teamId, name: 'Big', slug: `big-${teamId}`, owner_id: ownerId, member_count: N, created_at: now, updated_at: now },
    { ...keys.teamSlug(`big-${teamId}`), team_id: teamId },
  ];
  const tokens: string[] = [];
  const users: string[] = [];
  for (let index = 0; index < N; index++) {
    const userId = index === 0 ? ownerId : randomUUID();
    users.push(userId);
    const memberId = randomUUID();
    const role = index === 0 ? 'OWNER' : 'MEMBER';
    items.push(
      { ...keys.teamMember(teamId, memberId), id: memberId, team_id: teamId, user_id: userId, name: `u${index}`, email: `u${index}@example.com`, role, joined_at: now },
      {
        ...keys.teamMembership(teamId, userId),
        ...ownerIndex.membership(userId, now, teamId),
        member_id: memberId,
        team_id: teamId,
        user_id: userId,
        role,
        joined_at: now,
      },
    );
    const inviteId = randomUUID();
    const token = randomBytes(32).toString('base64url');
    tokens.push(token);
    const email = `invitee${index}@example.com`;
    const invite = { id: inviteId, team_id: teamId, email, role: 'VIEWER', token, invited_by: ownerId, expires_at: expires, created_at: now };
    items.push(
      { ...keys.teamInvite(teamId, inviteId), ...invite, ttl: ttlOf(expires) },
      { ...keys.teamPendingInvite(teamId, email), invite_id: inviteId, expires_at: expires, ttl: ttlOf(expires) },
      { ...keys.inviteToken(token), token, invite_id: inviteId, team_id: teamId, email, role: 'VIEWER', expires_at: expires, ttl: ttlOf(expires) },
    );
  }
  return { items, tokens, users };
}

describe('team deletion at scale', () => {
  it(`removes a team of ${count(N)} members and ${count(N)} invites completely`, async () => {
    const teamId = randomUUID();
    const ownerId = randomUUID();
    const now = new Date().toISOString();
    const { items, tokens, users } = seed(teamId, ownerId, now);
    await batchWrite(items.map((item) => ({ PutRequest: { Item: item } })));
    const owner = { userId: ownerId };
    expect((await getTeam(owner, teamId)).members).toHaveLength(N);
    expect((await getTeam(owner, teamId)).pendingInvites).toHaveLength(N);

    await deleteTeam(owner, teamId);

    const left = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.teamPartition(teamId) } });
    expect(left).toEqual([]);
    expect(await batchGet([keys.teamSlug(`big-${teamId}`)])).toEqual([]);
    expect(await batchGet(tokens.map(keys.inviteToken))).toEqual([]);
    for (const userId of [users[0]!, users[N / 2]!, users[N - 1]!]) {
      expect(await listTeams({ userId }, { limit: 50 })).toEqual({ items: [], next_cursor: null });
    }
  }, within(300_000));
});
