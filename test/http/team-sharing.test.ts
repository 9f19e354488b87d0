/**
 * Teams as the unit of collaboration: sharing rules, membership changes taking effect at once,
 * the races the database settles (removal vs acknowledge, share vs team deletion, members
 * acknowledging together), team deletion giving
 * everything back (the 1,000-incident move is in test/heavy/team-move.test.ts), and shared escalation policies.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { keys } from '../../shared/platform/db/keys.js';
import { queryCollection } from '../../shared/platform/db/ops.js';
import { Api, settle, uniqueEmail, walk, type User } from '../support/api.js';
import { holdCalls } from '../../infra/testing/ddb-calls.js';
import { seedIncidents, type SeedMonitor } from '../../infra/testing/seed.js';
import { createIncident, createMonitor, createTeam, seedTeam, teamWithRoles } from '../support/teams.js';

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

const signUp = (name: string) => api.signUp(uniqueEmail(name), name);
const ids = (items: { id: string }[]) => items.map((item) => item.id);
const listIncidents = async (user: User) => (await walk<{ id: string }>(api, user.token, '/api/incidents?limit=100', 'incidents')).items;
const listMonitors = async (user: User, query = '') =>
  (await api.request('GET', `/api/monitors${query}`, { token: user.token })).body.monitors as { id: string; team_id: string | null }[];
/** Open incidents on a monitor, seeded as POST /api/incidents stores them (for tests about what is done to them). */
const openIncidents = async (monitor: SeedMonitor, count: number) => (await seedIncidents(monitor, count, { message: null, opened: true })).map((incident) => incident.id);
const getMonitor = async (user: User, id: string) => (await api.request('GET', `/api/monitors/${id}`, { token: user.token })).body.monitor;

