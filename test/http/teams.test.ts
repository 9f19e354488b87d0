import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { createTeam, invite, join, teamWithRoles, uniqueSlug } from '../support/teams.js';
import { insertInvite } from '../../shared/teams/repository.js';
import { auditPut } from '../../shared/audit/entry.js';
import { linkTokenHash } from '../../shared/platform/emailed-link.js';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { attributes, keys } from '../../shared/platform/db/keys.js';
import { batchWrite } from '../../shared/platform/db/ops.js';

/** A fixture invite's audit entry (the repository writes one with every invite). */
const fixtureAudit = (teamId: string) =>
  auditPut({ userId: randomUUID() }, { action: 'invitation.created', resource: { type: 'invitation', id: randomUUID(), name: null }, team_id: teamId, owner_id: null });

/** Every item of a team's collection, as the table holds it. */
const teamItems = async (teamId: string) =>
  (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': attributes.pk },
        ExpressionAttributeValues: { ':pk': keys.teamPartition(teamId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

let api: Api;
let alice: User;
let bob: User;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TEAM_FIELDS = ['created_at', 'id', 'name', 'owner_id', 'slug', 'updated_at'];

beforeAll(async () => {
  api = await Api.start();
  alice = await api.signUp(uniqueEmail('alice'), 'Alice Anders');
  bob = await api.signUp(uniqueEmail('bob'), 'Bob Berg');
});
afterAll(() => api.close());
afterEach(() => resetClock());

describe('POST /api/teams', () => {
  it('creates the team and makes the creator its OWNER and first member', async () => {
    const slug = uniqueSlug('sre');
    const response = await api.request('POST', '/api/teams', { token: alice.token, body: { name: ' SRE ', slug } });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['team']);
    expect(Object.keys(response.body.team).sort()).toEqual(TEAM_FIELDS);
    expect(response.body.team).toMatchObject({ name: 'SRE', slug, owner_id: alice.id });
    expect(response.body.team.created_at).toMatch(ISO_UTC);
    const fetched = await api.request('GET', `/api/teams/${response.body.team.id}`, { token: alice.token });
    expect(fetched.body.userRole).toBe('OWNER');
    expect(fetched.body.members).toEqual([
      {
        id: expect.any(String),
        team_id: response.body.team.id,
        user_id: alice.id,
        name: 'Alice Anders',
        email: alice.email,
        role: 'OWNER',
        joined_at: response.body.team.created_at,
      },
    ]);
  });

  it('answers 400 Team slug already taken for a duplicate slug', async () => {
    const slug = uniqueSlug('dup');
    expect((await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'A', slug } })).status).toBe(201);
    const second = await api.request('POST', '/api/teams', { token: bob.token, body: { name: 'B', slug } });
    expect(second).toMatchObject({ status: 400, body: { error: 'Team slug already taken' } });
  });

  it('settles 10 concurrent creates of one slug: one 201, nine 400, one team with one owner', async () => {
    const slug = uniqueSlug('race');
    const racer = await api.signUp(uniqueEmail('racer'));
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        api.request('POST', '/api/teams', { token: racer.token, body: { name: `Team ${index}`, slug } }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([201, ...Array(9).fill(400)]);
    for (const response of responses.filter((candidate) => candidate.status === 400)) {
      expect(response.body).toEqual({ error: 'Team slug already taken' });
    }
    const teams = await api.request('GET', '/api/teams', { token: racer.token });
    expect(teams.body.teams).toHaveLength(1);
    expect(teams.body.teams[0]).toMatchObject({ slug, member_count: 1, user_role: 'OWNER' });
  });

  it.each([
    [{ slug: 'ok' }, 'name'],
    [{ name: '', slug: 'ok' }, 'name'],
    [{ name: 'x'.repeat(101), slug: 'ok' }, 'name'],
    [{ name: 'ok' }, 'slug'],
    [{ name: 'ok', slug: '' }, 'slug'],
    [{ name: 'ok', slug: 'Upper' }, 'slug'],
    [{ name: 'ok', slug: 'under_score' }, 'slug'],
    [{ name: 'ok', slug: 'sp ace' }, 'slug'],
    [{ name: 'ok', slug: 'x'.repeat(101) }, 'slug'],
    [{ name: 'ok', slug: 'ok', owner_id: 'x' }, 'owner_id'],
  ])('answers 400 Validation errors for %j', async (body, field) => {
    const response = await api.request('POST', '/api/teams', { token: alice.token, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('accepts a 100-character slug of letters, digits and hyphens', async () => {
    const slug = `${uniqueSlug('long')}-`.padEnd(100, 'a');
    const response = await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'x'.repeat(100), slug } });
    expect(response.status).toBe(201);
  });
});

describe('GET /api/teams', () => {
  it('lists the caller\'s teams with member_count and user_role, and no one else\'s', async () => {
    const owner = await api.signUp(uniqueEmail('lister'));
    const viewer = await api.signUp(uniqueEmail('viewer'));
    const first = await createTeam(api, owner, 'First');
    const second = await createTeam(api, owner, 'Second');
    await join(api, owner, second.id, viewer, 'VIEWER');

    const ownerTeams = await api.request('GET', '/api/teams', { token: owner.token });
    expect(ownerTeams.status).toBe(200);
    expect(Object.keys(ownerTeams.body)).toEqual(['teams', 'next_cursor']);
    const byId = Object.fromEntries(ownerTeams.body.teams.map((team: { id: string }) => [team.id, team]));
    expect(Object.keys(byId).sort()).toEqual([first.id, second.id].sort());
    expect(byId[first.id]).toEqual({ ...first, member_count: 1, user_role: 'OWNER' });
    expect(byId[second.id]).toEqual({ ...second, member_count: 2, user_role: 'OWNER' });

    const viewerTeams = await api.request('GET', '/api/teams', { token: viewer.token });
    expect(viewerTeams.body.teams).toEqual([{ ...second, member_count: 2, user_role: 'VIEWER' }]);
    const nobody = await api.signUp(uniqueEmail('nobody'));
    expect((await api.request('GET', '/api/teams', { token: nobody.token })).body).toEqual({ teams: [], next_cursor: null });
  });
});

describe('GET /api/teams/:id', () => {
  it('returns team, members with name and email, pending invites (newest first; a VIEWER reads a token hint), and userRole', async () => {
    const { team, users } = await teamWithRoles(api);
    const first = await invite(api, users.OWNER, team.id, uniqueEmail('p1'), 'VIEWER');
    advanceClock(1000);
    const second = await invite(api, users.ADMIN, team.id, uniqueEmail('p2'), 'MEMBER');
    const response = await api.request('GET', `/api/teams/${team.id}`, { token: users.VIEWER.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['team', 'members', 'pendingInvites', 'userRole', 'permissions']);
    expect(response.body.team).toEqual(team);
    expect(response.body.userRole).toBe('VIEWER');
    expect(response.body.members.map((member: { role: string }) => member.role)).toEqual(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER']);
    expect(response.body.members[1]).toEqual({
      id: expect.any(String),
      team_id: team.id,
      user_id: users.ADMIN.id,
      name: 'admin',
      email: users.ADMIN.email,
      role: 'ADMIN',
      joined_at: expect.stringMatching(ISO_UTC),
    });
    expect(response.body.pendingInvites.map((pending: { id: string }) => pending.id)).toEqual([second.id, first.id]);
    // The contract's Team invite form, token included: a VIEWER reads a hint in it (issue 41, 8).
    expect(response.body.pendingInvites[0]).toEqual({ ...second, token: `…${second.token.slice(-4)}`, team_id: team.id, invited_by: users.ADMIN.id });
    expect(JSON.stringify(response.body)).not.toContain(second.token);
  });

  it('shows OWNER and ADMIN each pending invite\'s token, which accepts; MEMBER and VIEWER a hint, which does not (issue 41, 8)', async () => {
    const { team, users } = await teamWithRoles(api);
    const [byOwner, byAdmin] = await Promise.all(['read-by-owner', 'read-by-admin'].map((name) => api.signUp(uniqueEmail(name))));
    const invites = [await invite(api, users.OWNER, team.id, byOwner!.email, 'MEMBER'), await invite(api, users.ADMIN, team.id, byAdmin!.email, 'VIEWER')];
    const pendingAs = async (role: 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER') => {
      const read = await api.request('GET', `/api/teams/${team.id}`, { token: users[role].token });
      expect(read.status).toBe(200);
      return new Map((read.body.pendingInvites as { id: string; token: string }[]).map((pending) => [pending.id, pending.token]));
    };
    for (const role of ['MEMBER', 'VIEWER'] as const) {
      const tokens = await pendingAs(role);
      for (const pending of invites) {
        const hint = tokens.get(pending.id)!;
        expect(hint).toBe(`…${pending.token.slice(-4)}`);
        for (const invitee of [byOwner!, byAdmin!]) {
          expect(await api.request('POST', `/api/teams/invites/${encodeURIComponent(hint)}/accept`, { token: invitee.token })).toMatchObject({
            status: 404,
            body: { error: 'Invalid or expired invite' },
          });
        }
      }
    }
    const [asOwner, asAdmin] = [await pendingAs('OWNER'), await pendingAs('ADMIN')];
    for (const pending of invites) {
      expect(asOwner.get(pending.id)).toBe(pending.token);
      expect(asAdmin.get(pending.id)).toBe(pending.token);
    }
    // The contract's flow: the token read in the team accepts (one read by the OWNER, the other by an ADMIN).
    for (const [read, pending, invitee] of [[asOwner, invites[0]!, byOwner!], [asAdmin, invites[1]!, byAdmin!]] as const) {
      expect(await api.request('POST', `/api/teams/invites/${read.get(pending.id)}/accept`, { token: invitee.token })).toMatchObject({
        status: 200,
        body: { message: 'Successfully joined team' },
      });
    }
    expect((await pendingAs('OWNER')).size).toBe(0);
  });

  it('answers 404 Team not found for an unknown team and 400 for a non-UUID id', async () => {
    expect(await api.request('GET', `/api/teams/${randomUUID()}`, { token: alice.token })).toMatchObject({
      status: 404,
      body: { error: 'Team not found' },
    });
    expect((await api.request('GET', '/api/teams/nope', { token: alice.token })).status).toBe(400);
  });
});

describe('PUT /api/teams/:id', () => {
  it('renames the team, keeps the slug and refreshes updated_at', async () => {
    const team = await createTeam(api, alice, 'Old');
    advanceClock(2000);
    const response = await api.request('PUT', `/api/teams/${team.id}`, { token: alice.token, body: { name: ' New ' } });
    expect(response.status).toBe(200);
    expect(response.body.team).toEqual({ ...team, name: 'New', updated_at: expect.stringMatching(ISO_UTC) });
    expect(response.body.team.updated_at > team.updated_at).toBe(true);
    const fetched = await api.request('GET', `/api/teams/${team.id}`, { token: alice.token });
    expect(fetched.body.team).toEqual(response.body.team);
  });

  it('answers 400 No updates provided for an empty body, and Validation errors for a slug change', async () => {
    const team = await createTeam(api, alice);
    expect(await api.request('PUT', `/api/teams/${team.id}`, { token: alice.token, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'No updates provided' },
    });
    const slug = await api.request('PUT', `/api/teams/${team.id}`, { token: alice.token, body: { slug: 'new-slug' } });
    expect(slug.status).toBe(400);
    expect(slug.body.details).toContainEqual(expect.objectContaining({ field: 'slug', message: 'Unknown field' }));
  });
});

describe('invites', () => {
  it('creates an invite with a URL-safe token of at least 128 bits expiring in 7 days', async () => {
    const team = await createTeam(api, alice);
    const email = uniqueEmail('Invitee');
    const response = await api.request('POST', `/api/teams/${team.id}/invite`, {
      token: alice.token,
      body: { email, role: 'MEMBER' },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['invite']);
    const created = response.body.invite;
    expect(Object.keys(created).sort()).toEqual(
      ['created_at', 'email', 'expires_at', 'id', 'invited_by', 'role', 'team_id', 'token'],
    );
    expect(created).toMatchObject({ team_id: team.id, email, role: 'MEMBER', invited_by: alice.id });
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(Buffer.from(created.token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(7 * 24 * 3600 * 1000);
  });

  it('gives every invite a different token', async () => {
    const team = await createTeam(api, alice);
    const tokens = await Promise.all(
      Array.from({ length: 5 }, async () => (await invite(api, alice, team.id, uniqueEmail('t'), 'VIEWER')).token),
    );
    expect(new Set(tokens).size).toBe(5);
  });

  it('answers 400 Invite already sent to this email, comparing e-mails case-insensitively', async () => {
    const team = await createTeam(api, alice);
    const email = uniqueEmail('twice');
    await invite(api, alice, team.id, email, 'MEMBER');
    const again = await api.request('POST', `/api/teams/${team.id}/invite`, {
      token: alice.token,
      body: { email: email.toUpperCase(), role: 'ADMIN' },
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'Invite already sent to this email' } });
  });

  it('answers 400 User is already a team member for a member\'s e-mail in any case', async () => {
    const team = await createTeam(api, alice);
    await join(api, alice, team.id, bob, 'MEMBER');
    for (const email of [bob.email, bob.email.toUpperCase(), alice.email]) {
      const response = await api.request('POST', `/api/teams/${team.id}/invite`, {
        token: alice.token,
        body: { email, role: 'VIEWER' },
      });
      expect(response).toMatchObject({ status: 400, body: { error: 'User is already a team member' } });
    }
  });

  it.each([
    [{ email: 'not-an-email', role: 'MEMBER' }, 'email'],
    [{ role: 'MEMBER' }, 'email'],
    [{ email: 'a@example.com', role: 'OWNER' }, 'role'],
    [{ email: 'a@example.com', role: 'member' }, 'role'],
    [{ email: 'a@example.com' }, 'role'],
  ])('answers 400 Validation errors for %j', async (body, field) => {
    const team = await createTeam(api, alice);
    const response = await api.request('POST', `/api/teams/${team.id}/invite`, { token: alice.token, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('expires after 7 days: not listed, cannot be accepted, does not block a new invite', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('late'));
    const old = await invite(api, alice, team.id, invitee.email, 'MEMBER');
    advanceClock(7 * 24 * 3600 * 1000 - 60_000);
    let listed = await api.request('GET', `/api/teams/${team.id}`, { token: alice.token });
    expect(listed.body.pendingInvites.map((pending: { id: string }) => pending.id)).toEqual([old.id]);

    advanceClock(61_000);
    listed = await api.request('GET', `/api/teams/${team.id}`, { token: alice.token });
    expect(listed.body.pendingInvites).toEqual([]);
    const accepted = await api.request('POST', `/api/teams/invites/${old.token}/accept`, { token: invitee.token });
    expect(accepted).toMatchObject({ status: 404, body: { error: 'Invalid or expired invite' } });
    const cancelled = await api.request('DELETE', `/api/teams/${team.id}/invite/${old.id}`, { token: alice.token });
    expect(cancelled).toMatchObject({ status: 404, body: { error: 'Invalid or expired invite' } });

    const renewed = await invite(api, alice, team.id, invitee.email, 'ADMIN');
    const joined = await api.request('POST', `/api/teams/invites/${renewed.token}/accept`, { token: invitee.token });
    expect(joined).toMatchObject({ status: 200, body: { message: 'Successfully joined team' } });
    const members = (await api.request('GET', `/api/teams/${team.id}`, { token: invitee.token })).body.members;
    expect(members.find((member: { user_id: string }) => member.user_id === invitee.id).role).toBe('ADMIN');
  });

  it('cancels an invite: gone from the list, its token no longer works', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('cancelled'));
    const pending = await invite(api, alice, team.id, invitee.email, 'VIEWER');
    const response = await api.request('DELETE', `/api/teams/${team.id}/invite/${pending.id}`, { token: alice.token });
    expect(response).toMatchObject({ status: 200, body: { message: 'Invite cancelled' } });
    expect((await api.request('GET', `/api/teams/${team.id}`, { token: alice.token })).body.pendingInvites).toEqual([]);
    expect(await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: invitee.token })).toMatchObject({
      status: 404,
      body: { error: 'Invalid or expired invite' },
    });
    expect(await api.request('DELETE', `/api/teams/${team.id}/invite/${pending.id}`, { token: alice.token })).toMatchObject({
      status: 404,
      body: { error: 'Invalid or expired invite' },
    });
    // The e-mail can be invited again.
    await invite(api, alice, team.id, invitee.email, 'VIEWER');
  });

  it('keys an invite\'s lookup by the SHA-256 of its token, which the lookup never holds (issue 41, 8); the invite keeps the token for its managers', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('hashed'));
    const pending = await invite(api, alice, team.id, invitee.email, 'MEMBER');
    const hash = linkTokenHash(pending.token);
    const byHash = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inviteToken(hash), ConsistentRead: true }));
    expect(byHash.Item).toMatchObject({ invite_id: pending.id, team_id: team.id });
    expect(JSON.stringify(byHash.Item)).not.toContain(pending.token);
    const byToken = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inviteToken(pending.token), ConsistentRead: true }));
    expect(byToken.Item).toBeUndefined();
    expect((await teamItems(team.id)).find((item) => item.type === 'team_invite')).toMatchObject({ id: pending.id, token: pending.token, token_hash: hash });
    // The hash itself is no token.
    expect(await api.request('POST', `/api/teams/invites/${hash}/accept`, { token: invitee.token })).toMatchObject({
      status: 404,
      body: { error: 'Invalid or expired invite' },
    });
    expect((await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: invitee.token })).status).toBe(200);
    const left = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inviteToken(hash), ConsistentRead: true }));
    expect(left.Item).toBeUndefined();
  });

  /** An invite as stored before tokens were hashed: its token in clear on the invite, and as its lookup's key (which holds it). */
  async function legacyInvite(teamId: string, email: string) {
    const now = new Date();
    const token = randomBytes(32).toString('base64url');
    const legacy = {
      id: randomUUID(),
      team_id: teamId,
      email,
      role: 'MEMBER' as const,
      token,
      invited_by: alice.id,
      expires_at: new Date(now.getTime() + 3600_000).toISOString(),
      created_at: now.toISOString(),
    };
    // Through the repository (its seat and pending claim taken), then its invite and lookup as they were stored.
    expect(await insertInvite({ teamId, userId: alice.id, roles: ['OWNER'] }, { ...legacy, token_hash: linkTokenHash(token) }, undefined, legacy.created_at, [], undefined, undefined, fixtureAudit(teamId))).toBe('ok');
    await batchWrite([
      { DeleteRequest: { Key: keys.inviteToken(linkTokenHash(token)) } },
      { PutRequest: { Item: { ...keys.teamInvite(teamId, legacy.id), type: 'team_invite', ...legacy } } },
      {
        PutRequest: {
          Item: { ...keys.inviteToken(token), type: 'invite_token', token, invite_id: legacy.id, team_id: teamId, email, role: legacy.role, expires_at: legacy.expires_at },
        },
      },
    ]);
    return legacy;
  }

  it('accepts an invite stored in clear before hashing by its token until it expires, and lists its token to the owner', async () => {
    const team = await createTeam(api, alice);
    const [invitee, late] = await Promise.all([api.signUp(uniqueEmail('legacy')), api.signUp(uniqueEmail('legacy-late'))]);
    const legacy = await legacyInvite(team.id, invitee.email);
    const expiring = await legacyInvite(team.id, late.email);
    const listed = await api.request('GET', `/api/teams/${team.id}`, { token: alice.token });
    expect(new Map(listed.body.pendingInvites.map((pending: { id: string; token: string }) => [pending.id, pending.token]))).toEqual(
      new Map([[legacy.id, legacy.token], [expiring.id, expiring.token]]),
    );
    expect(await api.request('POST', `/api/teams/invites/${legacy.token}/accept`, { token: invitee.token })).toMatchObject({
      status: 200,
      body: { message: 'Successfully joined team' },
    });
    const consumed = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inviteToken(legacy.token), ConsistentRead: true }));
    expect(consumed.Item).toBeUndefined();
    expect((await api.request('POST', `/api/teams/invites/${legacy.token}/accept`, { token: invitee.token })).status).toBe(404);
    advanceClock(3600_000);
    expect(await api.request('POST', `/api/teams/invites/${expiring.token}/accept`, { token: late.token })).toMatchObject({
      status: 404,
      body: { error: 'Invalid or expired invite' },
    });
  });

  it('cancels an invite stored in clear before hashing, with its lookup', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('legacy-cancelled'));
    const legacy = await legacyInvite(team.id, invitee.email);
    expect((await api.request('DELETE', `/api/teams/${team.id}/invite/${legacy.id}`, { token: alice.token })).status).toBe(200);
    const left = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inviteToken(legacy.token), ConsistentRead: true }));
    expect(left.Item).toBeUndefined();
    expect((await api.request('POST', `/api/teams/invites/${legacy.token}/accept`, { token: invitee.token })).status).toBe(404);
    const again = await invite(api, alice, team.id, invitee.email, 'MEMBER');
    expect((await api.request('POST', `/api/teams/invites/${again.token}/accept`, { token: invitee.token })).status).toBe(200);
  });

  it('answers 404 Invalid or expired invite for an invite of another team', async () => {
    const mine = await createTeam(api, alice);
    const other = await createTeam(api, alice);
    const pending = await invite(api, alice, other.id, uniqueEmail('elsewhere'), 'VIEWER');
    const response = await api.request('DELETE', `/api/teams/${mine.id}/invite/${pending.id}`, { token: alice.token });
    expect(response).toMatchObject({ status: 404, body: { error: 'Invalid or expired invite' } });
    expect((await api.request('GET', `/api/teams/${other.id}`, { token: alice.token })).body.pendingInvites).toHaveLength(1);
  });
});

