/**
 * Incident urgency (issue 43 §3): CRITICAL and HIGH are `high`, MEDIUM and LOW `low`, unless the monitor
 * fixes one (`"urgency":"high"|"low"|null`); taken when the incident opens (by hand or automatically) and
 * kept; an incident stored before urgencies answers its severity's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { Api, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { createMonitor, reportDown } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('urgency'));
});
afterAll(() => api.close());

const open = async (monitorId: string, severity?: string) => {
  const response = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId, title: 'Checkout errors', ...(severity ? { severity } : {}) } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.incident as { id: string; urgency: string; severity: string };
};
const get = async (id: string) => (await api.request('GET', `/api/incidents/${id}`, { token: owner.token })).body;
const setUrgency = (monitorId: string, urgency: unknown) => api.request('PUT', `/api/monitors/${monitorId}`, { token: owner.token, body: { urgency } });

describe('incident urgency', () => {
  it('follows the severity when the monitor fixes none: CRITICAL and HIGH high, MEDIUM (the default) and LOW low', async () => {
    const monitor = await createMonitor(api, owner);
    expect((await api.request('GET', `/api/monitors/${monitor.id}`, { token: owner.token })).body.monitor.urgency).toBeNull();
    const opened = await Promise.all([open(monitor.id, 'CRITICAL'), open(monitor.id, 'HIGH'), open(monitor.id, 'MEDIUM'), open(monitor.id, 'LOW'), open(monitor.id)]);
    expect(opened.map((incident) => incident.urgency)).toEqual(['high', 'high', 'low', 'low', 'low']);
    expect((await get(opened[0]!.id)).incident.urgency).toBe('high');
    const listed = (await api.request('GET', `/api/incidents?monitor_id=${monitor.id}`, { token: owner.token })).body.incidents as { id: string; urgency: string }[];
    expect(Object.fromEntries(listed.map((incident) => [incident.id, incident.urgency]))).toEqual(Object.fromEntries(opened.map((incident) => [incident.id, incident.urgency])));
  });

  it("takes the monitor's fixed urgency at open and keeps it through later changes of the monitor and the severity", async () => {
    const monitor = await createMonitor(api, owner, { urgency: 'high' });
    expect(monitor).toMatchObject({ urgency: 'high' });
    const low = await open(monitor.id, 'LOW');
    expect(low.urgency).toBe('high');
    const changed = await setUrgency(monitor.id, 'low');
    expect(changed.status).toBe(200);
    expect(changed.body.monitor.urgency).toBe('low');
    expect((await open(monitor.id, 'CRITICAL')).urgency).toBe('low');
    const severity = await api.request('PUT', `/api/incidents/${low.id}`, { token: owner.token, body: { severity: 'MEDIUM' } });
    expect(severity.body.incident).toMatchObject({ severity: 'MEDIUM', urgency: 'high' });
    expect((await setUrgency(monitor.id, null)).body.monitor.urgency).toBeNull();
    expect((await open(monitor.id, 'CRITICAL')).urgency).toBe('high');
  });

  it('validates the monitor urgency', async () => {
    const monitor = await createMonitor(api, owner);
    for (const urgency of ['HIGH', 'medium', 1]) {
      const response = await setUrgency(monitor.id, urgency);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'Validation errors', details: [{ field: 'urgency' }] });
      const created = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Bad', urgency } });
      expect(created.status).toBe(400);
      expect(created.body.details.map((detail: { field: string }) => detail.field)).toEqual(['urgency']);
    }
  });

  it('gives an automatic incident the monitor urgency, and its events carry it', async () => {
    const monitor = await createMonitor(api, owner, { urgency: 'low', failure_threshold: 1 });
    const { incident_id: id } = await reportDown(monitor.id);
    const incident = (await get(id)).incident;
    expect(incident.severity).not.toMatch(/^(MEDIUM|LOW)$/);
    expect(incident.urgency).toBe('low');
    await settle(api);
    const created = await eventually(
      async () => api.runtime.bus.published.find((event) => event['detail-type'] === 'incident.created' && (event.detail as { incident: { id: string } }).incident.id === id),
      (event) => event !== undefined,
    );
    expect((created!.detail as { incident: { urgency: string } }).incident.urgency).toBe('low');
  });

  it('answers the severity\'s urgency for an incident stored before urgencies', async () => {
    const monitor = await createMonitor(api, owner, { urgency: 'low' });
    const incident = await open(monitor.id, 'CRITICAL');
    expect(incident.urgency).toBe('low');
    await db().send(new UpdateCommand({ TableName: tableName(), Key: keys.incident(incident.id), UpdateExpression: 'REMOVE urgency' }));
    expect((await get(incident.id)).incident.urgency).toBe('high');
  });
});
