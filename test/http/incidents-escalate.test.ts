/**
 * `POST /api/incidents/{id}/escalate` (issue 44): escalating now through the API, as an SMS reply `<n>e`
 * does: the next step, not paged yet, pages at once; the acknowledger's right; every refusal's text.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock } from '../../shared/platform/clock.js';
import { advance, Api, awaitMail, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { createIncident, createMonitor, reportDown, teamWithRoles } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('escalator'), 'Eve Escalator');
});
afterAll(() => api.close());
afterEach(() => resetClock());

/** An automatic incident of `by`'s monitor (shared with `teamId` when given) whose policy e-mails `first` at once and `second` after 30 minutes. */
async function escalatingIncident(by: User, teamId?: string) {
  const first = uniqueEmail('step-one');
  const second = uniqueEmail('step-two');
  const policy = await api.request('POST', '/api/escalation-policies', {
    token: by.token,
    body: { name: 'Two steps', ...(teamId ? { team_id: teamId } : {}), steps: [{ delay_minutes: 0, emails: [first] }, { delay_minutes: 30, emails: [second] }] },
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  const monitor = await createMonitor(api, by, { name: 'Checkout', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id, ...(teamId ? { team_id: teamId } : {}) });
  const { incident_id: incidentId } = await reportDown(monitor.id);
  await settle(api);
  await awaitMail(api, first);
  return { incidentId: incidentId as string, monitorId: monitor.id, first, second };
}

const escalate = (id: string, as: User = owner) => api.request('POST', `/api/incidents/${id}/escalate`, { token: as.token });
const pagedSteps = async (id: string) =>
  ((await api.request('GET', `/api/incidents/${id}/updates`, { token: owner.token })).body.updates as { kind: string; details: { step_order: number } }[])
    .filter((entry) => entry.kind === 'escalation_paged')
    .map((entry) => entry.details.step_order);

describe('POST /api/incidents/{id}/escalate', () => {
  it('pages the next step now (202 with its order), once; then there is no further step (409)', async () => {
    const { incidentId, second } = await escalatingIncident(owner);
    expect(await mailTo(api, second)).toEqual([]);
    const response = await escalate(incidentId);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    expect(response.body).toEqual({ escalation: { step_order: 2 } });
    await advance(api, 2_000);
    await awaitMail(api, second);
    expect(await pagedSteps(incidentId)).toEqual([1, 2]);

    const again = await escalate(incidentId);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Incident has no further escalation step');
    // The step's own schedule finds it sent: one e-mail.
    await advance(api, 31 * 60_000);
    expect(await mailTo(api, second)).toHaveLength(1);
  });

  it('refuses an acknowledged incident and a resolved one (409), and a manual incident, which has no steps', async () => {
    const acknowledged = await escalatingIncident(owner);
    expect((await api.request('POST', `/api/incidents/${acknowledged.incidentId}/acknowledge`, { token: owner.token })).status).toBe(200);
    const refused = await escalate(acknowledged.incidentId);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('Incident already acknowledged');

    const resolved = await escalatingIncident(owner);
    expect((await api.request('DELETE', `/api/incidents/${resolved.incidentId}`, { token: owner.token })).status).toBe(200);
    const closed = await escalate(resolved.incidentId);
    expect(closed.status).toBe(409);
    expect(closed.body.error).toBe('Incident already resolved');

    const manual = await createIncident(api, owner, resolved.monitorId, 'By hand');
    const none = await escalate(manual);
    expect(none.status).toBe(409);
    expect(none.body.error).toBe('Incident has no further escalation step');
    expect(await pagedSteps(resolved.incidentId)).toEqual([1]);
  });

  it("takes the acknowledger's right: a MEMBER of the monitor's team may, a VIEWER gets 403, anyone else and an unknown incident 404", async () => {
    const { team, users } = await teamWithRoles(api);
    const { incidentId, second } = await escalatingIncident(users.OWNER, team.id);

    const viewer = await escalate(incidentId, users.VIEWER);
    expect(viewer.status).toBe(403);
    expect(viewer.body.error).toBe('Not authorized');
    const outsider = await escalate(incidentId, users.NON_MEMBER);
    expect(outsider.status).toBe(404);
    expect(outsider.body.error).toBe('Incident not found');
    const unknown = await escalate('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Incident not found');
    const malformed = await escalate('not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('Validation errors');
    expect(await mailTo(api, second)).toEqual([]);

    const member = await escalate(incidentId, users.MEMBER);
    expect(member.status, JSON.stringify(member.body)).toBe(202);
    expect(member.body.escalation.step_order).toBe(2);
    await advance(api, 2_000);
    await awaitMail(api, second);
  });
});
