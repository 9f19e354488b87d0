/**
 * Escalation to schedules and people (issue 31 §3), with the service clock moved instead of waiting: a
 * schedule target pages whoever is on call at the page (an override's person over the rotation), a handoff
 * between two steps pages the new person at step 2, `repeat` pages step 1 again, a schedule with nobody on
 * call is told on the timeline while the other targets are paged, a member removed from the team is never
 * paged, and a schedule a policy targets is not deleted (409 naming the policy).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { clock, resetClock } from '../../shared/platform/clock.js';
import { advance, Api, awaitMail, eventually, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { captureLogs } from '../support/logs.js';
import { createTeam, join, reportDown, seedTeam } from '../support/teams.js';

// Errors and metrics printed (the suite is silent otherwise), so the nobody-on-call error is seen.
vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');

let api: Api;
let owner: User;
let ana: User;
let ben: User;
let jsonLines: () => Record<string, any>[];

beforeAll(async () => {
  // What the functions print, the worker thread's escalation functions included.
  jsonLines = captureLogs().jsonLines;
  api = await Api.start();
  [owner, ana, ben] = (await Promise.all(['owner', 'ana', 'ben'].map((name) => api.signUp(uniqueEmail(name), name)))) as [User, User, User];
  // The owner's own schedules and policies may name only people who share a team with them (issue 41, 5).
  await seedTeam(owner, [[ana, 'MEMBER'], [ben, 'MEMBER']], 'Crew');
});
afterAll(() => api.close());
afterEach(() => resetClock());

const MINUTE = 60_000;

/** An hourly rotation in UTC from the start of the current hour: `members[0]` is on call now, `members[1]` from the next hour. */
const hourly = (members: string[], start = `${clock.nowIso().slice(0, 13)}:00`) => ({ name: 'Hourly', start, rotation: { type: 'hourly', length: 1 }, members });

async function schedule(members: string[], as = owner, extra: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/api/schedules', { token: as.token, body: { name: 'Primary', time_zone: 'UTC', layers: [hourly(members)], ...extra } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.schedule as { id: string; name: string };
}

