/**
 * The incident list's filters added for the console (issue 44): `team_id`, `urgency` and `mine`
 * (PagerDuty's "Assigned to me": the incidents a step paged the caller for, or that they acknowledged).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock } from '../../shared/platform/clock.js';
import { advance, Api, awaitMail, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { createIncident, createMonitor, reportDown, teamWithRoles } from '../support/teams.js';

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());
afterEach(() => resetClock());

const list = async (as: User, query: string) => {
  const response = await api.request('GET', `/api/incidents?${query}`, { token: as.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.incidents as { id: string; title: string }[]).map((incident) => incident.id);
};

describe('GET /api/incidents filters', () => {
  it('team_id: only what is shared with that team; 403 for a team the caller is not in, 404 for none', async () => {
    const { team, users } = await teamWithRoles(api);
    const shared = await createMonitor(api, users.OWNER, { name: 'Shared', team_id: team.id });
    const own = await createMonitor(api, users.OWNER, { name: 'Own' });
    const sharedIncident = await createIncident(api, users.OWNER, shared.id, 'Shared down');
    const ownIncident = await createIncident(api, users.OWNER, own.id, 'Own down');
    expect(await list(users.OWNER, '')).toEqual(expect.arrayContaining([sharedIncident, ownIncident]));
    expect(await list(users.OWNER, `team_id=${team.id}`)).toEqual([sharedIncident]);
    expect(await list(users.VIEWER, `team_id=${team.id}&status=open`)).toEqual([sharedIncident]);

    const outsider = await api.request('GET', `/api/incidents?team_id=${team.id}`, { token: users.NON_MEMBER.token });
    expect(outsider.status).toBe(403);
    expect(outsider.body.error).toBe('Not a team member');
    const unknown = await api.request('GET', '/api/incidents?team_id=00000000-0000-4000-8000-000000000000', { token: users.OWNER.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Team not found');
    const malformed = await api.request('GET', '/api/incidents?team_id=platform', { token: users.OWNER.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('Validation errors');
  });

  it("urgency: as the incident opened with (its monitor's fixed urgency, else its severity's)", async () => {
    const owner = await api.signUp(uniqueEmail('urgent'));
    const monitor = await createMonitor(api, owner, { name: 'Sev' });
    const quiet = await createMonitor(api, owner, { name: 'Quiet', urgency: 'low' });
    const high = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'High', severity: 'CRITICAL' } })).body.incident.id;
    const low = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Low', severity: 'LOW' } })).body.incident.id;
    const fixed = (await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: quiet.id, title: 'Fixed low', severity: 'CRITICAL' } })).body.incident.id;
    expect(await list(owner, 'urgency=high')).toEqual([high]);
    expect(await list(owner, 'urgency=low&status=open')).toEqual([fixed, low]);
    expect(await list(owner, `urgency=low&monitor_id=${quiet.id}`)).toEqual([fixed]);
    const wrong = await api.request('GET', '/api/incidents?urgency=medium', { token: owner.token });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([expect.objectContaining({ field: 'urgency' })]);
  });

  it('mine: the incidents a step paged the caller for, and those they acknowledged; nobody else’s', async () => {
    const { team, users } = await teamWithRoles(api);
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: users.OWNER.token,
      body: {
        name: 'Member first',
        team_id: team.id,
        steps: [
          { delay_minutes: 0, targets: [{ type: 'user', id: users.MEMBER.id }] },
          { delay_minutes: 30, targets: [{ type: 'user', id: users.VIEWER.id }] },
        ],
      },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const paging = await createMonitor(api, users.OWNER, { name: 'Paging', team_id: team.id, failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id });
    const { incident_id: paged } = await reportDown(paging.id);
    await settle(api);
    const quiet = await createMonitor(api, users.OWNER, { name: 'Manual', team_id: team.id });
    const manual = await createIncident(api, users.OWNER, quiet.id, 'Taken by the admin');
    expect((await api.request('POST', `/api/incidents/${manual}/acknowledge`, { token: users.ADMIN.token })).status).toBe(200);

    expect(await list(users.MEMBER, 'mine=true')).toEqual([paged]);
    // The page e-mailed to the person links the console's incident page (issue 44), not the JSON API.
    const [page] = await awaitMail(api, users.MEMBER.email);
    const consolePage = `${api.runtime.oidc.consoleOrigin}/incidents/${paged}`;
    expect(page!.body.text).toContain(`View the incident in the console: ${consolePage}`);
    expect(page!.body.html).toContain(`<a href="${consolePage}">View incident</a>`);
    expect(await list(users.ADMIN, 'mine=true')).toEqual([manual]);
    expect(await list(users.OWNER, 'mine=true')).toEqual([]);
    // A later step's page (escalated now) adds its people too.
    expect(await list(users.VIEWER, 'mine=true')).toEqual([]);
    expect((await api.request('POST', `/api/incidents/${paged}/escalate`, { token: users.OWNER.token })).status).toBe(202);
    await advance(api, 2_000);
    await eventually(() => list(users.VIEWER, 'mine=true'), (ids) => ids.length === 1);
    expect(await list(users.VIEWER, 'mine=true')).toEqual([paged]);
    expect(await list(users.MEMBER, 'mine=false')).toEqual(expect.arrayContaining([paged, manual]));
    // With the other filters: the member's page, acknowledged, is still theirs (and theirs alone).
    expect((await api.request('POST', `/api/incidents/${paged}/acknowledge`, { token: users.MEMBER.token })).status).toBe(200);
    expect(await list(users.MEMBER, `mine=true&acknowledged=true&team_id=${team.id}`)).toEqual([paged]);
    expect(await list(users.ADMIN, 'mine=true&acknowledged=true')).toEqual([manual]);
  });
});
