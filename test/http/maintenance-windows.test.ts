/**
 * Issue 45 §1: maintenance windows. Inside one, a monitor's incidents open and count as usual but nothing
 * pages and no subscriber is e-mailed (`in_maintenance`, the `paging_held` entry naming the window); at its
 * end, or when it is deleted, an incident still open and unacknowledged pages from step 1 and its
 * subscribers get their e-mail. A team's window covers every monitor shared with the team.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../../infra/local/aws/functions.js';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { advance, Api, awaitMail, mailTo, settle, subscribeConfirmed, uniqueEmail, type User } from '../support/api.js';
import { createIncident, reportDown, seedTeam } from '../support/teams.js';

let api: Api;
let owner: User;

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('maint-owner'));
});
afterAll(() => api.close());
afterEach(() => resetClock());

const MINUTE = 60_000;
const inMinutes = (minutes: number) => new Date(clock.now().getTime() + minutes * MINUTE).toISOString();

async function pagedMonitor(target: string, user = owner, teamId: string | null = null) {
  const policy = (
    await api.request('POST', '/api/escalation-policies', { token: user.token, body: { name: 'On call', steps: [{ delay_minutes: 0, emails: [target] }] } })
  ).body.escalation_policy;
  const created = await api.request('POST', '/api/monitors', {
    token: user.token,
    body: { name: 'Payments', failure_threshold: 1, escalation_policy_id: policy.id, team_id: teamId },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.monitor as { id: string };
}

const openWindow = async (path: string, user: User, minutes = 60, reason: string | null = 'Deploy') => {
  const response = await api.request('POST', path, { token: user.token, body: { starts_at: inMinutes(0), ends_at: inMinutes(minutes), ...(reason ? { reason } : {}) } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.maintenance_window;
};

const incident = async (incidentId: string, user = owner) => (await api.request('GET', `/api/incidents/${incidentId}`, { token: user.token })).body.incident;
const monitorForm = async (monitorId: string, user = owner) => (await api.request('GET', `/api/monitors/${monitorId}`, { token: user.token })).body.monitor;
const timeline = async (incidentId: string) =>
  (await api.request('GET', `/api/incidents/${incidentId}/updates?limit=100`, { token: owner.token })).body.updates as { kind: string; details: Record<string, unknown> | null }[];

describe('maintenance windows', () => {
  it('holds a check inside a window: counted, not paged, no subscriber e-mail; pages from step 1 at its end', async () => {
    freezeClock();
    const [target, subscriber] = [uniqueEmail('maint-page'), uniqueEmail('maint-sub')];
    const monitor = await pagedMonitor(target);
    await subscribeConfirmed(api, owner.token, monitor.id, subscriber);
    const window = await openWindow(`/api/monitors/${monitor.id}/maintenance-windows`, owner);
    expect(window).toEqual({
      id: expect.any(String),
      monitor_id: monitor.id,
      team_id: null,
      starts_at: inMinutes(0),
      ends_at: inMinutes(60),
      reason: 'Deploy',
      created_by: owner.id,
      created_at: expect.any(String),
    });
    expect((await monitorForm(monitor.id)).maintenance_until).toBe(window.ends_at);
    const opened = await reportDown(monitor.id);
    expect(opened.outcome).toBe('incident_opened');
    await settle(api);
    expect(await incident(opened.incident_id)).toMatchObject({ in_maintenance: true, acknowledged: false, status: 'INVESTIGATING' });
    const held = (await timeline(opened.incident_id)).find((entry) => entry.kind === 'paging_held');
    expect(held?.details).toEqual({ maintenance_window_id: window.id, until: window.ends_at });
    const listed = await api.request('GET', `/api/incidents?monitor_id=${monitor.id}`, { token: owner.token });
    expect(listed.body.incidents.map((item: { id: string; in_maintenance: boolean }) => [item.id, item.in_maintenance])).toEqual([[opened.incident_id, true]]);
    await advance(api, 59 * MINUTE);
    expect(await mailTo(api, target)).toHaveLength(0);
    expect(await mailTo(api, subscriber)).toHaveLength(0);
    // At the end, its release asked twice at once (the schedule and a retry): released once.
    advanceClock(2 * MINUTE);
    const release = { maintenance_release: { incident_id: opened.incident_id, until: window.ends_at } };
    const outcomes = await Promise.all([invokeFunction('escalation-step', release), invokeFunction('escalation-step', release)]);
    expect(outcomes.map((outcome) => (outcome as { outcome: string }).outcome).sort()).toEqual(['not_held', 'paging']);
    await advance(api, 0);
    expect((await awaitMail(api, target, 1))[0]!.subject).toBe('[Escalation step 1] Payments is down');
    expect((await awaitMail(api, subscriber, 1))[0]!.subject).toMatch(/^New incident: /);
    expect(await incident(opened.incident_id)).toMatchObject({ in_maintenance: false });
    expect((await monitorForm(monitor.id)).maintenance_until).toBeNull();
    expect((await timeline(opened.incident_id)).filter((entry) => entry.kind === 'escalation_restarted').map((entry) => entry.details)).toEqual([
      { reason: 'maintenance_ended', run: 1 },
    ]);
    // Nor does its schedule, later: one page, one e-mail.
    await advance(api, 10 * MINUTE);
    expect(await mailTo(api, target)).toHaveLength(1);
    expect(await mailTo(api, subscriber)).toHaveLength(1);
    // Listed: an ended window comes after current and future ones.
    const future = await api.request('POST', `/api/monitors/${monitor.id}/maintenance-windows`, {
      token: owner.token,
      body: { starts_at: inMinutes(60), ends_at: inMinutes(120) },
    });
    const windows = (await api.request('GET', `/api/monitors/${monitor.id}/maintenance-windows`, { token: owner.token })).body.maintenance_windows;
    expect(windows.map((item: { id: string }) => item.id)).toEqual([future.body.maintenance_window.id, window.id]);
    expect(future.body.maintenance_window.reason).toBeNull();
  });

  it('pages at once when the window holding it is deleted, and not an incident acknowledged meanwhile', async () => {
    freezeClock();
    const target = uniqueEmail('maint-deleted');
    const monitor = await pagedMonitor(target);
    const window = await openWindow(`/api/monitors/${monitor.id}/maintenance-windows`, owner, 120);
    const opened = await reportDown(monitor.id);
    await settle(api);
    expect(await mailTo(api, target)).toHaveLength(0);
    const deleted = await api.request('DELETE', `/api/monitors/${monitor.id}/maintenance-windows/${window.id}`, { token: owner.token });
    expect(deleted).toMatchObject({ status: 200, body: { message: 'Maintenance window ended' } });
    await settle(api);
    expect(await awaitMail(api, target, 1)).toHaveLength(1);
    expect(await incident(opened.incident_id)).toMatchObject({ in_maintenance: false });
    const again = await api.request('DELETE', `/api/monitors/${monitor.id}/maintenance-windows/${window.id}`, { token: owner.token });
    expect(again).toMatchObject({ status: 404, body: { error: 'Maintenance window not found' } });
    const listed = (await api.request('GET', `/api/monitors/${monitor.id}/maintenance-windows`, { token: owner.token })).body.maintenance_windows;
    expect(listed).toEqual([{ ...window, ends_at: clock.nowIso() }]);

    // Acknowledged inside the window: nothing pages at its end.
    const quiet = uniqueEmail('maint-acked');
    const other = await pagedMonitor(quiet);
    const second = await openWindow(`/api/monitors/${other.id}/maintenance-windows`, owner, 30);
    const held = await reportDown(other.id);
    await settle(api);
    expect((await api.request('POST', `/api/incidents/${held.incident_id}/acknowledge`, { token: owner.token, body: { method: 'api' } })).status).toBe(200);
    await api.request('DELETE', `/api/monitors/${other.id}/maintenance-windows/${second.id}`, { token: owner.token });
    await advance(api, 40 * MINUTE);
    expect(await mailTo(api, quiet)).toHaveLength(0);
    expect(await incident(held.incident_id)).toMatchObject({ in_maintenance: false, acknowledged: true });
  });

  it("covers every monitor shared with a team by the team's window; an incident opened by hand is unaffected", async () => {
    freezeClock();
    const [member, viewer, outsider] = await Promise.all([
      api.signUp(uniqueEmail('maint-member')),
      api.signUp(uniqueEmail('maint-viewer')),
      api.signUp(uniqueEmail('maint-outsider')),
    ]);
    const { team } = await seedTeam(owner, [
      [member, 'MEMBER'],
      [viewer, 'VIEWER'],
    ]);
    const target = uniqueEmail('maint-team');
    const monitor = await pagedMonitor(target, owner, team.id);
    const path = `/api/teams/${team.id}/maintenance-windows`;
    const body = { starts_at: inMinutes(0), ends_at: inMinutes(30) };
    expect(await api.request('POST', path, { token: viewer.token, body })).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect(await api.request('POST', path, { token: outsider.token, body })).toMatchObject({ status: 404, body: { error: 'Team not found' } });
    const window = await openWindow(path, member, 30, null);
    expect(window).toMatchObject({ monitor_id: null, team_id: team.id, created_by: member.id, reason: null });
    expect((await monitorForm(monitor.id, viewer)).maintenance_until).toBe(window.ends_at);
    const listed = await api.request('GET', '/api/monitors', { token: member.token });
    expect(listed.body.monitors.find((item: { id: string }) => item.id === monitor.id).maintenance_until).toBe(window.ends_at);
    expect((await api.request('GET', `/api/monitors/${monitor.id}/maintenance-windows`, { token: viewer.token })).body.maintenance_windows).toEqual([window]);

    const opened = await reportDown(monitor.id);
    const manual = await createIncident(api, owner, monitor.id, 'Opened by hand');
    await settle(api);
    expect(await incident(opened.incident_id)).toMatchObject({ in_maintenance: true });
    expect(await incident(manual)).toMatchObject({ in_maintenance: false });
    expect(await mailTo(api, target)).toHaveLength(0);
    await advance(api, 31 * MINUTE);
    expect(await awaitMail(api, target, 1)).toHaveLength(1);
  });

  it("follows the monitor's update right: members and its owner; viewers 403, outsiders the monitor's 404", async () => {
    const [member, viewer, outsider] = await Promise.all([
      api.signUp(uniqueEmail('right-member')),
      api.signUp(uniqueEmail('right-viewer')),
      api.signUp(uniqueEmail('right-outsider')),
    ]);
    const { team } = await seedTeam(owner, [
      [member, 'MEMBER'],
      [viewer, 'VIEWER'],
    ]);
    const monitor = await pagedMonitor(uniqueEmail('right-page'), owner, team.id);
    const path = `/api/monitors/${monitor.id}/maintenance-windows`;
    const body = () => ({ starts_at: inMinutes(10), ends_at: inMinutes(20) });
    expect(await api.request('POST', path, { token: viewer.token, body: body() })).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect(await api.request('POST', path, { token: outsider.token, body: body() })).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    expect(await api.request('GET', path, { token: outsider.token })).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    const made = await api.request('POST', path, { token: member.token, body: body() });
    expect(made.status).toBe(201);
    const windowPath = `${path}/${made.body.maintenance_window.id}`;
    expect(await api.request('DELETE', windowPath, { token: outsider.token })).toMatchObject({ status: 404, body: { error: 'Monitor not found' } });
    expect(await api.request('DELETE', windowPath, { token: viewer.token })).toMatchObject({ status: 403, body: { error: 'Not authorized' } });
    expect((await api.request('DELETE', windowPath, { token: owner.token })).status).toBe(200);
  });

  it('refuses a 51st window not yet ended: 400, and takes one again once one is ended', async () => {
    freezeClock();
    const monitor = await pagedMonitor(uniqueEmail('maint-limit'));
    const path = `/api/monitors/${monitor.id}/maintenance-windows`;
    const made: string[] = [];
    for (let index = 0; index < 50; index++) {
      const response = await api.request('POST', path, { token: owner.token, body: { starts_at: inMinutes(10 + index), ends_at: inMinutes(11 + index) } });
      expect(response.status).toBe(201);
      made.push(response.body.maintenance_window.id);
    }
    const refused = await api.request('POST', path, { token: owner.token, body: { starts_at: inMinutes(100), ends_at: inMinutes(101) } });
    expect(refused).toMatchObject({ status: 400, body: { error: 'Maintenance window limit reached: at most 50 current and future windows per monitor or team' } });
    expect((await api.request('DELETE', `${path}/${made[0]}`, { token: owner.token })).status).toBe(200);
    expect((await api.request('POST', path, { token: owner.token, body: { starts_at: inMinutes(100), ends_at: inMinutes(101) } })).status).toBe(201);
  });

  it.each([
    ['a start in the past', () => ({ starts_at: inMinutes(-5), ends_at: inMinutes(60) }), 'starts_at', 'starts_at must not be in the past'],
    ['a start more than a year ahead', () => ({ starts_at: inMinutes(367 * 1440), ends_at: inMinutes(367 * 1440 + 60) }), 'starts_at', 'starts_at must be within a year from now'],
    ['an end before the start', () => ({ starts_at: inMinutes(10), ends_at: inMinutes(5) }), 'ends_at', 'ends_at must be after starts_at'],
    ['an end at the start', () => ({ starts_at: inMinutes(10), ends_at: inMinutes(10) }), 'ends_at', 'ends_at must be after starts_at'],
    ['more than 7 days', () => ({ starts_at: inMinutes(0), ends_at: inMinutes(7 * 1440 + 1) }), 'ends_at', 'A maintenance window lasts at most 7 days'],
    ['no end', () => ({ starts_at: inMinutes(0) }), 'ends_at', undefined],
    ['a reason over 500 characters', () => ({ starts_at: inMinutes(0), ends_at: inMinutes(5), reason: 'x'.repeat(501) }), 'reason', undefined],
  ])('refuses %s: 400 Validation errors', async (_name, body, field, message) => {
    freezeClock();
    const monitor = await pagedMonitor(uniqueEmail('maint-valid'));
    for (const path of [`/api/monitors/${monitor.id}/maintenance-windows`]) {
      const response = await api.request('POST', path, { token: owner.token, body: body() });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      expect(response.body.details).toEqual([message ? { field, message } : { field, message: expect.any(String) }]);
    }
  });
});