describe('sharing a monitor with a team', () => {
  it('shares at creation and by update, and takes it back with null', async () => {
    const { team, users } = await teamWithRoles(api);
    const created = await createMonitor(api, users.MEMBER, { team_id: team.id });
    expect(created.team_id).toBe(team.id);
    const personal = await createMonitor(api, users.MEMBER);
    expect(personal.team_id).toBeNull();
    const shared = await api.request('PUT', `/api/monitors/${personal.id}`, { token: users.MEMBER.token, body: { team_id: team.id } });
    expect(shared.body.monitor).toMatchObject({ id: personal.id, team_id: team.id });
    expect(ids(await listMonitors(users.VIEWER))).toEqual(expect.arrayContaining([created.id, personal.id]));
    const back = await api.request('PUT', `/api/monitors/${personal.id}`, { token: users.MEMBER.token, body: { team_id: null } });
    expect(back.body.monitor.team_id).toBeNull();
    expect(ids(await listMonitors(users.VIEWER))).not.toContain(personal.id);
    expect(ids(await listMonitors(users.MEMBER))).toContain(personal.id);
  });

  it('refuses a VIEWER (403 Not authorized), a non-member (403 Not a team member) and an unknown team (404 Team not found)', async () => {
    const { team, users } = await teamWithRoles(api);
    const cases: [User, string, number, string][] = [
      [users.VIEWER, team.id, 403, 'Not authorized'],
      [users.NON_MEMBER, team.id, 403, 'Not a team member'],
      [users.MEMBER, randomUUID(), 404, 'Team not found'],
    ];
    for (const [user, teamId, status, error] of cases) {
      const atCreation = await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'X', team_id: teamId } });
      expect(atCreation).toMatchObject({ status, body: { error } });
      const monitor = await createMonitor(api, user);
      const byUpdate = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: user.token, body: { team_id: teamId, name: 'Changed' } });
      expect(byUpdate).toMatchObject({ status, body: { error } });
      expect(await getMonitor(user, monitor.id)).toEqual(monitor);
    }
    expect(ids(await listMonitors(users.OWNER, `?team_id=${team.id}`))).toEqual([]);
  });

  it('moves a monitor between teams only for its owner or an OWNER/ADMIN of its team who operates in the target', async () => {
    const a = await teamWithRoles(api);
    const { team: b } = await seedTeam(a.users.OWNER, [[a.users.MEMBER, 'MEMBER'], [a.users.ADMIN, 'MEMBER']], 'B');
    const monitor = await createMonitor(api, a.users.OWNER, { team_id: a.team.id });
    const byMember = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: a.users.MEMBER.token, body: { team_id: b.id } });
    expect(byMember).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    const byAdmin = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: a.users.ADMIN.token, body: { team_id: b.id } });
    expect(byAdmin.body.monitor.team_id).toBe(b.id);
    expect(ids(await listMonitors(a.users.ADMIN, `?team_id=${b.id}`))).toEqual([monitor.id]);
    expect(ids(await listMonitors(a.users.ADMIN, `?team_id=${a.team.id}`))).toEqual([]);
  });

  it('narrows the list to one team: 404 Team not found, 403 Not a team member', async () => {
    const { team, users } = await teamWithRoles(api);
    const mine = await createMonitor(api, users.ADMIN);
    const shared = await createMonitor(api, users.ADMIN, { team_id: team.id });
    expect(ids(await listMonitors(users.ADMIN))).toEqual([shared.id, mine.id]);
    expect(ids(await listMonitors(users.VIEWER, `?team_id=${team.id}`))).toEqual([shared.id]);
    expect(await api.request('GET', `/api/monitors?team_id=${randomUUID()}`, { token: users.ADMIN.token })).toMatchObject({
      status: 404,
      body: { error: 'Team not found' },
    });
    expect(await api.request('GET', `/api/monitors?team_id=${team.id}`, { token: users.NON_MEMBER.token })).toMatchObject({
      status: 403,
      body: { error: 'Not a team member' },
    });
    expect(await api.request('GET', '/api/monitors?team_id=nope', { token: users.ADMIN.token })).toMatchObject({
      status: 400,
      body: { error: 'Validation errors' },
    });
  });

  it("lists the caller's own incidents and every team's in one newest-first order", async () => {
    const { team, users } = await teamWithRoles(api);
    const { team: other } = await seedTeam(users.OWNER, [[users.VIEWER, 'MEMBER']], 'Other');
    const own = await createMonitor(api, users.VIEWER);
    const inTeam = await createMonitor(api, users.MEMBER, { team_id: team.id });
    const inOther = await createMonitor(api, users.OWNER, { team_id: other.id });
    const expected: string[] = [];
    for (const [by, monitor] of [[users.VIEWER, own], [users.MEMBER, inTeam], [users.OWNER, inOther], [users.VIEWER, own]] as const) {
      expected.unshift(await createIncident(api, by, monitor.id));
    }
    const listed = await listIncidents(users.VIEWER);
    expect(ids(listed)).toEqual(expected);
    expect(ids(await listIncidents(users.NON_MEMBER))).toEqual([]);
  });
});

