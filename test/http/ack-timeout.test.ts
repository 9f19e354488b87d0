/**
 * Issue 45 §2: a monitor's acknowledgement timeout. An acknowledged, unresolved automatic incident is
 * unacknowledged again when it elapses and its escalation restarts from step 1; once per acknowledgement,
 * never after a resolve, never over a later acknowledgement.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { freezeClock, resetClock } from '../../shared/platform/clock.js';
import { advance, Api, awaitMail, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { reportDown } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('ack-timeout'));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const MINUTE = 60_000;

async function pagingIncident(first: string, second: string, secondDelay = 5) {
  const policy = (
    await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'On call', steps: [{ delay_minutes: 0, emails: [first] }, { delay_minutes: secondDelay, emails: [second] }] },
    })
  ).body.escalation_policy;
  const created = await api.request('POST', '/api/monitors', {
    token: owner.token,
    body: { name: 'Queue', failure_threshold: 1, escalation_policy_id: policy.id, ack_timeout_minutes: 10 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const opened = await reportDown(created.body.monitor.id);
  await settle(api);
  await awaitMail(api, first, 1);
  return opened.incident_id as string;
}

const acknowledge = async (incidentId: string) => {
  const response = await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: owner.token, body: { method: 'api' } });
  expect(response.status).toBe(200);
  await settle(api);
  return (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident.acknowledgement.id as string;
};

const kinds = async (incidentId: string) =>
  ((await api.request('GET', `/api/incidents/${incidentId}/updates?limit=100`, { token: owner.token })).body.updates as { kind: string }[]).map((entry) => entry.kind);

describe('ack_timeout_minutes on monitors', () => {
  it('defaults to null, is set and changed, and is shown', async () => {
    const created = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Plain' } });
    expect(created.body.monitor.ack_timeout_minutes).toBeNull();
    const updated = await api.request('PUT', `/api/monitors/${created.body.monitor.id}`, { token: owner.token, body: { ack_timeout_minutes: 30 } });
    expect(updated.body.monitor.ack_timeout_minutes).toBe(30);
    const read = await api.request('GET', `/api/monitors/${created.body.monitor.id}`, { token: owner.token });
    expect(read.body.monitor.ack_timeout_minutes).toBe(30);
  });

  it.each([4, 1441, 7.5, '10'])('refuses %j', async (value) => {
    const response = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Bad', ack_timeout_minutes: value } });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(['ack_timeout_minutes']);
  });
});

describe('acknowledgement timeout', () => {
  it('unacknowledges once when it elapses and restarts escalation from step 1', async () => {
    freezeClock();
    const [first, second] = [uniqueEmail('to-first'), uniqueEmail('to-second')];
    // Step 2 at 15 minutes: its first run's schedule is still to fire when the timeout restarts the run.
    const incidentId = await pagingIncident(first, second, 15);
    const ackId = await acknowledge(incidentId);
    await advance(api, 9 * MINUTE);
    expect(await mailTo(api, first)).toHaveLength(1);
    expect(await mailTo(api, second)).toHaveLength(0);
    await advance(api, 2 * MINUTE);
    // Step 1 again, at the timeout.
    expect(await awaitMail(api, first, 2)).toHaveLength(2);
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    expect(incident.acknowledged).toBe(false);
    expect(incident.acknowledgement).toBeUndefined();
    // The first run's schedule of step 2 (at 15 minutes) finds its step of the new run and pages nothing;
    // the new run's step 2 pages 15 minutes after the restart.
    await advance(api, 6 * MINUTE);
    expect(await mailTo(api, second)).toHaveLength(0);
    await advance(api, 10 * MINUTE);
    expect(await awaitMail(api, second, 1)).toHaveLength(1);
    // Once per acknowledgement, however often its schedule fires.
    expect(await invokeFunction('escalation-step', { ack_timeout: { incident_id: incidentId, acknowledgement_id: ackId } })).toEqual({ outcome: 'superseded' });
    const entries = await kinds(incidentId);
    expect(entries.filter((kind) => kind === 'acknowledgement_timed_out')).toHaveLength(1);
    expect(entries.filter((kind) => kind === 'escalation_restarted')).toHaveLength(1);
    expect(await mailTo(api, first)).toHaveLength(2);
  });

  it('is cancelled by a resolve, and a late acknowledgement times out on its own clock only', async () => {
    freezeClock();
    const [first, second] = [uniqueEmail('race-first'), uniqueEmail('race-second')];
    const incidentId = await pagingIncident(first, second);
    const firstAck = await acknowledge(incidentId);
    await advance(api, 11 * MINUTE);
    await awaitMail(api, first, 2);
    // Acknowledged again 1 minute after the first timed out: the first's schedule, fired again, changes nothing.
    const secondAck = await acknowledge(incidentId);
    expect(secondAck).not.toBe(firstAck);
    expect(await invokeFunction('escalation-step', { ack_timeout: { incident_id: incidentId, acknowledgement_id: firstAck } })).toEqual({ outcome: 'superseded' });
    // Not yet due: the second acknowledgement's own timeout has 10 minutes.
    expect(await invokeFunction('escalation-step', { ack_timeout: { incident_id: incidentId, acknowledgement_id: secondAck } })).toEqual({ outcome: 'not_due' });
    // Resolved before it elapses: nothing restarts.
    expect((await api.request('DELETE', `/api/incidents/${incidentId}`, { token: owner.token })).status).toBe(200);
    await advance(api, 30 * MINUTE);
    expect(await mailTo(api, first)).toHaveLength(2);
    expect(await invokeFunction('escalation-step', { ack_timeout: { incident_id: incidentId, acknowledgement_id: secondAck } })).toEqual({ outcome: 'resolved' });
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    expect(incident).toMatchObject({ status: 'RESOLVED', acknowledged: true });
    expect((await kinds(incidentId)).filter((kind) => kind === 'acknowledgement_timed_out')).toHaveLength(1);
  });
});
