/**
 * Heartbeats (issue 30 §4): a monitor's `heartbeat` settings, `POST /heartbeats/{key}`, and the sweep
 * that opens "<monitor> missed its heartbeat" once no ping came within interval + grace (the clock is
 * frozen and moved; the sweep is run directly, then once by the runtime's own periodic rule), resolved by
 * the next ping.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { HEARTBEAT_GONE_NOTES, PINGS_PER_MINUTE, SWEEP_RESERVE_MS, sweepHeartbeats } from '../../shared/heartbeats/service.js';
import { holdCalls } from '../../infra/testing/ddb-calls.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { integrationKeyHash } from '../../shared/integrations/keys.js';

let api: Api;
let owner: User;
const watched = { monitorId: '', key: '' };

beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('heartbeats'), 'Alice');
  freezeClock();
  const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Nightly backup', heartbeat: { interval_seconds: 3600, grace_seconds: 300 } } })).body.monitor;
  watched.monitorId = monitor.id;
  watched.key = (await api.request('POST', `/api/monitors/${monitor.id}/integrations`, { token: owner.token, body: { name: 'cron' } })).body.integration.key;
});
afterAll(() => api.close());
afterEach(() => resetClock());

const ping = (key: string) => api.request('POST', `/heartbeats/${key}`, { rawBody: 'anything at all', headers: { 'content-type': 'text/plain' } });
const openOf = async (monitorId: string) =>
  ((await api.request('GET', `/api/incidents?monitor_id=${monitorId}`, { token: owner.token })).body.incidents as any[]).filter((item) => item.status !== 'RESOLVED');

describe('monitor heartbeat settings', () => {
  it('are taken on create and update, shown by get, and validated', async () => {
    const created = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Cron', heartbeat: { interval_seconds: 60 } } });
    expect(created.status).toBe(201);
    expect(created.body.monitor.heartbeat).toEqual({ interval_seconds: 60, grace_seconds: 0 });
    const id = created.body.monitor.id;
    expect((await api.request('PUT', `/api/monitors/${id}`, { token: owner.token, body: { heartbeat: { interval_seconds: 604_800, grace_seconds: 86_400 } } })).body.monitor.heartbeat).toEqual({
      interval_seconds: 604_800,
      grace_seconds: 86_400,
    });
    expect((await api.request('GET', `/api/monitors/${id}`, { token: owner.token })).body.monitor.heartbeat).toEqual({ interval_seconds: 604_800, grace_seconds: 86_400 });
    expect((await api.request('PUT', `/api/monitors/${id}`, { token: owner.token, body: { heartbeat: null } })).body.monitor.heartbeat).toBeNull();
    expect((await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Plain' } })).body.monitor.heartbeat).toBeNull();

    for (const [heartbeat, field, message] of [
      [{ interval_seconds: 59 }, 'heartbeat.interval_seconds', 'Too small: expected number to be >=60'],
      [{ interval_seconds: 604_801 }, 'heartbeat.interval_seconds', 'Too big: expected number to be <=604800'],
      [{ interval_seconds: 60, grace_seconds: -1 }, 'heartbeat.grace_seconds', 'Too small: expected number to be >=0'],
      [{ interval_seconds: 60, grace_seconds: 86_401 }, 'heartbeat.grace_seconds', 'Too big: expected number to be <=86400'],
    ] as const) {
      const refused = await api.request('PUT', `/api/monitors/${id}`, { token: owner.token, body: { heartbeat } });
      expect(refused.status).toBe(400);
      expect(refused.body.details).toEqual([{ field, message }]);
    }
  });
});

describe("a monitor's last_ping_at", () => {
  it('is null before the first ping (and without a heartbeat), then the last ping\'s time in get, list and update; a ping needs no body', async () => {
    freezeClock();
    const created = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Hourly export', heartbeat: { interval_seconds: 3600 } } })).body.monitor;
    expect(created.last_ping_at).toBeNull();
    const key = (await api.request('POST', `/api/monitors/${created.id}/integrations`, { token: owner.token, body: { name: 'cron' } })).body.integration.key;
    const get = async () => (await api.request('GET', `/api/monitors/${created.id}`, { token: owner.token })).body.monitor;
    const listed = async () => {
      const page = await api.request('GET', '/api/monitors?limit=100', { token: owner.token });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      return (page.body.monitors as any[]).find((monitor) => monitor.id === created.id);
    };
    expect((await get()).last_ping_at).toBeNull();
    expect((await listed()).last_ping_at).toBeNull();

    advanceClock(60_000);
    const pingedAt = clock.nowIso();
    // As the README sends it: no body at all.
    expect(await api.request('POST', `/heartbeats/${key}`)).toMatchObject({ status: 202, body: { message: 'Heartbeat recorded' } });
    advanceClock(60_000);
    expect((await get()).last_ping_at).toBe(pingedAt);
    expect((await listed()).last_ping_at).toBe(pingedAt);
    expect((await api.request('PUT', `/api/monitors/${created.id}`, { token: owner.token, body: { name: 'Hourly export v2' } })).body.monitor.last_ping_at).toBe(pingedAt);
    expect((await api.request('PUT', `/api/monitors/${created.id}`, { token: owner.token, body: { heartbeat: { interval_seconds: 7200 } } })).body.monitor.last_ping_at).toBe(pingedAt);

    // Off: null (its heartbeat item goes); on again: null until the next ping.
    expect((await api.request('PUT', `/api/monitors/${created.id}`, { token: owner.token, body: { heartbeat: null } })).body.monitor.last_ping_at).toBeNull();
    expect((await get()).last_ping_at).toBeNull();
    expect((await api.request('PUT', `/api/monitors/${created.id}`, { token: owner.token, body: { heartbeat: { interval_seconds: 3600 } } })).body.monitor.last_ping_at).toBeNull();
    expect((await listed()).last_ping_at).toBeNull();
    expect((await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Plain' } })).body.monitor.last_ping_at).toBeNull();
  });
});

describe('POST /heartbeats/{key}', () => {
  it('records a ping (202); an unknown key, or a monitor without a heartbeat, is 404; a GET pings nothing', async () => {
    expect(await ping(watched.key)).toMatchObject({ status: 202, body: { message: 'Heartbeat recorded' } });
    expect(await ping('a'.repeat(32))).toMatchObject({ status: 404, body: { error: 'Heartbeat not found' } });
    expect(await ping('not-a-key')).toMatchObject({ status: 404, body: { error: 'Heartbeat not found' } });
    expect((await api.request('GET', `/heartbeats/${watched.key}`)).status).toBe(404);
    const plain = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'No heartbeat' } })).body.monitor.id;
    const plainKey = (await api.request('POST', `/api/monitors/${plain}/integrations`, { token: owner.token, body: { name: 'x' } })).body.integration.key;
    expect(await ping(plainKey)).toMatchObject({ status: 404, body: { error: 'Heartbeat not found' } });
  });

  it('past interval + grace the sweep opens "<monitor> missed its heartbeat", once; the next ping resolves it as recovered', async () => {
    freezeClock();
    expect((await ping(watched.key)).status).toBe(202);
    advanceClock((3600 + 300) * 1000 - 1000);
    await sweepHeartbeats();
    expect(await openOf(watched.monitorId)).toHaveLength(0);
    advanceClock(2000);
    await sweepHeartbeats();
    await sweepHeartbeats();
    // The runtime's own periodic sweep may have claimed the miss first and be opening the incident still.
    const open = await eventually(() => openOf(watched.monitorId), (items) => items.length > 0);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ title: 'Nightly backup missed its heartbeat', severity: 'HIGH' });

    expect((await ping(watched.key)).status).toBe(202);
    expect(await openOf(watched.monitorId)).toHaveLength(0);
    const updates = (await api.request('GET', `/api/incidents/${open[0].id}/updates`, { token: owner.token })).body.updates as any[];
    expect(updates.map((entry) => entry.kind)).toEqual(['created', 'resolved']);
    expect(updates[0]).toMatchObject({ message: 'No ping within 3600 s (plus 300 s of grace) of the last one', details: { automatic: true } });
    expect(updates[1]).toMatchObject({ details: { by: 'recovery' } });
    // Re-armed from the ping: the next miss opens a new incident, this time by the runtime's own
    // periodic rule (its timer on the service clock), not a direct call.
    advanceClock((3600 + 300 + 1) * 1000);
    const again = await eventually(() => openOf(watched.monitorId), (items) => items.length > 0);
    expect(again).toHaveLength(1);
    expect(again[0].id).not.toBe(open[0].id);
  });
});

describe("a key's own rate (issue 46 §4)", () => {
  it(`takes ${PINGS_PER_MINUTE} pings a minute per key, then answers 429 with Retry-After until the minute ends; other keys are not affected`, async () => {
    const noisy = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Noisy cron', heartbeat: { interval_seconds: 60 } } })).body.monitor.id;
    const noisyKey = (await api.request('POST', `/api/monitors/${noisy}/integrations`, { token: owner.token, body: { name: 'fleet' } })).body.integration.key;
    // 15 s into a minute, frozen: all pings fall in one window.
    const now = clock.now().getTime();
    freezeClock(new Date(now - (now % 60_000) + 60_000 + 15_000));
    const answers = await Promise.all(Array.from({ length: PINGS_PER_MINUTE }, () => ping(noisyKey)));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 202));
    const refused = await ping(noisyKey);
    expect(refused).toMatchObject({ status: 429, body: { message: 'Too many requests for this integration key' } });
    expect(refused.headers.get('retry-after')).toBe('45');
    // Another key of the same owner pings on.
    expect((await ping(watched.key)).status).toBe(202);
    advanceClock(45_000);
    expect((await ping(noisyKey)).status).toBe(202);
  });

  it("counts a ping in the key's minute started by an instance whose clock is a little ahead, instead of fighting over it", async () => {
    const skewed = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Skewed cron', heartbeat: { interval_seconds: 60 } } })).body.monitor.id;
    const skewedKey = (await api.request('POST', `/api/monitors/${skewed}/integrations`, { token: owner.token, body: { name: 'fleet' } })).body.integration.key;
    const next = (Math.floor(clock.now().getTime() / 60_000) + 1) * 60_000;
    // An instance 2 s into the next minute starts it; one whose clock says 3 s before it pings next.
    freezeClock(new Date(next + 2_000));
    expect((await ping(skewedKey)).status).toBe(202);
    freezeClock(new Date(next - 3_000));
    expect((await ping(skewedKey)).status).toBe(202);
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.integrationKey(integrationKeyHash(skewedKey)), ConsistentRead: true }));
    expect(Item).toMatchObject({ hb_rate_window: next / 60_000, hb_rate_count: 2 });
  });
});

describe('two sweeps at once (an overlapping or retried invocation)', () => {
  it('open one incident for a miss and leave it open: the second finds the miss recorded, not a ping', async () => {
    freezeClock();
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Twice swept', heartbeat: { interval_seconds: 60 } } })).body.monitor;
    advanceClock(61_000);
    await Promise.all([sweepHeartbeats(), sweepHeartbeats(), sweepHeartbeats()]);
    // The runtime's own periodic sweep may be a fourth.
    const open = await eventually(() => openOf(monitor.id), (items) => items.length > 0);
    expect(open).toHaveLength(1);
    await settle(api);
    expect(await openOf(monitor.id)).toHaveLength(1);
    const entries = (await api.request('GET', `/api/incidents/${open[0].id}/updates`, { token: owner.token })).body.updates as any[];
    expect(entries.map((entry) => entry.kind)).toEqual(['created']);
  });
});

describe('a heartbeat turned off, or its monitor deleted, while its missed-heartbeat incident is open', () => {
  /**
   * Each test's own monitor with a heartbeat that has missed it, and its open incident. The four are made
   * together (their heartbeats armed 61 s in the past, so that one sweep now opens all four) rather
   * than one clock move and sweep (16 Queries, and the runtime's own) per test.
   */
  const made: Record<string, { monitorId: string; incidentId: string }> = {};
  beforeAll(async () => {
    freezeClock(new Date(clock.now().getTime() - 61_000));
    const monitors: Record<string, string> = {};
    for (const name of ['Nightly export', 'Hourly sync', 'Weekly report', 'Backup check']) {
      monitors[name] = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name, heartbeat: { interval_seconds: 60 } } })).body.monitor.id;
    }
    resetClock();
    await sweepHeartbeats();
    for (const [name, monitorId] of Object.entries(monitors)) {
      // The runtime's own periodic sweep may have claimed the miss first and still be opening it.
      const [open] = await eventually(() => openOf(monitorId), (items) => items.length > 0);
      expect(open).toMatchObject({ title: `${name} missed its heartbeat` });
      made[name] = { monitorId, incidentId: open.id };
    }
  });
  const missed = (name: string) => made[name]!;
  const timeline = async (incidentId: string) => (await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates as any[];
  const statusOf = async (incidentId: string) => (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident.status;

  it('PUT heartbeat null resolves it in the same write, with a note by whoever turned it off', async () => {
    freezeClock();
    const { monitorId, incidentId } = missed('Nightly export');
    const off = await api.request('PUT', `/api/monitors/${monitorId}`, { token: owner.token, body: { heartbeat: null } });
    expect(off.status).toBe(200);
    expect(off.body.monitor.heartbeat).toBeNull();
    expect(await statusOf(incidentId)).toBe('RESOLVED');
    const entries = await timeline(incidentId);
    expect(entries.map((entry) => entry.kind)).toEqual(['created', 'note', 'resolved']);
    expect(entries[1]).toMatchObject({ message: HEARTBEAT_GONE_NOTES.off, user_id: owner.id, user_name: 'Alice', status: 'RESOLVED' });
    expect(entries[2]).toMatchObject({ user_id: owner.id, details: { previous_status: 'INVESTIGATING', by: 'user' } });
    // Its claim went with it: armed again and missed again, a new incident opens.
    expect((await api.request('PUT', `/api/monitors/${monitorId}`, { token: owner.token, body: { heartbeat: { interval_seconds: 60 } } })).status).toBe(200);
    advanceClock(61_000);
    await sweepHeartbeats();
    const again = await eventually(() => openOf(monitorId), (items) => items.length > 0);
    expect(again).toHaveLength(1);
    expect(again[0].id).not.toBe(incidentId);
  });

  it('new settings (not null) keep it open for the next ping', async () => {
    const { monitorId, incidentId } = missed('Hourly sync');
    expect((await api.request('PUT', `/api/monitors/${monitorId}`, { token: owner.token, body: { heartbeat: { interval_seconds: 120 } } })).status).toBe(200);
    expect(await statusOf(incidentId)).toBe('INVESTIGATING');
  });

  it('deleting the monitor resolves it with its own note', async () => {
    const { monitorId, incidentId } = missed('Weekly report');
    expect((await api.request('DELETE', `/api/monitors/${monitorId}`, { token: owner.token })).status).toBe(200);
    expect(await statusOf(incidentId)).toBe('RESOLVED');
    const entries = await timeline(incidentId);
    expect(entries.map((entry) => entry.kind)).toEqual(['created', 'note', 'resolved']);
    expect(entries[1]).toMatchObject({ message: HEARTBEAT_GONE_NOTES.monitor_deleted, user_name: 'Alice' });
  });

  it('is one conditional write: a person resolving it meanwhile wins, and the heartbeat still goes', async () => {
    const { monitorId, incidentId } = missed('Backup check');
    // The PUT has read the incident and holds its transaction; a person resolves the incident first.
    const hold = holdCalls('monitors-update', 'TransactWriteItemsCommand');
    const turningOff = api.request('PUT', `/api/monitors/${monitorId}`, { token: owner.token, body: { heartbeat: null } });
    await hold.arrived();
    expect((await api.request('DELETE', `/api/incidents/${incidentId}`, { token: owner.token })).status).toBe(200);
    hold.release();
    const off = await turningOff;
    expect(off.status).toBe(200);
    expect(off.body.monitor.heartbeat).toBeNull();
    // One resolution, the person's; no note (the write found the incident changed, read it again, and left it).
    expect((await timeline(incidentId)).map((entry) => entry.kind)).toEqual(['created', 'resolved']);
  });
});