describe('membership changes take effect on the next request', () => {
  it('a removed member sees nothing of the team the moment the removal answers', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.OWNER, { team_id: team.id });
    const incidentId = await createIncident(api, users.OWNER, monitor.id);
    expect(ids(await listIncidents(users.MEMBER))).toEqual([incidentId]);
    const removed = await api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.MEMBER}`, { token: users.OWNER.token });
    expect(removed.status).toBe(200);
    expect(await listIncidents(users.MEMBER)).toEqual([]);
    expect(await listMonitors(users.MEMBER)).toEqual([]);
    expect((await api.request('GET', `/api/incidents/${incidentId}`, { token: users.MEMBER.token })).body).toEqual({ error: 'Incident not found' });
    expect((await api.request('GET', `/api/monitors/${monitor.id}`, { token: users.MEMBER.token })).body).toEqual({ error: 'Monitor not found' });
  });

  it('a changed role counts at once', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.OWNER, { team_id: team.id });
    const incidentId = await createIncident(api, users.OWNER, monitor.id);
    await api.request('PUT', `/api/teams/${team.id}/members/${memberIds.MEMBER}`, { token: users.OWNER.token, body: { role: 'VIEWER' } });
    const refused = await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: users.MEMBER.token });
    expect(refused).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    await api.request('PUT', `/api/teams/${team.id}/members/${memberIds.VIEWER}`, { token: users.OWNER.token, body: { role: 'MEMBER' } });
    const allowed = await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: users.VIEWER.token });
    expect(allowed.status).toBe(200);
  });
});

describe('races the database settles', () => {
  // Held between read and write, one acknowledgement would do: ten show that each is refused on its own.
  const HELD = 10;
  // Unheld, they land on either side of the removal; twenty give both sides a chance on a fast or a slow machine.
  const RACING = 20;

  it(`an acknowledgement in flight while its member is removed fails: ${HELD} acknowledgements held between read and write`, async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.OWNER, { team_id: team.id });
    const incidents = await openIncidents(monitor, HELD);
    // Each acknowledgement has read the incident; its write waits until the member is removed.
    const hold = holdCalls('incidents-acknowledge', 'TransactWriteItemsCommand');
    onTestFinished(() => hold.release());
    const acknowledgements = incidents.map((id) => api.request('POST', `/api/incidents/${id}/acknowledge`, { token: users.MEMBER.token }));
    await hold.arrived(HELD);
    const removed = await api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.MEMBER}`, { token: users.OWNER.token });
    expect(removed.status).toBe(200);
    hold.release();
    const responses = await Promise.all(acknowledgements);
    expect(responses.map((response) => response.status)).toEqual(incidents.map(() => 404));
    expect(responses.map((response) => response.body)).toEqual(incidents.map(() => ({ error: 'Incident not found' })));
    const after = await Promise.all(incidents.map((id) => api.request('GET', `/api/incidents/${id}`, { token: users.OWNER.token })));
    expect(after.filter((response) => response.body.incident.acknowledged)).toEqual([]);
  });

  it(`removal racing ${RACING} acknowledgements: each is acknowledged-before-removal or 404, never after`, async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.OWNER, { team_id: team.id });
    const incidents = await openIncidents(monitor, RACING);
    const acknowledgements = incidents.map((id) => api.request('POST', `/api/incidents/${id}/acknowledge`, { token: users.MEMBER.token }));
    const removal = api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.MEMBER}`, { token: users.OWNER.token });
    const [removed, ...responses] = await Promise.all([removal, ...acknowledgements]);
    expect(removed!.status).toBe(200);
    const after = await Promise.all(incidents.map((id) => api.request('GET', `/api/incidents/${id}`, { token: users.OWNER.token })));
    responses.forEach((response, index) => {
      expect([200, 404]).toContain(response.status);
      const incident = after[index]!.body.incident;
      expect(incident.acknowledged).toBe(response.status === 200);
      if (response.status === 200) expect(incident.acknowledgement.user_id).toBe(users.MEMBER.id);
    });
    // Once the removal has answered, nothing more goes through.
    const late = await Promise.all(incidents.map((id) => api.request('POST', `/api/incidents/${id}/acknowledge`, { token: users.MEMBER.token })));
    expect(new Set(late.map((response) => response.status))).toEqual(new Set([404]));
  });

  it('members acknowledging at once: exactly one 200', async () => {
    const { team, users } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.MEMBER, { team_id: team.id });
    const incidentId = await createIncident(api, users.MEMBER, monitor.id);
    const responses = await Promise.all(
      [users.OWNER, users.ADMIN, users.MEMBER, users.OWNER, users.ADMIN, users.MEMBER].map((user) =>
        api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: user.token }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 400).map((response) => response.body)).toEqual(
      Array.from({ length: 5 }, () => ({ error: 'Incident already acknowledged' })),
    );
  });

  it('sharing while the team is deleted: either refused, or shared and given back; nothing left behind', async () => {
    for (let round = 0; round < 8; round++) {
      const owner = await signUp('race-owner');
      // Created through the API: with the team seeded, this race landed on one side only, and a share written
      // after the team's deletion (the team check taken off the write) went unseen.
      const team = await createTeam(api, owner);
      const monitor = await createMonitor(api, owner);
      const [incidentId] = await openIncidents(monitor, 1);
      const [shared, deleted] = await Promise.all([
        api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { team_id: team.id } }),
        api.request('DELETE', `/api/teams/${team.id}`, { token: owner.token }),
      ]);
      expect(deleted.status).toBe(200);
      expect([200, 404]).toContain(shared.status);
      if (shared.status === 404) expect(shared.body).toEqual({ error: 'Team not found' });
      await settle(api);
      expect(await getMonitor(owner, monitor.id)).toMatchObject({ id: monitor.id, team_id: null });
      expect(ids(await listIncidents(owner))).toEqual([incidentId]);
      expect(await queryCollection(keys.teamPartition(team.id))).toEqual([]);
    }
  });
});


describe('deleting a team', () => {
  it('gives every shared monitor and policy back to its owner, losing no incident, subscriber or acknowledgement', async () => {
    const { team, users } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.MEMBER, { team_id: team.id });
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: users.ADMIN.token,
      body: { name: 'Team on-call', steps: [{ delay_minutes: 0, emails: ['oncall@example.com'] }], team_id: team.id },
    });
    expect(policy.status).toBe(201);
    const incidentId = await createIncident(api, users.ADMIN, monitor.id);
    await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: users.ADMIN.token });
    const subscriber = await api.request('POST', `/api/monitors/${monitor.id}/subscribers`, { token: users.ADMIN.token, body: { email: uniqueEmail('kept') } });
    expect(subscriber.status).toBe(201);

    const deleted = await api.request('DELETE', `/api/teams/${team.id}`, { token: users.OWNER.token });
    expect(deleted.status).toBe(200);
    expect(await listIncidents(users.ADMIN)).toEqual([]);
    expect(await listMonitors(users.VIEWER)).toEqual([]);
    expect((await api.request('GET', `/api/incidents/${incidentId}`, { token: users.ADMIN.token })).status).toBe(404);
    expect((await api.request('GET', `/api/escalation-policies/${policy.body.escalation_policy.id}`, { token: users.MEMBER.token })).status).toBe(404);

    await settle(api);
    expect(await getMonitor(users.MEMBER, monitor.id)).toMatchObject({ id: monitor.id, team_id: null });
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: users.MEMBER.token })).body.incident;
    expect(incident.acknowledgement).toMatchObject({ user_id: users.ADMIN.id });
    const subscribers = (await api.request('GET', `/api/monitors/${monitor.id}/subscribers`, { token: users.MEMBER.token })).body.subscribers;
    expect(ids(subscribers)).toEqual([subscriber.body.subscriber.id]);
    const returned = (await api.request('GET', `/api/escalation-policies/${policy.body.escalation_policy.id}`, { token: users.ADMIN.token })).body;
    expect(returned.escalation_policy).toMatchObject({ owner_id: users.ADMIN.id, team_id: null });
    expect(await queryCollection(keys.teamPartition(team.id))).toEqual([]);
  });
});

describe('shared escalation policies', () => {
  const steps = [{ delay_minutes: 0, emails: ['oncall@example.com'] }];

  it('are seen by every member, created by OWNER, ADMIN or MEMBER, deleted by OWNER or ADMIN', async () => {
    const { team, users } = await teamWithRoles(api);
    const refused = await api.request('POST', '/api/escalation-policies', { token: users.VIEWER.token, body: { name: 'P', steps, team_id: team.id } });
    expect(refused).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    const outsider = await api.request('POST', '/api/escalation-policies', { token: users.NON_MEMBER.token, body: { name: 'P', steps, team_id: team.id } });
    expect(outsider).toMatchObject({ status: 403, body: { error: 'Not a team member' } });
    const created = await api.request('POST', '/api/escalation-policies', { token: users.MEMBER.token, body: { name: 'P', steps, team_id: team.id } });
    expect(created.status).toBe(201);
    const policy = created.body.escalation_policy;
    expect(policy.team_id).toBe(team.id);
    const listed = await api.request('GET', '/api/escalation-policies', { token: users.VIEWER.token });
    expect(ids(listed.body.escalation_policies)).toEqual([policy.id]);
    expect((await api.request('GET', `/api/escalation-policies/${policy.id}`, { token: users.VIEWER.token })).body).toEqual({ escalation_policy: policy });
    expect((await api.request('GET', `/api/escalation-policies/${policy.id}`, { token: users.NON_MEMBER.token })).status).toBe(404);
    const byViewer = await api.request('DELETE', `/api/escalation-policies/${policy.id}`, { token: users.VIEWER.token });
    expect(byViewer).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    const byOutsider = await api.request('DELETE', `/api/escalation-policies/${policy.id}`, { token: users.NON_MEMBER.token });
    expect(byOutsider).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });
    const byAdmin = await api.request('DELETE', `/api/escalation-policies/${policy.id}`, { token: users.ADMIN.token });
    expect(byAdmin.status).toBe(200);
  });

  it('are shared, renamed and taken back by update with the same rules; one in use does not move', async () => {
    const { team, users } = await teamWithRoles(api);
    const create = (user: User, name: string) =>
      api.request('POST', '/api/escalation-policies', { token: user.token, body: { name, steps } }).then((response) => response.body.escalation_policy);
    const policy = await create(users.MEMBER, 'Mine');
    const put = (user: User, body: unknown) => api.request('PUT', `/api/escalation-policies/${policy.id}`, { token: user.token, body });

    expect(await put(users.MEMBER, {})).toMatchObject({ status: 400, body: { error: 'No updates provided' } });
    expect(await put(users.ADMIN, { name: 'Theirs' })).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });
    expect(await put(users.MEMBER, { team_id: randomUUID() })).toMatchObject({ status: 404, body: { error: 'Team not found' } });
    const shared = await put(users.MEMBER, { team_id: team.id });
    expect(shared.body.escalation_policy).toMatchObject({ id: policy.id, team_id: team.id });
    const steps2 = [{ delay_minutes: 0, emails: ['first@example.com'] }, { delay_minutes: 10, emails: ['lead@example.com'] }];
    const renamed = await put(users.MEMBER, { name: 'Payments on-call', steps: steps2 });
    expect(renamed.body.escalation_policy).toMatchObject({ name: 'Payments on-call', steps: [{ step_order: 1 }, { step_order: 2, delay_minutes: 10 }] });
    expect(await put(users.VIEWER, { name: 'No' })).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect(await put(users.NON_MEMBER, { name: 'No' })).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });

    // A monitor uses it: it stays where it is.
    const monitor = await createMonitor(api, users.ADMIN, { team_id: team.id, escalation_policy_id: policy.id });
    expect(await put(users.MEMBER, { team_id: null })).toMatchObject({ status: 400, body: { error: 'Escalation policy in use' } });
    await api.request('PUT', `/api/monitors/${monitor.id}`, { token: users.ADMIN.token, body: { escalation_policy_id: null } });
    // Taking it out of the team: its owner, or an OWNER or ADMIN there (a MEMBER who is not the owner may not).
    const other = await create(users.ADMIN, 'Admin policy');
    await api.request('PUT', `/api/escalation-policies/${other.id}`, { token: users.ADMIN.token, body: { team_id: team.id } });
    const byMember = await api.request('PUT', `/api/escalation-policies/${other.id}`, { token: users.MEMBER.token, body: { team_id: null } });
    expect(byMember).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    const back = await put(users.MEMBER, { team_id: null });
    expect(back.body.escalation_policy.team_id).toBeNull();
    expect((await api.request('GET', `/api/escalation-policies/${policy.id}`, { token: users.VIEWER.token })).status).toBe(404);
  });

  it("a team monitor uses a policy of its team or one of its owner's; moving it re-checks the policy", async () => {
    const { team, users } = await teamWithRoles(api);
    const teamPolicy = (await api.request('POST', '/api/escalation-policies', { token: users.ADMIN.token, body: { name: 'Team', steps, team_id: team.id } })).body.escalation_policy;
    const ownPolicy = (await api.request('POST', '/api/escalation-policies', { token: users.MEMBER.token, body: { name: 'Mine', steps } })).body.escalation_policy;
    const personal = await api.request('POST', '/api/monitors', { token: users.MEMBER.token, body: { name: 'P', escalation_policy_id: teamPolicy.id } });
    expect(personal).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });
    const monitor = await createMonitor(api, users.MEMBER, { team_id: team.id, escalation_policy_id: teamPolicy.id });
    const moveOut = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: users.MEMBER.token, body: { team_id: null } });
    expect(moveOut).toMatchObject({ status: 400, body: { error: 'Validation errors', details: [{ field: 'escalation_policy_id' }] } });
    expect(await getMonitor(users.MEMBER, monitor.id)).toMatchObject({ team_id: team.id, escalation_policy_id: teamPolicy.id });
    const withOwn = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: users.MEMBER.token, body: { team_id: null, escalation_policy_id: ownPolicy.id } });
    expect(withOwn.body.monitor).toMatchObject({ team_id: null, escalation_policy_id: ownPolicy.id });
    expect((await api.request('DELETE', `/api/escalation-policies/${teamPolicy.id}`, { token: users.ADMIN.token })).status).toBe(200);
  });

  it('tells an outsider nothing about a policy in use, and lets its owner change a shared policy only with a role in the team', async () => {
    const { team, users, memberIds } = await teamWithRoles(api);
    const policy = (await api.request('POST', '/api/escalation-policies', { token: users.MEMBER.token, body: { name: 'Team', steps, team_id: team.id } })).body.escalation_policy;
    await createMonitor(api, users.ADMIN, { team_id: team.id, escalation_policy_id: policy.id });
    const put = (user: User, body: unknown) => api.request('PUT', `/api/escalation-policies/${policy.id}`, { token: user.token, body });
    expect(await put(users.NON_MEMBER, { team_id: randomUUID() })).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });
    expect(await put(users.VIEWER, { team_id: null })).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect(await put(users.MEMBER, { team_id: null })).toMatchObject({ status: 400, body: { error: 'Escalation policy in use' } });
    // Its owner leaves the team: the team's escalations are no longer theirs to redirect.
    await api.request('DELETE', `/api/teams/${team.id}/members/${memberIds.MEMBER}`, { token: users.OWNER.token });
    const redirected = await put(users.MEMBER, { steps: [{ delay_minutes: 0, emails: ['me@example.com'] }] });
    expect(redirected).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    const kept = await api.request('GET', `/api/escalation-policies/${policy.id}`, { token: users.ADMIN.token });
    expect(kept.body.escalation_policy.steps).toEqual([{ step_order: 1, delay_minutes: 0, emails: ['oncall@example.com'] }]);
  });
});

describe('right after a move, and acknowledging while a status changes', () => {
  it('lets a member of the new team act at once, before the incidents are re-scoped', async () => {
    const owner = await signUp('mover-2');
    const newcomer = await signUp('newcomer');
    const { team: from } = await seedTeam(owner, [], 'From');
    const { team: to } = await seedTeam(owner, [[newcomer, 'MEMBER']], 'To');
    const monitor = await createMonitor(api, owner, { team_id: from.id });
    const incidentId = await createIncident(api, owner, monitor.id);
    const rescoper = holdCalls('incident-rescoper');
    onTestFinished(() => rescoper.release());
    expect((await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { team_id: to.id } })).status).toBe(200);
    const acknowledged = await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: newcomer.token });
    expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);
  });

  it('never leaves a resolved incident in the open filter when an acknowledgement was under way', async () => {
    const { team, users } = await teamWithRoles(api);
    const monitor = await createMonitor(api, users.OWNER, { team_id: team.id });
    const incidentId = await createIncident(api, users.OWNER, monitor.id);
    const hold = holdCalls('incidents-acknowledge', 'TransactWriteItemsCommand');
    onTestFinished(() => hold.release());
    const acknowledging = api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: users.MEMBER.token });
    await hold.arrived(1);
    expect((await api.request('DELETE', `/api/incidents/${incidentId}`, { token: users.ADMIN.token })).status).toBe(200);
    hold.release();
    expect((await acknowledging).status).toBe(200);
    for (const user of [users.OWNER, users.VIEWER]) {
      const open = await walk<{ id: string }>(api, user.token, '/api/incidents?status=open', 'incidents');
      expect(open.items.map((incident) => incident.id)).not.toContain(incidentId);
      const investigating = await walk<{ id: string }>(api, user.token, '/api/incidents?status=INVESTIGATING', 'incidents');
      expect(investigating.items.map((incident) => incident.id)).not.toContain(incidentId);
      const acknowledgedList = await walk<{ id: string }>(api, user.token, '/api/incidents?acknowledged=true&status=RESOLVED', 'incidents');
      expect(acknowledgedList.items.map((incident) => incident.id)).toContain(incidentId);
    }
  });
});