describe('POST /api/teams/invites/:token/accept', () => {
  it('joins the team with the invited role, removes the invite and counts the member', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('Joiner'), 'Joiner');
    const pending = await invite(api, alice, team.id, invitee.email.toUpperCase(), 'ADMIN');
    const response = await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: invitee.token });
    expect(response).toEqual({ status: 200, body: { message: 'Successfully joined team' }, headers: expect.anything() });
    const fetched = await api.request('GET', `/api/teams/${team.id}`, { token: invitee.token });
    expect(fetched.body.userRole).toBe('ADMIN');
    expect(fetched.body.pendingInvites).toEqual([]);
    expect(fetched.body.members.find((member: { user_id: string }) => member.user_id === invitee.id)).toMatchObject({
      name: 'Joiner',
      email: invitee.email,
      role: 'ADMIN',
    });
    const listed = await api.request('GET', '/api/teams', { token: invitee.token });
    expect(listed.body.teams).toEqual([{ ...team, member_count: 2, user_role: 'ADMIN' }]);
  });

  it('answers 404 Invalid or expired invite for an unknown token', async () => {
    for (const token of ['no-such-token', 'x'.repeat(43), '%F0%9F%92%A5']) {
      const response = await api.request('POST', `/api/teams/invites/${token}/accept`, { token: bob.token });
      expect(response).toMatchObject({ status: 404, body: { error: 'Invalid or expired invite' } });
    }
  });

  it('answers 400 No account found with this email. Please sign up first. when the invitee has no account', async () => {
    const team = await createTeam(api, alice);
    const pending = await invite(api, alice, team.id, uniqueEmail('ghost'), 'MEMBER');
    const response = await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: bob.token });
    expect(response).toMatchObject({
      status: 400,
      body: { error: 'No account found with this email. Please sign up first.' },
    });
  });

  it('answers 403 Invite was sent to a different email address, and the invite stays pending', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('rightful'));
    const pending = await invite(api, alice, team.id, invitee.email, 'MEMBER');
    const response = await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: bob.token });
    expect(response).toMatchObject({ status: 403, body: { error: 'Invite was sent to a different email address' } });
    const later = await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: invitee.token });
    expect(later.status).toBe(200);
  });

  it('answers 400 Already a team member when a member accepts an invite to their own e-mail', async () => {
    // The invite endpoint refuses such an invite, so it is written past that check, as an
    // invite made before its addressee became a member would be.
    const team = await createTeam(api, alice);
    await join(api, alice, team.id, bob, 'VIEWER');
    const now = new Date();
    const token = `stale-${randomUUID()}`;
    const outcome = await insertInvite(
      { teamId: team.id, userId: alice.id, roles: ['OWNER'] },
      {
        id: randomUUID(),
        team_id: team.id,
        email: bob.email,
        role: 'ADMIN',
        token,
        token_hash: linkTokenHash(token),
        invited_by: alice.id,
        expires_at: new Date(now.getTime() + 3600_000).toISOString(),
        created_at: now.toISOString(),
      },
      undefined,
      now.toISOString(),
      [],
      undefined,
      undefined,
      fixtureAudit(team.id),
    );
    expect(outcome).toBe('ok');
    const response = await api.request('POST', `/api/teams/invites/${token}/accept`, { token: bob.token });
    expect(response).toMatchObject({ status: 400, body: { error: 'Already a team member' } });
    const fetched = await api.request('GET', `/api/teams/${team.id}`, { token: alice.token });
    expect(fetched.body.members.filter((member: { user_id: string }) => member.user_id === bob.id)).toEqual([
      expect.objectContaining({ role: 'VIEWER' }),
    ]);
    expect(fetched.body.pendingInvites).toHaveLength(1);
  });

  it('settles 10 concurrent accepts of one token: one 200, the user a member exactly once', async () => {
    const team = await createTeam(api, alice);
    const invitee = await api.signUp(uniqueEmail('eager'));
    const pending = await invite(api, alice, team.id, invitee.email, 'MEMBER');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: invitee.token }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 200)) {
      expect([
        { status: 404, error: 'Invalid or expired invite' },
        { status: 400, error: 'Already a team member' },
      ]).toContainEqual({ status: response.status, error: response.body.error });
    }
    const fetched = await api.request('GET', `/api/teams/${team.id}`, { token: alice.token });
    expect(fetched.body.members.filter((member: { user_id: string }) => member.user_id === invitee.id)).toHaveLength(1);
    const listed = await api.request('GET', '/api/teams', { token: alice.token });
    expect(listed.body.teams.find((candidate: { id: string }) => candidate.id === team.id).member_count).toBe(2);
  });
});

