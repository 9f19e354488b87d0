import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { Api, uniqueEmail, type User } from '../support/api.js';
import { openedIncident } from '../../infra/testing/seed.js';
import { failNextDynamoCall } from '../../infra/testing/ddb-calls.js';
import { logger } from '../../functions/lib/observability.js';
import { insertIncident } from '../../shared/incidents/repository.js';
import { countIncident } from '../../shared/monitors/repository.js';
import { createdEntry, timelinePut } from '../../shared/incidents/timeline.js';
import type { Incident } from '../../shared/incidents/model.js';

/** A 500 says the route's text and the request id to quote — the same as the x-request-id header — and nothing else. */
function expectServerError(response: { body: any; headers: Headers }, error: string) {
  expect(response.body).toEqual({ error, request_id: expect.any(String) });
  expect(response.headers.get('x-request-id')).toBe(response.body.request_id);
}

let api: Api;
let owner: User;
let stranger: User;
let monitorId: string;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// in_maintenance: issue 45 §1 (an extension of the form).
const SUMMARY_FIELDS = ['acknowledged', 'created_at', 'id', 'in_maintenance', 'monitor_id', 'resolved_at', 'severity', 'started_at', 'status', 'title', 'urgency'];
const LIST_FIELDS = [...SUMMARY_FIELDS, 'escalation_policy_id', 'monitor_name'].sort();

async function createMonitor(user: User, name = 'Checkout API') {
  const response = await api.request('POST', '/api/monitors', { token: user.token, body: { name } });
  expect(response.status).toBe(201);
  return response.body.monitor.id as string;
}

async function createIncident(user: User, body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/incidents', { token: user.token, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.incident;
}

/**
 * A manual incident on the owner's monitor, stored as POST /api/incidents stores it, through the same
 * repository write (its item, its created entry, the monitor's count), for tests about what is done to an
 * incident after its creation (creation itself is tested through the API above). It sends no event and
 * charges no quota: nothing here reads what the workers do with one.
 */
async function seedIncident(title: string, on: { user: User; monitorId: string; monitorName: string; severity?: Incident['severity'] } = { user: owner, monitorId, monitorName: 'Checkout API' }) {
  const incident = openedIncident({ id: on.monitorId, name: on.monitorName, owner_id: on.user.id, team_id: null }, clock.nowIso(), {
    title,
    severity: on.severity ?? 'MEDIUM',
  });
  const { outcome } = await insertIncident(incident, [
    ['moved', countIncident({ id: on.monitorId, team_seq: 0 })],
    ['conflict', timelinePut(createdEntry(incident, { id: on.user.id, name: on.user.name }))],
  ]);
  expect(outcome).toBe('ok');
  return incident;
}

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('owner'), 'Olivia Owner');
  stranger = await api.signUp(uniqueEmail('stranger'), 'Sam Stranger');
  monitorId = await createMonitor(owner);
});

afterAll(() => api.close());

