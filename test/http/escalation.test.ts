/**
 * Escalation policies and the escalation engine, with the service clock moved instead of waiting:
 * steps page at started_at + delay (the local scheduler), acknowledgement or resolution stops the
 * steps not yet sent, and each step is sent at most once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { advanceClock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { advance, Api, awaitMail, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { reportDown } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('escalator'));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const MINUTE = 60_000;

async function createPolicy(steps: { delay_minutes: number; emails: string[] }[], user = owner) {
  const response = await api.request('POST', '/api/escalation-policies', { token: user.token, body: { name: 'On call', steps } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.escalation_policy as { id: string };
}

async function failingMonitor(policyId: string) {
  const monitor = (
    await api.request('POST', '/api/monitors', {
      token: owner.token,
      body: { name: 'Edge proxy', failure_threshold: 1, escalation_policy_id: policyId },
    })
  ).body.monitor;
  const opened = await reportDown(monitor.id);
  // Let the escalation plan be scheduled before the test moves the clock.
  await settle(api);
  return { monitor, incidentId: opened.incident_id };
}

describe('escalation policies', () => {
  it('creates, lists, reads and deletes a policy', async () => {
    const response = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: ' Primary ', steps: [{ delay_minutes: 0, emails: ['a@example.com'] }, { delay_minutes: 1440, emails: ['b@example.com', 'c@example.com'] }] },
    });
    expect(response.status).toBe(201);
    const policy = response.body.escalation_policy;
    expect(policy).toEqual({
      id: expect.any(String),
      name: 'Primary',
      owner_id: owner.id,
      steps: [
        { step_order: 1, delay_minutes: 0, emails: ['a@example.com'] },
        { step_order: 2, delay_minutes: 1440, emails: ['b@example.com', 'c@example.com'] },
      ],
      team_id: null,
      created_at: expect.any(String),
    });
    const listed = await api.request('GET', '/api/escalation-policies', { token: owner.token });
    expect(listed.body.escalation_policies).toContainEqual(policy);
    expect((await api.request('GET', `/api/escalation-policies/${policy.id}`, { token: owner.token })).body).toEqual({ escalation_policy: policy });
    const deleted = await api.request('DELETE', `/api/escalation-policies/${policy.id}`, { token: owner.token });
    expect(deleted).toMatchObject({ status: 200, body: { message: 'Escalation policy deleted' } });
    expect((await api.request('GET', `/api/escalation-policies/${policy.id}`, { token: owner.token })).status).toBe(404);
  });

  const step = (delay_minutes: number, emails = ['x@example.com']) => ({ delay_minutes, emails });
  it.each([
    ['no steps', { name: 'P', steps: [] }, 'steps'],
    ['11 steps', { name: 'P', steps: Array.from({ length: 11 }, (_, index) => step(index)) }, 'steps'],
    ['a first delay other than 0', { name: 'P', steps: [step(5)] }, 'steps.0.delay_minutes'],
    ['delays not strictly increasing', { name: 'P', steps: [step(0), step(10), step(10)] }, 'steps.2.delay_minutes'],
    ['a delay over 1,440', { name: 'P', steps: [step(0), step(1441)] }, 'steps.1.delay_minutes'],
    ['no e-mails in a step', { name: 'P', steps: [step(0, [])] }, 'steps.0.emails'],
    ['11 e-mails in a step', { name: 'P', steps: [step(0, Array.from({ length: 11 }, (_, i) => `u${i}@example.com`))] }, 'steps.0.emails'],
    ['an invalid e-mail', { name: 'P', steps: [step(0, ['not-mail'])] }, 'steps.0.emails.0'],
    ['no name', { steps: [step(0)] }, 'name'],
  ])('answers 400 Validation errors for %s', async (_, body, field) => {
    const response = await api.request('POST', '/api/escalation-policies', { token: owner.token, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('refuses another owner\'s policy on a monitor and deleting a policy in use', async () => {
    const other = await api.signUp(uniqueEmail('other-owner'));
    const foreign = await createPolicy([{ delay_minutes: 0, emails: ['a@example.com'] }], other);
    for (const id of [foreign.id, randomUUID()]) {
      const response = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'M', escalation_policy_id: id } });
      expect(response).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });
    }
    expect((await api.request('GET', `/api/escalation-policies/${foreign.id}`, { token: owner.token })).status).toBe(404);
    expect((await api.request('DELETE', `/api/escalation-policies/${foreign.id}`, { token: owner.token })).status).toBe(404);

    const mine = await createPolicy([{ delay_minutes: 0, emails: ['a@example.com'] }]);
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'M', escalation_policy_id: mine.id } })).body.monitor;
    expect(await api.request('DELETE', `/api/escalation-policies/${mine.id}`, { token: owner.token })).toMatchObject({
      status: 400,
      body: { error: 'Escalation policy in use' },
    });
    const swap = await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { escalation_policy_id: foreign.id } });
    expect(swap).toMatchObject({ status: 404, body: { error: 'Escalation policy not found' } });
    await api.request('PUT', `/api/monitors/${monitor.id}`, { token: owner.token, body: { escalation_policy_id: null } });
    expect((await api.request('DELETE', `/api/escalation-policies/${mine.id}`, { token: owner.token })).status).toBe(200);
  });

  it('counts monitors that use a policy through create, update and delete', async () => {
    const policy = await createPolicy([{ delay_minutes: 0, emails: ['a@example.com'] }]);
    const a = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'A', escalation_policy_id: policy.id } })).body.monitor;
    const b = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'B' } })).body.monitor;
    await api.request('PUT', `/api/monitors/${b.id}`, { token: owner.token, body: { escalation_policy_id: policy.id } });
    await api.request('DELETE', `/api/monitors/${a.id}`, { token: owner.token });
    expect((await api.request('DELETE', `/api/escalation-policies/${policy.id}`, { token: owner.token })).status).toBe(400);
    await api.request('DELETE', `/api/monitors/${b.id}`, { token: owner.token });
    expect((await api.request('DELETE', `/api/escalation-policies/${policy.id}`, { token: owner.token })).status).toBe(200);
  });
});

describe('escalation engine', () => {
  it('pages each step at its delay and shows the steps on the incident', async () => {
    // Only the test moves time: the real seconds a loaded machine spends between opening the incident and
    // the check 2 s before step 2 is due must not count (a stress run paged step 2 early).
    freezeClock();
    const [first, second, third] = [uniqueEmail('step1'), uniqueEmail('step2'), uniqueEmail('step3')];
    const policy = await createPolicy([
      { delay_minutes: 0, emails: [first] },
      { delay_minutes: 5, emails: [second] },
      { delay_minutes: 15, emails: [third] },
    ]);
    const { incidentId } = await failingMonitor(policy.id);
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    expect(incident.escalation_policy_id).toBe(policy.id);
    expect(incident.escalation_steps).toEqual([
      { step_order: 1, delay_minutes: 0 },
      { step_order: 2, delay_minutes: 5 },
      { step_order: 3, delay_minutes: 15 },
    ]);

    // A step due at once is paged by the transaction that opened the incident: its event is published
    // with incident.created, in the same stream batch, not after a second pass through the scheduler.
    const opening = api.runtime.bus.published.filter((event) => (event.detail as { incident?: { id: string } }).incident?.id === incidentId);
    expect(opening.map((event) => event['detail-type']).sort()).toEqual(['incident.created', 'incident.escalation_step']);
    // The page first: its notifier's invocation starts before the targets of incident.created (issue 33).
    expect(opening.map((event) => event['detail-type'])).toEqual(['incident.escalation_step', 'incident.created']);
    expect(new Set(opening.map((event) => (event.detail as { occurred_at: string }).occurred_at)).size).toBe(1);

    const [page] = await awaitMail(api, first, 1);
    expect(page!.subject).toBe('[Escalation step 1] Edge proxy is down');
    for (const fact of ['Edge proxy', 'HIGH', 'Escalation step: 1', `${api.url}/acknowledge/`]) {
      expect(page!.body.text).toContain(fact);
    }
    await settle(api);
    expect(api.runtime.scheduler.list().map((schedule) => schedule.name)).toEqual([
      `esc-${incidentId}-2`,
      `esc-${incidentId}-3`,
    ]);

    await advance(api, 4 * MINUTE + 58_000);
    expect(await mailTo(api, second)).toHaveLength(0);
    await advance(api, 3_000);
    expect((await awaitMail(api, second, 1))[0]!.subject).toBe('[Escalation step 2] Edge proxy is down');
    await advance(api, 10 * MINUTE);
    expect((await awaitMail(api, third, 1))[0]!.subject).toBe('[Escalation step 3] Edge proxy is down');
    expect(api.runtime.scheduler.list().filter((schedule) => schedule.name.includes(incidentId))).toEqual([]);
    for (const to of [first, second, third]) expect(await mailTo(api, to)).toHaveLength(1);
  });

  it('stops every later step once the incident is acknowledged', async () => {
    // Only the test moves time: the real seconds a loaded machine takes before the acknowledgement must not count.
    freezeClock();
    const [first, second, third] = [uniqueEmail('ack1'), uniqueEmail('ack2'), uniqueEmail('ack3')];
    const policy = await createPolicy([
      { delay_minutes: 0, emails: [first] },
      { delay_minutes: 5, emails: [second] },
      { delay_minutes: 10, emails: [third] },
    ]);
    const { incidentId } = await failingMonitor(policy.id);
    await awaitMail(api, first, 1);
    // Acknowledged just before step 2 falls due: the check at send time stops it.
    advanceClock(5 * MINUTE - 1_000);
    const ack = await api.request('POST', `/api/incidents/${incidentId}/acknowledge`, { token: owner.token, body: { method: 'email' } });
    expect(ack.status).toBe(200);
    await advance(api, 30 * MINUTE);
    expect(await mailTo(api, second)).toHaveLength(0);
    expect(await mailTo(api, third)).toHaveLength(0);
    expect(api.runtime.scheduler.list().filter((schedule) => schedule.name.includes(incidentId))).toEqual([]);
    expect(await invokeFunction('escalation-step', { incident_id: incidentId, step_order: 2 })).toEqual({ outcome: 'cancelled' });
  });

  it('stops later steps once the incident is resolved (by recovery)', async () => {
    const later = uniqueEmail('resolved-later');
    const policy = await createPolicy([
      { delay_minutes: 0, emails: [uniqueEmail('resolved-first')] },
      { delay_minutes: 5, emails: [later] },
    ]);
    const { monitor, incidentId } = await failingMonitor(policy.id);
    await invokeFunction('monitor-check', { monitorId: monitor.id, status: 'up', consecutiveFailures: 0, checkedAt: new Date().toISOString() });
    await advance(api, 6 * MINUTE);
    expect(await mailTo(api, later)).toHaveLength(0);
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    expect(incident.status).toBe('RESOLVED');
  });

  it('sends a step at most once, however often its schedule fires', async () => {
    const target = uniqueEmail('once');
    const policy = await createPolicy([{ delay_minutes: 0, emails: [target] }]);
    const { incidentId } = await failingMonitor(policy.id);
    await awaitMail(api, target, 1);
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => invokeFunction('escalation-step', { incident_id: incidentId, step_order: 1 })),
    );
    expect(outcomes).toEqual(Array(5).fill({ outcome: 'already_sent' }));
    await settle(api);
    expect(await mailTo(api, target)).toHaveLength(1);
  });

  it('never escalates a manual incident', async () => {
    const target = uniqueEmail('manual');
    const policy = await createPolicy([{ delay_minutes: 0, emails: [target] }]);
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Manual', escalation_policy_id: policy.id } })).body.monitor;
    const created = await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor.id, title: 'Planned work' } });
    await settle(api);
    expect(await mailTo(api, target)).toHaveLength(0);
    const incident = (await api.request('GET', `/api/incidents/${created.body.incident.id}`, { token: owner.token })).body.incident;
    expect(incident.escalation_policy_id).toBeNull();
    expect(incident).not.toHaveProperty('escalation_steps');
  });
});
