/**
 * Integration keys of a monitor (issue 30 §1): created with a key shown once, listed without it,
 * deleted (revoked at once); who may do what through a team; a deleted monitor takes its keys along.
 * What a key does when it sends events is test/http/alerts.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { createMonitor, teamWithRoles, type TeamWithRoles } from '../support/teams.js';
import { getByKeys } from '../../shared/platform/db/ops.js';
import { keys } from '../../shared/platform/db/keys.js';
import { integrationKeyHash } from '../../shared/integrations/keys.js';

let api: Api;
let owner: User;
let roles: TeamWithRoles;
let teamMonitor: string;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('integrator'));
  roles = await teamWithRoles(api);
  teamMonitor = (await createMonitor(api, roles.users.OWNER, { team_id: roles.team.id })).id;
});
afterAll(() => api.close());

const create = (user: User, monitorId: string, body: unknown = { name: 'Alertmanager' }) =>
  api.request('POST', `/api/monitors/${monitorId}/integrations`, { token: user.token, body });

describe('integration keys', () => {
  it('creates a key shown once, keeps only its hash, lists without it, and deletes it', async () => {
    const monitor = await createMonitor(api, owner);
    const created = await create(owner, monitor.id, { name: '  Prometheus  ' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const integration = created.body.integration;
    expect(integration).toEqual({
      id: expect.any(String),
      monitor_id: monitor.id,
      name: 'Prometheus',
      key: expect.stringMatching(/^[a-z0-9]{32}$/),
      key_hint: integration.key.slice(-4),
      created_at: expect.any(String),
      created_by: owner.id,
      last_event_at: null,
      created_by_left: false,
    });
    // The table keeps the SHA-256 (the lookup's key) and never the key itself.
    const stored = await getByKeys({ item: keys.integration(monitor.id, integration.id), lookup: keys.integrationKey(integrationKeyHash(integration.key)) });
    expect(stored.lookup).toMatchObject({ monitor_id: monitor.id, integration_id: integration.id });
    expect(JSON.stringify(stored)).not.toContain(integration.key);

    const second = (await create(owner, monitor.id, { name: 'Grafana' })).body.integration;
    expect(second.key).not.toBe(integration.key);
    const { key: _, ...listed } = integration;
    const list = await api.request('GET', `/api/monitors/${monitor.id}/integrations`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.integrations).toEqual([listed, { ...second, key: undefined }].map((item) => JSON.parse(JSON.stringify(item))));

    const deleted = await api.request('DELETE', `/api/monitors/${monitor.id}/integrations/${integration.id}`, { token: owner.token });
    expect(deleted).toMatchObject({ status: 200, body: { message: 'Integration deleted' } });
    expect((await getByKeys({ lookup: keys.integrationKey(integrationKeyHash(integration.key)) })).lookup).toBeUndefined();
    const again = await api.request('DELETE', `/api/monitors/${monitor.id}/integrations/${integration.id}`, { token: owner.token });
    expect(again).toMatchObject({ status: 404, body: { error: 'Integration not found' } });
    expect((await api.request('GET', `/api/monitors/${monitor.id}/integrations`, { token: owner.token })).body.integrations.map((item: { id: string }) => item.id)).toEqual([second.id]);
  });

  it('validates the name (1–100 characters)', async () => {
    const monitor = await createMonitor(api, owner);
    for (const name of ['', ' ', 'x'.repeat(101)]) {
      const response = await create(owner, monitor.id, { name });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      expect(response.body.details[0].field).toBe('name');
    }
    expect((await create(owner, monitor.id, { name: 'x'.repeat(100) })).status).toBe(201);
  });

  it('follows the role table: OWNER, ADMIN, MEMBER manage; a VIEWER lists; an outsider gets the monitor\'s 404', async () => {
    const made: Record<string, string> = {};
    for (const role of ['OWNER', 'ADMIN', 'MEMBER'] as const) {
      const response = await create(roles.users[role], teamMonitor, { name: role });
      expect(response.status, role).toBe(201);
      made[role] = response.body.integration.id;
    }
    expect(await create(roles.users.VIEWER, teamMonitor)).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect(await create(roles.users.NON_MEMBER, teamMonitor)).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    const viewerList = await api.request('GET', `/api/monitors/${teamMonitor}/integrations`, { token: roles.users.VIEWER.token });
    expect(viewerList.status).toBe(200);
    expect(viewerList.body.integrations.map((item: { name: string }) => item.name)).toEqual(['OWNER', 'ADMIN', 'MEMBER']);
    expect(await api.request('GET', `/api/monitors/${teamMonitor}/integrations`, { token: roles.users.NON_MEMBER.token })).toMatchObject({
      status: 404,
      body: { error: 'Monitor not found' },
    });
    const remove = (user: User, id: string) => api.request('DELETE', `/api/monitors/${teamMonitor}/integrations/${id}`, { token: user.token });
    expect(await remove(roles.users.VIEWER, made.OWNER!)).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect(await remove(roles.users.NON_MEMBER, made.OWNER!)).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    expect(await remove(roles.users.VIEWER, '00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect((await remove(roles.users.MEMBER, made.ADMIN!)).status).toBe(200);
    expect(await create(owner, '00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
  });

  it('deleting a monitor deletes its integrations and their key lookups', async () => {
    const monitor = await createMonitor(api, owner);
    const { key, id } = (await create(owner, monitor.id)).body.integration;
    expect((await api.request('DELETE', `/api/monitors/${monitor.id}`, { token: owner.token })).status).toBe(200);
    const left = await getByKeys({ item: keys.integration(monitor.id, id), lookup: keys.integrationKey(integrationKeyHash(key)) });
    expect(left).toEqual({ item: undefined, lookup: undefined });
  });
});