describe('POST /api/incidents', () => {
  it('creates a manual incident with the documented fields and defaults', async () => {
    const response = await api.request('POST', '/api/incidents', {
      token: owner.token,
      body: { monitorId, title: '  Checkout is slow  ', message: 'Investigating elevated latency' },
    });
    expect(response.status).toBe(201);
    const incident = response.body.incident;
    expect(Object.keys(response.body)).toEqual(['incident']);
    expect(Object.keys(incident).sort()).toEqual(SUMMARY_FIELDS);
    expect(incident).toMatchObject({
      monitor_id: monitorId,
      title: 'Checkout is slow',
      status: 'INVESTIGATING',
      severity: 'MEDIUM',
      urgency: 'low',
      acknowledged: false,
      resolved_at: null,
    });
    expect(incident.id).toMatch(UUID);
    expect(incident.started_at).toMatch(ISO_UTC);
    expect(incident.created_at).toMatch(ISO_UTC);
  });

  it('accepts every severity', async () => {
    for (const severity of ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']) {
      const incident = await createIncident(owner, { monitorId, title: `sev ${severity}`, severity });
      expect(incident.severity).toBe(severity);
    }
  });

  it('accepts titles of 1 and 200 characters and rejects 0 and 201', async () => {
    await createIncident(owner, { monitorId, title: 'x' });
    await createIncident(owner, { monitorId, title: 'x'.repeat(200) });
    for (const title of ['', '   ', 'x'.repeat(201)]) {
      const response = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId, title } });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      expect(response.body.details).toEqual([expect.objectContaining({ field: 'title' })]);
    }
  });

  it.each([
    ['a missing monitorId', { title: 'T' }, 'monitorId'],
    ['a non-UUID monitorId', { monitorId: 'abc', title: 'T' }, 'monitorId'],
    ['a missing title', { monitorId: randomUUID() }, 'title'],
    ['a title of the wrong type', { monitorId: randomUUID(), title: 42 }, 'title'],
    ['an unknown severity', { monitorId: randomUUID(), title: 'T', severity: 'BAD' }, 'severity'],
    ['a lower-case severity', { monitorId: randomUUID(), title: 'T', severity: 'high' }, 'severity'],
    ['an unknown field', { monitorId: randomUUID(), title: 'T', status: 'RESOLVED' }, 'status'],
    ['a body that is not an object', ['T'], 'body'],
  ])('answers 400 Validation errors for %s', async (_, body, field) => {
    const response = await api.request('POST', '/api/incidents', { token: owner.token, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toContainEqual(expect.objectContaining({ field, message: expect.any(String) }));
  });

  it('answers 400 Validation errors for malformed JSON and for no body', async () => {
    const malformed = await api.request('POST', '/api/incidents', {
      token: owner.token,
      rawBody: '{"monitorId": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'Validation errors', details: [{ field: 'body', message: 'Malformed JSON' }] });
    const empty = await api.request('POST', '/api/incidents', { token: owner.token });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('Validation errors');
  });

  it('answers 413 for a body over 64 KiB and 415 for a body that is not JSON', async () => {
    const large = await api.request('POST', '/api/incidents', {
      token: owner.token,
      body: { monitorId, title: 'T', message: 'x'.repeat(70 * 1024) },
    });
    expect(large.status).toBe(413);
    expect(large.body.error).toMatch(/too large/);
    const form = await api.request('POST', '/api/incidents', {
      token: owner.token,
      rawBody: 'title=T',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body).toEqual({ error: 'Content-Type must be application/json' });
  });

  it('answers 404 Monitor not found for a missing monitor and for another user\'s monitor', async () => {
    const missing = await api.request('POST', '/api/incidents', {
      token: owner.token,
      body: { monitorId: randomUUID(), title: 'T' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Monitor not found' });
    const foreign = await api.request('POST', '/api/incidents', { token: stranger.token, body: { monitorId, title: 'T' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'Monitor not found' });
  });

  it('answers 500 Failed to create incident when the database fails, without leaking the cause', async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    failNextDynamoCall('incidents-create');
    const response = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId, title: 'T' } });
    expect(response.status).toBe(500);
    expectServerError(response, 'Failed to create incident');
    expect(log).toHaveBeenCalledWith('Failed to create incident', expect.objectContaining({ error: expect.objectContaining({ message: expect.stringContaining('secret-internal-detail') }) }));
    log.mockRestore();
  });
});

describe('GET /api/incidents', () => {
  let listOwner: User;
  let listMonitor: string;
  const created: string[] = [];

  beforeAll(async () => {
    listOwner = await api.signUp(uniqueEmail('lister'));
    listMonitor = await createMonitor(listOwner, 'Search');
    // The incidents are what is listed (creating them is tested above), seeded a second apart.
    for (const severity of ['LOW', 'HIGH', 'CRITICAL', 'HIGH'] as const) {
      advanceClock(1000);
      created.push((await seedIncident(`t-${severity}`, { user: listOwner, monitorId: listMonitor, monitorName: 'Search', severity })).id);
    }
  });

  it('lists the caller\'s incidents newest first with monitor_name and escalation_policy_id', async () => {
    const response = await api.request('GET', '/api/incidents', { token: listOwner.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['incidents', 'next_cursor']);
    expect(response.body.next_cursor).toBeNull();
    expect(response.headers.get('link')).toBeNull();
    expect(response.body.incidents.map((incident: { id: string }) => incident.id)).toEqual([...created].reverse());
    for (const incident of response.body.incidents) {
      expect(Object.keys(incident).sort()).toEqual(LIST_FIELDS);
      expect(incident.monitor_name).toBe('Search');
      expect(incident.escalation_policy_id).toBeNull();
    }
  });

  it('filters by severity', async () => {
    const response = await api.request('GET', '/api/incidents?severity=HIGH', { token: listOwner.token });
    expect(response.status).toBe(200);
    expect(response.body.incidents.map((incident: { id: string }) => incident.id)).toEqual([created[3], created[1]]);
  });

  it('answers 400 Validation errors for an unknown severity', async () => {
    const response = await api.request('GET', '/api/incidents?severity=URGENT', { token: listOwner.token });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toEqual([expect.objectContaining({ field: 'severity' })]);
  });

  it('shows nothing of other users\' incidents', async () => {
    const response = await api.request('GET', '/api/incidents', { token: stranger.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ incidents: [], next_cursor: null });
  });

  it('answers 500 Failed to fetch incidents when the database fails', async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    failNextDynamoCall('incidents-list');
    const response = await api.request('GET', '/api/incidents', { token: listOwner.token });
    expect(response.status).toBe(500);
    expectServerError(response, 'Failed to fetch incidents');
    log.mockRestore();
  });
});

describe('GET /api/incidents/:id', () => {
  it('returns the incident with monitor_name and escalation_policy_id, without acknowledgement or steps', async () => {
    const incident = await createIncident(owner, { monitorId, title: 'Get me', severity: 'LOW' });
    const response = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['incident']);
    expect(Object.keys(response.body.incident).sort()).toEqual(LIST_FIELDS);
    expect(response.body.incident).toMatchObject({ ...incident, monitor_name: 'Checkout API', escalation_policy_id: null });
  });

  it('answers 404 Incident not found for a missing incident and for another user\'s incident', async () => {
    const incident = await seedIncident('Private');
    for (const [token, id] of [
      [owner.token, randomUUID()],
      [stranger.token, incident.id],
    ]) {
      const response = await api.request('GET', `/api/incidents/${id}`, { token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Incident not found' });
    }
  });

  it('answers 400 Validation errors for a non-UUID id', async () => {
    const response = await api.request('GET', '/api/incidents/not-a-uuid', { token: owner.token });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Validation errors', details: [{ field: 'id', message: expect.any(String) }] });
  });

  it('answers 500 Failed to fetch incident when the database fails', async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    failNextDynamoCall('incidents-get');
    const response = await api.request('GET', `/api/incidents/${randomUUID()}`, { token: owner.token });
    expect(response.status).toBe(500);
    expectServerError(response, 'Failed to fetch incident');
    log.mockRestore();
  });
});

describe('PUT /api/incidents/:id', () => {
  it('updates title, severity and status and returns the summary fields', async () => {
    const incident = await seedIncident('Before');
    const response = await api.request('PUT', `/api/incidents/${incident.id}`, {
      token: owner.token,
      body: { title: ' After ', severity: 'CRITICAL', status: 'IDENTIFIED' },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.incident).sort()).toEqual(SUMMARY_FIELDS);
    expect(response.body.incident).toMatchObject({
      id: incident.id,
      title: 'After',
      severity: 'CRITICAL',
      status: 'IDENTIFIED',
      resolved_at: null,
      started_at: incident.started_at,
      created_at: incident.created_at,
    });
  });

  it('sets resolved_at on RESOLVED, keeps it on a repeated RESOLVED, clears it when reopened', async () => {
    const incident = await seedIncident('Resolve me');
    const put = (status: string) =>
      api.request('PUT', `/api/incidents/${incident.id}`, { token: owner.token, body: { status } });
    const resolved = await put('RESOLVED');
    expect(resolved.body.incident.status).toBe('RESOLVED');
    expect(resolved.body.incident.resolved_at).toMatch(ISO_UTC);
    advanceClock(5000);
    const again = await put('RESOLVED');
    expect(again.body.incident.resolved_at).toBe(resolved.body.incident.resolved_at);
    const reopened = await put('MONITORING');
    expect(reopened.body.incident).toMatchObject({ status: 'MONITORING', resolved_at: null });
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident).toMatchObject({ status: 'MONITORING', resolved_at: null });
  });

  it('answers 400 No updates provided for an empty body and for no body', async () => {
    const incident = await seedIncident('Nothing');
    for (const options of [{ body: {} }, {}]) {
      const response = await api.request('PUT', `/api/incidents/${incident.id}`, { token: owner.token, ...options });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'No updates provided' });
    }
  });

  it.each([
    [{ status: 'CLOSED' }, 'status'],
    [{ severity: 'SEVERE' }, 'severity'],
    [{ title: '' }, 'title'],
    [{ title: 'x'.repeat(201) }, 'title'],
    [{ title: null }, 'title'],
    [{ acknowledged: true }, 'acknowledged'],
  ])('answers 400 Validation errors for %j', async (body, field) => {
    const response = await api.request('PUT', `/api/incidents/${randomUUID()}`, { token: owner.token, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('answers 404 Incident not found for a missing incident and another user\'s incident', async () => {
    const incident = await seedIncident('Mine');
    for (const [token, id] of [
      [owner.token, randomUUID()],
      [stranger.token, incident.id],
    ]) {
      const response = await api.request('PUT', `/api/incidents/${id}`, { token, body: { status: 'RESOLVED' } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Incident not found' });
    }
    const unchanged = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(unchanged.body.incident.status).toBe('INVESTIGATING');
  });

  it('answers 500 Failed to update incident when the database fails', async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    failNextDynamoCall('incidents-update');
    const response = await api.request('PUT', `/api/incidents/${randomUUID()}`, {
      token: owner.token,
      body: { status: 'RESOLVED' },
    });
    expect(response.status).toBe(500);
    expectServerError(response, 'Failed to update incident');
    log.mockRestore();
  });
});

describe('POST /api/incidents/:id/acknowledge', () => {
  it('acknowledges with the default method web and shows the acknowledgement on get', async () => {
    const incident = await seedIncident('Ack me');
    const response = await api.request('POST', `/api/incidents/${incident.id}/acknowledge`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.incident).sort()).toEqual(SUMMARY_FIELDS);
    expect(response.body.incident).toMatchObject({ id: incident.id, acknowledged: true });

    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledged).toBe(true);
    expect(fetched.body.incident.acknowledgement).toEqual({
      id: expect.stringMatching(UUID),
      incident_id: incident.id,
      user_id: owner.id,
      user_name: 'Olivia Owner',
      user_email: owner.email,
      method: 'web',
      acknowledged_at: expect.stringMatching(ISO_UTC),
    });
  });

  it.each(['web', 'api', 'slack', 'email', 'sms'])('records the method %s', async (method) => {
    const incident = await seedIncident(`Ack ${method}`);
    const response = await api.request('POST', `/api/incidents/${incident.id}/acknowledge`, {
      token: owner.token,
      body: { method },
    });
    expect(response.status).toBe(200);
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledgement.method).toBe(method);
  });

  it('answers 400 Validation errors for an unknown method', async () => {
    const incident = await seedIncident('Bad method');
    const response = await api.request('POST', `/api/incidents/${incident.id}/acknowledge`, {
      token: owner.token,
      body: { method: 'pager' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toEqual([expect.objectContaining({ field: 'method' })]);
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledged).toBe(false);
  });

  it('answers 400 Incident already acknowledged the second time', async () => {
    const incident = await seedIncident('Twice');
    const path = `/api/incidents/${incident.id}/acknowledge`;
    expect((await api.request('POST', path, { token: owner.token })).status).toBe(200);
    const second = await api.request('POST', path, { token: owner.token, body: { method: 'api' } });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ error: 'Incident already acknowledged' });
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledgement.method).toBe('web');
  });

  it('settles 12 concurrent acknowledgements: exactly one 200, the rest 400 already acknowledged', async () => {
    const incident = await seedIncident('Race');
    const methods = ['web', 'api', 'slack', 'email', 'sms'];
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        api.request('POST', `/api/incidents/${incident.id}/acknowledge`, {
          token: owner.token,
          body: { method: methods[index % methods.length] },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(11).fill(400)]);
    for (const response of responses.filter((candidate) => candidate.status === 400)) {
      expect(response.body).toEqual({ error: 'Incident already acknowledged' });
    }
    const winner = responses.findIndex((response) => response.status === 200);
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledgement.method).toBe(methods[winner % methods.length]);
  });

  it('answers 404 Incident not found for a missing incident and another user\'s incident', async () => {
    const incident = await seedIncident('Not yours');
    for (const [token, id] of [
      [owner.token, randomUUID()],
      [stranger.token, incident.id],
    ]) {
      const response = await api.request('POST', `/api/incidents/${id}/acknowledge`, { token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Incident not found' });
    }
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledged).toBe(false);
  });
});

describe('POST /api/incidents/:id/acknowledge failures', () => {
  it('answers 500 Failed to update incident when the database fails, acknowledging nothing', async () => {
    const incident = await seedIncident('Ack fails');
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    failNextDynamoCall('incidents-acknowledge');
    const response = await api.request('POST', `/api/incidents/${incident.id}/acknowledge`, { token: owner.token });
    expect(response.status).toBe(500);
    expectServerError(response, 'Failed to update incident');
    log.mockRestore();
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.acknowledged).toBe(false);
  });
});