async function policy(body: Record<string, unknown>, as = owner) {
  const response = await api.request('POST', '/api/escalation-policies', { token: as.token, body: { name: 'On call', ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.escalation_policy as { id: string };
}

/** Opens an incident through a failing monitor with the policy and lets its due steps be paged. */
async function incidentWith(policyId: string, as = owner, team_id?: string) {
  const monitor = (await api.request('POST', '/api/monitors', { token: as.token, body: { name: 'Checkout', failure_threshold: 1, escalation_policy_id: policyId, team_id } })).body.monitor;
  const { incident_id } = await reportDown(monitor.id);
  await settle(api);
  return incident_id as string;
}

async function pagedEntries(incidentId: string, as = owner) {
  const timeline = await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: as.token });
  return (timeline.body.updates as { kind: string; details: Record<string, unknown> }[]).filter((entry) => entry.kind === 'escalation_paged').map((entry) => entry.details);
}

describe('escalation to schedules', () => {
  it('pages whoever is on call at each page (deduplicated), and the new person at step 2 after a handoff', async () => {
    const rota = await schedule([ana.id, ben.id]);
    const extra = uniqueEmail('extra');
    const { id } = await policy({
      steps: [
        { delay_minutes: 0, targets: [{ type: 'schedule', id: rota.id }, { type: 'user', id: ana.id }, { type: 'email', address: extra }] },
        { delay_minutes: 60, targets: [{ type: 'schedule', id: rota.id }] },
      ],
    });
    const incidentId = await incidentWith(id);
    await awaitMail(api, ana.email, 1);
    await awaitMail(api, extra, 1);
    expect(await pagedEntries(incidentId)).toEqual([
      {
        step_order: 1,
        recipients: [ana.email, extra],
        paged: [{ email: ana.email, user_id: ana.id, user_name: ana.name, schedule_id: rota.id }, { email: extra }],
      },
    ]);

    await advance(api, 60 * MINUTE);
    const [page] = await awaitMail(api, ben.email, 1);
    expect(page!.subject).toBe('[Escalation step 2] Checkout is down');
    expect(await mailTo(api, ana.email)).toHaveLength(1);
    expect((await pagedEntries(incidentId))[1]).toEqual({
      step_order: 2,
      recipients: [ben.email],
      paged: [{ email: ben.email, user_id: ben.id, user_name: ben.name, schedule_id: rota.id }],
    });

    // A policy that targets the schedule keeps it: 409 naming the policy.
    const refused = await api.request('DELETE', `/api/schedules/${rota.id}`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'Schedule is a target of escalation policies', details: [{ field: 'escalation_policy', message: `On call (${id})` }] });
  });

  it("pages an override's person over the rotation, and step 1 again on repeat", async () => {
    const rota = await schedule([ana.id, ben.id]);
    const now = clock.now().getTime();
    const override = await api.request('POST', `/api/schedules/${rota.id}/overrides`, {
      token: owner.token,
      body: { user_id: ben.id, start: new Date(now - MINUTE).toISOString(), end: new Date(now + 20 * MINUTE).toISOString() },
    });
    expect(override.status).toBe(201);
    const before = (await mailTo(api, ben.email)).length;
    const { id } = await policy({ steps: [{ delay_minutes: 0, targets: [{ type: 'schedule', id: rota.id }] }], repeat: 1 });
    expect((await api.request('GET', `/api/escalation-policies/${id}`, { token: owner.token })).body.escalation_policy).toMatchObject({
      steps: [{ step_order: 1, delay_minutes: 0, emails: [], targets: [{ type: 'schedule', id: rota.id }] }],
      repeat: 1,
    });
    const incidentId = await incidentWith(id);
    await awaitMail(api, ben.email, before + 1);
    expect((await pagedEntries(incidentId))[0]!.paged).toEqual([{ email: ben.email, user_id: ben.id, user_name: ben.name, schedule_id: rota.id }]);
    expect((await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident.escalation_steps).toEqual([
      { step_order: 1, delay_minutes: 0 },
      { step_order: 2, delay_minutes: 30 },
    ]);

    // A one-step policy's round lasts 30 minutes: step 1 runs again as step 2, to whoever is on call then.
    await advance(api, 30 * MINUTE + 2_000);
    const entries = await pagedEntries(incidentId);
    expect(entries.map((entry) => entry.step_order)).toEqual([1, 2]);
    expect(entries[1]!.paged).toEqual([expect.objectContaining({ schedule_id: rota.id })]);
  });

  it('tells the timeline when nobody is on call in a schedule and still pages the other targets', async () => {
    const future = await api.request('POST', '/api/schedules', {
      token: owner.token,
      body: { name: 'Next year', time_zone: 'UTC', layers: [hourly([ana.id], '2099-01-01T00:00')] },
    });
    const fallback = uniqueEmail('fallback');
    const { id } = await policy({ steps: [{ delay_minutes: 0, targets: [{ type: 'schedule', id: future.body.schedule.id }, { type: 'email', address: fallback }] }] });
    const incidentId = await incidentWith(id);
    await awaitMail(api, fallback, 1);
    expect(await pagedEntries(incidentId)).toEqual([
      {
        step_order: 1,
        recipients: [fallback],
        paged: [{ email: fallback }],
        nobody_on_call: [{ schedule_id: future.body.schedule.id, schedule_name: 'Next year' }],
      },
    ]);
    // And the function logged it as an error (what alarms on AWS, with the ScheduleNobodyOnCall metric).
    const logged = () => jsonLines().filter((line) => line.message?.startsWith('nobody on call') && line.schedule_id === future.body.schedule.id);
    await eventually(async () => logged(), (lines) => lines.length > 0);
    expect(logged()).toEqual([
      expect.objectContaining({ level: 'ERROR', incident_id: incidentId, step_order: 1, schedule_id: future.body.schedule.id, schedule_name: 'Next year' }),
    ]);
    const metric = jsonLines().filter((line) => line._aws?.CloudWatchMetrics?.[0]?.Metrics?.some((m: { Name: string }) => m.Name === 'ScheduleNobodyOnCall'));
    expect(metric.length).toBeGreaterThan(0);
  });

  it('never pages a member removed from the team, and checks targets against the policy scope', async () => {
    const lead = await api.signUp(uniqueEmail('lead'), 'lead');
    const team = await createTeam(api, lead);
    const memberId = await join(api, lead, team.id, ana, 'MEMBER');
    await join(api, lead, team.id, ben, 'MEMBER');
    const rota = await schedule([ana.id, ben.id], lead, { team_id: team.id });

    const mine = await schedule([ana.id]);
    const misfit = await api.request('POST', '/api/escalation-policies', {
      token: lead.token,
      body: { name: 'X', team_id: team.id, steps: [{ delay_minutes: 0, targets: [{ type: 'schedule', id: mine.id }, { type: 'user', id: owner.id }] }] },
    });
    expect(misfit.body).toEqual({
      error: 'Validation errors',
      details: [{ field: 'steps.0.targets.0.id', message: "Must be a schedule of the policy's team or of its owner alone" }],
    });
    const outsider = await api.request('POST', '/api/escalation-policies', {
      token: lead.token,
      body: { name: 'X', team_id: team.id, steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: owner.id }] }] },
    });
    expect(outsider.body.details).toEqual([{ field: 'steps.0.targets.0.id', message: "Must be a member of the policy's team" }]);

    const { id } = await policy({ team_id: team.id, steps: [{ delay_minutes: 0, targets: [{ type: 'schedule', id: rota.id }, { type: 'user', id: ana.id }] }] }, lead);
    expect((await api.request('DELETE', `/api/teams/${team.id}/members/${memberId}`, { token: lead.token })).status).toBe(200);
    const before = (await mailTo(api, ana.email)).length;
    const incidentId = await incidentWith(id, lead, team.id);
    await eventually(() => pagedEntries(incidentId, lead), (entries) => entries.length > 0);
    // Ana's hour passes to Ben, as if she had never been in the rotation; as a person target she is no member either.
    expect((await pagedEntries(incidentId, lead))[0]).toEqual({
      step_order: 1,
      recipients: [ben.email],
      paged: [{ email: ben.email, user_id: ben.id, user_name: ben.name, schedule_id: rota.id }],
    });
    await awaitMail(api, ben.email, 1);
    expect(await mailTo(api, ana.email)).toHaveLength(before);
  });
});