describe('members', () => {
  it('removes a member: gone from the team and their list, count decremented', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const response = await api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.MEMBER}`, {
      token: users.ADMIN.token,
    });
    expect(response).toMatchObject({ status: 200, body: { message: 'Member removed' } });
    const fetched = await api.request('GET', `/api/teams/${team.id}`, { token: users.OWNER.token });
    expect(fetched.body.members.map((member: { role: string }) => member.role)).toEqual(['OWNER', 'ADMIN', 'VIEWER']);
    expect((await api.request('GET', '/api/teams', { token: users.MEMBER.token })).body.teams).toEqual([]);
    expect((await api.request('GET', `/api/teams/${team.id}`, { token: users.MEMBER.token })).status).toBe(403);
    const listed = await api.request('GET', '/api/teams', { token: users.OWNER.token });
    expect(listed.body.teams[0].member_count).toBe(3);
  });

  it('lets an admin remove themselves', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const response = await api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.ADMIN}`, {
      token: users.ADMIN.token,
    });
    expect(response.status).toBe(200);
    expect((await api.request('GET', `/api/teams/${team.id}`, { token: users.ADMIN.token })).status).toBe(403);
  });

  it('answers 400 Cannot remove owner and 404 Member not found', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    for (const token of [users.OWNER.token, users.ADMIN.token]) {
      expect(await api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.OWNER}`, { token })).toMatchObject({
        status: 400,
        body: { error: 'Cannot remove owner' },
      });
    }
    const other = await teamWithRoles(api);
    for (const memberId of [randomUUID(), other.memberIds.MEMBER]) {
      expect(await api.request('DELETE', `/api/teams/${team.id}/members/${memberId}`, { token: users.OWNER.token })).toMatchObject({
        status: 404,
        body: { error: 'Member not found' },
      });
    }
  });

  it('changes a role and answers the member with id, team_id, user_id, role, joined_at', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const response = await api.request('PUT', `/api/teams/${team.id}/members/${memberIds.VIEWER}`, {
      token: users.OWNER.token,
      body: { role: 'ADMIN' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      member: {
        id: memberIds.VIEWER,
        team_id: team.id,
        user_id: users.VIEWER.id,
        role: 'ADMIN',
        joined_at: expect.stringMatching(ISO_UTC),
      },
    });
    // The promotion takes effect for authorization at once.
    const invited = await api.request('POST', `/api/teams/${team.id}/invite`, {
      token: users.VIEWER.token,
      body: { email: uniqueEmail('by-promoted'), role: 'VIEWER' },
    });
    expect(invited.status).toBe(201);
    const listed = await api.request('GET', '/api/teams', { token: users.VIEWER.token });
    expect(listed.body.teams[0].user_role).toBe('ADMIN');
  });

  it('answers 400 Cannot change owner role, 400 Validation errors for OWNER, 404 Member not found', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const path = (memberId: string) => `/api/teams/${team.id}/members/${memberId}`;
    expect(await api.request('PUT', path(memberIds.OWNER), { token: users.OWNER.token, body: { role: 'ADMIN' } })).toMatchObject({
      status: 400,
      body: { error: 'Cannot change owner role' },
    });
    const owner = await api.request('PUT', path(memberIds.MEMBER), { token: users.OWNER.token, body: { role: 'OWNER' } });
    expect(owner.status).toBe(400);
    expect(owner.body.error).toBe('Validation errors');
    expect(owner.body.details).toContainEqual(expect.objectContaining({ field: 'role' }));
    expect(await api.request('PUT', path(randomUUID()), { token: users.OWNER.token, body: { role: 'ADMIN' } })).toMatchObject({
      status: 404,
      body: { error: 'Member not found' },
    });
  });
});

describe('DELETE /api/teams/:id', () => {
  it('deletes the team for everyone, frees the slug, and kills its invites', async () => {
    const { team, users } = await teamWithRoles(api);
    const invitee = await api.signUp(uniqueEmail('orphan'));
    const pending = await invite(api, users.OWNER, team.id, invitee.email, 'VIEWER');
    const response = await api.request('DELETE', `/api/teams/${team.id}`, { token: users.OWNER.token });
    expect(response).toMatchObject({ status: 200, body: { message: 'Team deleted' } });
    for (const user of Object.values(users)) {
      expect(await api.request('GET', `/api/teams/${team.id}`, { token: user.token })).toMatchObject({
        status: 404,
        body: { error: 'Team not found' },
      });
      expect((await api.request('GET', '/api/teams', { token: user.token })).body.teams).toEqual([]);
    }
    expect(await api.request('POST', `/api/teams/invites/${pending.token}/accept`, { token: invitee.token })).toMatchObject({
      status: 404,
    });
    // Its lookup went with it (keyed by the token's hash).
    const lookup = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inviteToken(linkTokenHash(pending.token)), ConsistentRead: true }));
    expect(lookup.Item).toBeUndefined();
    const reused = await api.request('POST', '/api/teams', { token: bob.token, body: { name: 'Again', slug: team.slug } });
    expect(reused.status).toBe(201);
  });
});

describe('unknown team', () => {
  const id = randomUUID();
  const member = randomUUID();
  it.each([
    ['GET', `/api/teams/${id}`, undefined],
    ['PUT', `/api/teams/${id}`, { name: 'x' }],
    ['DELETE', `/api/teams/${id}`, undefined],
    ['POST', `/api/teams/${id}/invite`, { email: 'a@example.com', role: 'VIEWER' }],
    ['DELETE', `/api/teams/${id}/invite/${member}`, undefined],
    ['DELETE', `/api/teams/${id}/members/${member}`, undefined],
    ['PUT', `/api/teams/${id}/members/${member}`, { role: 'ADMIN' }],
  ])('%s %s answers 404 Team not found', async (method, path, body) => {
    expect(await api.request(method, path, { token: alice.token, body })).toMatchObject({
      status: 404,
      body: { error: 'Team not found' },
    });
  });
});