describe('DELETE /api/incidents/:id', () => {
  it('resolves the incident and answers the message', async () => {
    const incident = await seedIncident('Delete me');
    const response = await api.request('DELETE', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Incident resolved' });
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.status).toBe('RESOLVED');
    expect(fetched.body.incident.resolved_at).toMatch(ISO_UTC);
  });

  it('sets resolved_at to the current time, an already resolved incident\'s too, notifying and entering a resolution once', async () => {
    const incident = await seedIncident('Resolve twice');
    const resolvedAt = async () => (await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token })).body.incident.resolved_at;
    const timeline = async () =>
      (await api.request('GET', `/api/incidents/${incident.id}/updates`, { token: owner.token })).body.updates.map((entry: { kind: string }) => entry.kind);
    try {
      const first = new Date(clock.now().getTime() + 60_000);
      freezeClock(first);
      expect((await api.request('DELETE', `/api/incidents/${incident.id}`, { token: owner.token })).status).toBe(200);
      expect(await resolvedAt()).toBe(first.toISOString());
      const second = new Date(first.getTime() + 5 * 60_000);
      freezeClock(second);
      const again = await api.request('DELETE', `/api/incidents/${incident.id}`, { token: owner.token });
      expect(again).toMatchObject({ status: 200, body: { message: 'Incident resolved' } });
      expect(await resolvedAt()).toBe(second.toISOString());
    } finally {
      resetClock();
    }
    // The status changed once: one resolution in the timeline.
    expect((await timeline()).filter((kind: string) => kind === 'resolved')).toHaveLength(1);
  });

  it('answers 404 Incident not found for a missing incident and another user\'s incident', async () => {
    const incident = await seedIncident('Keep me');
    for (const [token, id] of [
      [owner.token, randomUUID()],
      [stranger.token, incident.id],
    ]) {
      const response = await api.request('DELETE', `/api/incidents/${id}`, { token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Incident not found' });
    }
    const fetched = await api.request('GET', `/api/incidents/${incident.id}`, { token: owner.token });
    expect(fetched.body.incident.status).toBe('INVESTIGATING');
  });

  it('answers 500 Failed to update incident when the database fails', async () => {
    const log = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    failNextDynamoCall('incidents-resolve');
    const response = await api.request('DELETE', `/api/incidents/${randomUUID()}`, { token: owner.token });
    expect(response.status).toBe(500);
    expectServerError(response, 'Failed to update incident');
    log.mockRestore();
  });
});