describe('a mass miss (an outage): the sweep within its time (issue 46 §4)', () => {
  it('works through more misses than one run has time for, run after run, each opened once', async () => {
    freezeClock(new Date(clock.now().getTime() - 61_000));
    const monitorIds = await Promise.all(
      Array.from({ length: 10 }, async (_, index) => (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: `Outage job ${index}`, heartbeat: { interval_seconds: 60 } } })).body.monitor.id as string),
    );
    resetClock();
    // A budget of 5 looks at the time (one before each miss): at most 5 misses a run, then the run stops with more due.
    const budget = () => {
      let left = 5;
      return { remainingMs: () => (left-- > 0 ? SWEEP_RESERVE_MS + 60_000 : SWEEP_RESERVE_MS - 1) };
    };
    const runs: { handled: number; more: boolean }[] = [];
    for (let run = 0; run < 40; run++) {
      const result = await sweepHeartbeats(budget());
      runs.push(result);
      if (!result.more) break;
    }
    expect(runs.at(-1)!.more).toBe(false);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const result of runs) expect(result.handled).toBeLessThanOrEqual(5);
    // The runtime's own periodic sweep may have claimed a miss first and still be opening it: each opens one.
    for (const monitorId of monitorIds) {
      const open = await eventually(() => openOf(monitorId), (items) => items.length > 0);
      expect(open, monitorId).toHaveLength(1);
    }
    await settle(api);
    for (const monitorId of monitorIds) {
      const all = (await api.request('GET', `/api/incidents?monitor_id=${monitorId}`, { token: owner.token })).body.incidents as any[];
      expect(all, monitorId).toHaveLength(1);
    }
  });
});
