/**
 * Incident reports (issue 45 §4): figures against hand-computed ones on seeded incidents (range bounds,
 * severities, acknowledge and resolve times, pages outside 09–18 in a schedule's zone or UTC), the CSV
 * form read back by a CSV parser (formulas neutralised, quotes, commas and newlines in titles), the
 * validation texts, rights (only what the caller may read; a team's 404 / 403), and the figures the
 * write paths keep on the incident: the first acknowledgement, and the pages of a step paged as the
 * incident opens and of one paged at its schedule (a schedule target's person in the schedule's zone).
 */
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { incidentAttributes } from '../../shared/incidents/repository.js';
import type { Incident } from '../../shared/incidents/model.js';
import { openedIncident } from '../../infra/testing/seed.js';
import { advance, Api, settle, uniqueEmail, type User } from '../support/api.js';
import { createMonitor, reportDown, seedTeam } from '../support/teams.js';

let api: Api;
let owner: User;
let ana: User;
let ben: User;
let stranger: User;

beforeAll(async () => {
  api = await Api.start();
  [owner, ana, ben, stranger] = (await Promise.all(
    [['owner', 'Olga Owner'], ['ana', 'Ana'], ['ben', 'Ben'], ['stranger', 'Sam Stranger']].map(([who, name]) => api.signUp(uniqueEmail(who!), name!)),
  )) as [User, User, User, User];
});
afterAll(() => api.close());
afterEach(() => resetClock());

const SECOND = 1000;
const at = (iso: string, plusSeconds = 0) => new Date(Date.parse(iso) + plusSeconds * SECOND).toISOString();

/** Incidents written as the service stores them (every index key), with what the write paths keep on them. */
async function seed(monitor: { id: string; name: string }, by: User, specs: { at: string; fields: Partial<Incident> }[]) {
  const incidents = specs.map((spec) => openedIncident({ id: monitor.id, name: monitor.name, owner_id: by.id, team_id: null }, spec.at, spec.fields));
  await batchWrite(incidents.map((incident) => ({ PutRequest: { Item: incidentAttributes(incident) } })));
  return incidents;
}

const acknowledgedBy = (person: User, when: string) => ({ first_acknowledged_at: when, first_acknowledged_by: person.id, first_acknowledged_by_name: person.name, acknowledged: true });
const resolvedAt = (when: string) => ({ status: 'RESOLVED' as const, resolved_at: when, last_resolved_at: when });
const pageTo = (person: User | undefined, when: string, time_zone?: string) => ({
  at: when,
  ...(person ? { user_id: person.id, user_name: person.name } : {}),
  ...(time_zone ? { time_zone } : {}),
});

const report = (as: User, query: string, accept?: string) =>
  api.request('GET', `/api/reports/incidents?${query}`, { token: as.token, headers: accept ? { accept } : undefined });

const MAY = 'from=2026-05-01T00:00:00Z&to=2026-06-01T00:00:00Z';

describe('GET /api/reports/incidents', () => {
  let alpha: { id: string; name: string };
  let beta: { id: string; name: string };
  const seeded: Record<string, Incident> = {};

  beforeAll(async () => {
    alpha = await createMonitor(api, owner, { name: 'Alpha API' });
    beta = await createMonitor(api, owner, { name: 'Beta DB' });
    const theirs = await createMonitor(api, stranger, { name: "Sam's" });
    const [i1, i2, i5, i6] = await seed(alpha, owner, [
      {
        at: '2026-05-10T00:00:00.000Z',
        fields: {
          title: '=HYPERLINK("http://evil.example","click")',
          severity: 'CRITICAL',
          ...acknowledgedBy(ana, at('2026-05-10T00:00:00.000Z', 60)),
          ...resolvedAt(at('2026-05-10T00:00:00.000Z', 600)),
          // 09:00 in Tokyo (inside), 00:00 UTC (outside).
          pages: [pageTo(ana, '2026-05-10T00:00:00.000Z', 'Asia/Tokyo'), pageTo(ben, '2026-05-10T00:00:00.000Z')],
        },
      },
      {
        at: '2026-05-10T12:00:00.000Z',
        fields: {
          title: 'Quote "this", a comma\nand a newline',
          severity: 'HIGH',
          ...acknowledgedBy(ben, at('2026-05-10T12:00:00.000Z', 120)),
          ...resolvedAt(at('2026-05-10T12:00:00.000Z', 300)),
          // 12:00 UTC (inside); 08:00 in New York (outside); a bare address, 12:00 UTC (inside).
          pages: [pageTo(ben, '2026-05-10T12:00:00.000Z'), pageTo(ana, '2026-05-10T12:00:00.000Z', 'America/New_York'), pageTo(undefined, '2026-05-10T12:00:00.000Z')],
        },
      },
      // `to` is exclusive, `from` inclusive.
      { at: '2026-06-01T00:00:00.000Z', fields: { title: 'June', severity: 'CRITICAL', pages: [pageTo(ana, '2026-06-01T00:00:00.000Z')] } },
      { at: '2026-04-30T23:59:59.999Z', fields: { title: 'April', severity: 'CRITICAL', ...acknowledgedBy(ben, '2026-05-01T00:00:01.000Z') } },
    ]);
    // (Seeded urgencies stay as opened: `low`, a MEDIUM's, unless given.)
    const [i8, i3, i4] = await seed(beta, owner, [
      { at: '2026-05-01T00:00:00.000Z', fields: { title: '+plus', severity: 'MEDIUM', ...resolvedAt(at('2026-05-01T00:00:00.000Z', 1200)) } },
      {
        at: '2026-05-20T17:00:00.000Z',
        fields: {
          title: '@sum',
          severity: 'HIGH',
          status: 'IDENTIFIED',
          ...acknowledgedBy(ana, at('2026-05-20T17:00:00.000Z', 30)),
          // 19:00 in Berlin (outside), 17:00 UTC (inside).
          pages: [pageTo(ana, '2026-05-20T17:00:00.000Z', 'Europe/Berlin')],
        },
      },
      { at: '2026-05-31T23:59:59.999Z', fields: { title: '-5 errors', severity: 'LOW', urgency: 'high' } },
    ]);
    // Another account's incident in the range: not the owner's to read.
    await seed(theirs, stranger, [{ at: '2026-05-15T00:00:00.000Z', fields: { title: 'Not yours', pages: [pageTo(stranger, '2026-05-15T00:00:00.000Z')] } }]);
    Object.assign(seeded, { i1, i2, i3, i4, i5, i6, i8 });
  });

  it('answers the figures of the incidents the caller may read that opened in [from, to), as computed by hand', async () => {
    const response = await report(owner, MAY);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({
      report: {
        from: '2026-05-01T00:00:00.000Z',
        to: '2026-06-01T00:00:00.000Z',
        incidents: 5,
        acknowledged: 3,
        resolved: 3,
        by_severity: { CRITICAL: 1, HIGH: 2, MEDIUM: 1, LOW: 1 },
        // Acknowledged after 60, 120, 30 s; resolved after 600, 300, 1200 s.
        mean_seconds_to_acknowledge: 70,
        median_seconds_to_acknowledge: 60,
        mean_seconds_to_resolve: 700,
        median_seconds_to_resolve: 600,
        pages: 6,
        pages_outside_09_18: 3,
        by_monitor: [
          { monitor_id: beta.id, monitor_name: 'Beta DB', incidents: 3, mean_seconds_to_acknowledge: 30, mean_seconds_to_resolve: 1200 },
          { monitor_id: alpha.id, monitor_name: 'Alpha API', incidents: 2, mean_seconds_to_acknowledge: 90, mean_seconds_to_resolve: 450 },
        ],
        by_responder: [
          { user_id: ana.id, user_name: 'Ana', acknowledged: 2, paged: 3, paged_outside_09_18: 2 },
          { user_id: ben.id, user_name: 'Ben', acknowledged: 1, paged: 2, paged_outside_09_18: 1 },
        ],
      },
    });
  });

  it('narrows to one monitor, and answers nulls where nothing was measured', async () => {
    const alphaOnly = await report(owner, `${MAY}&monitor_id=${alpha.id}`);
    expect(alphaOnly.body.report).toMatchObject({ incidents: 2, pages: 5, pages_outside_09_18: 2, mean_seconds_to_acknowledge: 90, median_seconds_to_acknowledge: 90 });
    const quiet = await report(owner, 'from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z');
    expect(quiet.body.report).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-02-01T00:00:00.000Z',
      incidents: 0,
      acknowledged: 0,
      resolved: 0,
      by_severity: { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 },
      mean_seconds_to_acknowledge: null,
      median_seconds_to_acknowledge: null,
      mean_seconds_to_resolve: null,
      median_seconds_to_resolve: null,
      pages: 0,
      pages_outside_09_18: 0,
      by_monitor: [],
      by_responder: [],
    });
    // Another account's monitor: nothing of it is shown (as the incidents list).
    expect((await report(stranger, `${MAY}&monitor_id=${alpha.id}`)).body.report.incidents).toBe(0);
    expect((await report(stranger, MAY)).body.report).toMatchObject({ incidents: 1, pages: 1 });
  });

  it('answers one CSV row per incident, oldest first, that a CSV parser reads back with formulas neutralised', async () => {
    const response = await report(owner, MAY, 'text/csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const text = response.body as string;
    const rows: string[][] = parse(text);
    expect(rows[0]).toEqual([
      'id', 'monitor_id', 'monitor_name', 'title', 'severity', 'urgency', 'created_at', 'acknowledged_at', 'acknowledged_by', 'resolved_at', 'seconds_to_acknowledge', 'seconds_to_resolve', 'pages',
    ]);
    const { i1, i2, i3, i4, i8 } = seeded as Record<string, Incident>;
    expect(rows.slice(1)).toEqual([
      [i8!.id, beta.id, 'Beta DB', "'+plus", 'MEDIUM', 'low', '2026-05-01T00:00:00.000Z', '', '', '2026-05-01T00:20:00.000Z', '', '1200', '0'],
      [i1!.id, alpha.id, 'Alpha API', `'=HYPERLINK("http://evil.example","click")`, 'CRITICAL', 'low', '2026-05-10T00:00:00.000Z', '2026-05-10T00:01:00.000Z', 'Ana', '2026-05-10T00:10:00.000Z', '60', '600', '2'],
      [i2!.id, alpha.id, 'Alpha API', 'Quote "this", a comma\nand a newline', 'HIGH', 'low', '2026-05-10T12:00:00.000Z', '2026-05-10T12:02:00.000Z', 'Ben', '2026-05-10T12:05:00.000Z', '120', '300', '3'],
      [i3!.id, beta.id, 'Beta DB', "'@sum", 'HIGH', 'low', '2026-05-20T17:00:00.000Z', '2026-05-20T17:00:30.000Z', 'Ana', '', '30', '', '1'],
      [i4!.id, beta.id, 'Beta DB', "'-5 errors", 'LOW', 'high', '2026-05-31T23:59:59.999Z', '', '', '', '', '', '0'],
    ]);
    // RFC 4180: CRLF after every record, quotes doubled inside a quoted field.
    expect(text.startsWith('id,monitor_id,')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text).toContain('"Quote ""this"", a comma\nand a newline"');
    // JSON stays the default, and wins a tie.
    expect((await report(owner, MAY, 'application/json, text/csv')).headers.get('content-type')).toBe('application/json');
    expect((await report(owner, MAY, 'application/json;q=0.5, text/csv')).headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });

  it('refuses a bad range with the validation texts', async () => {
    const details = async (query: string) => {
      const response = await report(owner, query);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      return response.body.details;
    };
    expect(await details('to=2026-06-01T00:00:00Z')).toEqual([{ field: 'from', message: expect.any(String) }]);
    expect(await details('from=yesterday&to=2026-06-01T00:00:00Z')).toEqual([{ field: 'from', message: expect.any(String) }]);
    expect(await details('from=2026-06-01T00:00:00Z&to=2026-06-01T00:00:00Z')).toEqual([{ field: 'to', message: 'to must be after from' }]);
    expect(await details('from=2026-06-02T00:00:00Z&to=2026-06-01T00:00:00Z')).toEqual([{ field: 'to', message: 'to must be after from' }]);
    expect(await details('from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00.001Z')).toEqual([{ field: 'to', message: 'The range must not exceed 366 days' }]);
    expect(await details(`${MAY}&team_id=nope`)).toEqual([{ field: 'team_id', message: expect.any(String) }]);
    // 366 days exactly is a range.
    expect((await report(owner, 'from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).status).toBe(200);
  });
});

describe('reports through a team', () => {
  it("shows a team's incidents to its members only: 404 Team not found, 403 Not a team member", async () => {
    const { team } = await seedTeam(owner, [[ana, 'VIEWER']], 'Reporting');
    const shared = await createMonitor(api, owner, { name: 'Shared', team_id: team.id });
    const mine = await createMonitor(api, owner, { name: 'Mine' });
    await seed(mine, owner, [{ at: '2026-05-05T00:00:00.000Z', fields: { title: 'Mine alone' } }]);
    const [teamIncident] = [openedIncident({ id: shared.id, name: shared.name, owner_id: owner.id, team_id: team.id }, '2026-05-06T00:00:00.000Z', { title: 'Shared' })];
    await batchWrite([{ PutRequest: { Item: incidentAttributes(teamIncident!) } }]);
    const range = 'from=2026-05-05T00:00:00Z&to=2026-05-07T00:00:00Z';
    expect((await report(ana, range)).body.report.by_monitor).toEqual([expect.objectContaining({ monitor_id: shared.id, incidents: 1 })]);
    expect((await report(ana, `${range}&team_id=${team.id}`)).body.report.incidents).toBe(1);
    expect((await report(owner, range)).body.report.incidents).toBe(2);
    expect((await report(owner, `${range}&team_id=${team.id}`)).body.report.incidents).toBe(1);
    expect((await report(ana, `${range}&monitor_id=${shared.id}`)).body.report.incidents).toBe(1);
    expect((await report(ana, `${range}&monitor_id=${mine.id}`)).body.report.incidents).toBe(0);
    expect(await report(stranger, `${range}&team_id=${team.id}`)).toMatchObject({ status: 403, body: { error: 'Not a team member' } });
    expect(await report(stranger, `${range}&team_id=${crypto.randomUUID()}`)).toMatchObject({ status: 404, body: { error: 'Team not found' } });
    expect((await report(stranger, range)).body.report.by_monitor.map((row: { monitor_id: string }) => row.monitor_id)).not.toContain(shared.id);
  });
});

describe('what the write paths keep for reports', () => {
  it('keeps the first acknowledgement and every page: at opening, and at a schedule in its zone (a person named directly in UTC)', async () => {
    // A frozen instant on the half hour; the schedule's zone puts it inside 09–18 when UTC is outside, and outside when inside.
    freezeClock(new Date(Math.floor(clock.now().getTime() / 3_600_000) * 3_600_000 + 30 * 60_000));
    const hour = clock.now().getUTCHours();
    const utcOutside = hour < 9 || hour >= 18;
    const offset = utcOutside ? 12 - hour : 20 - hour;
    // IANA's Etc zones count the other way round: Etc/GMT-5 is UTC+5.
    const zone = offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
    const { team } = await seedTeam(owner, [[ana, 'MEMBER'], [ben, 'MEMBER']], 'Pagers');
    const layer = { name: 'Always', start: '2026-01-01T00:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [ana.id] };
    const schedule = await api.request('POST', '/api/schedules', { token: owner.token, body: { name: 'Zoned', time_zone: zone, team_id: team.id, layers: [layer] } });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const policy = async (targets: unknown[]) => {
      const response = await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'P', team_id: team.id, steps: [{ delay_minutes: 0, targets }] } });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.escalation_policy.id as string;
    };
    const atSchedule = await policy([{ type: 'schedule', id: schedule.body.schedule.id }, { type: 'user', id: ben.id }]);
    const atOpening = await policy([{ type: 'user', id: ana.id }]);
    const opened: string[] = [];
    for (const policyId of [atSchedule, atOpening]) {
      const monitor = await createMonitor(api, owner, { name: `Paged ${opened.length}`, failure_threshold: 1, escalation_policy_id: policyId, team_id: team.id });
      opened.push((await reportDown(monitor.id)).incident_id);
    }
    await settle(api);
    const start = clock.nowIso();
    await advance(api, 90 * SECOND);
    expect((await api.request('POST', `/api/incidents/${opened[0]}/acknowledge`, { token: ben.token })).status).toBe(200);
    await advance(api, 60 * SECOND);
    expect((await api.request('POST', `/api/incidents/${opened[0]}/acknowledge`, { token: ana.token })).status).toBe(400);
    expect((await api.request('DELETE', `/api/incidents/${opened[0]}`, { token: ana.token })).status).toBe(200);

    const range = `from=${encodeURIComponent(at(start, -60))}&to=${encodeURIComponent(at(start, 3600))}&team_id=${team.id}`;
    const { body } = await report(owner, range);
    expect(body.report).toMatchObject({
      incidents: 2,
      acknowledged: 1,
      resolved: 1,
      mean_seconds_to_acknowledge: 90,
      mean_seconds_to_resolve: 150,
      // ana at the schedule (its zone), ben named directly (UTC), ana again as the second incident opens (UTC).
      pages: 3,
    });
    // One of ana's two pages is outside whichever way UTC falls (UTC for all would make it 0 or 2).
    const anaOutside = 1;
    expect(body.report.by_responder).toEqual([
      { user_id: ana.id, user_name: 'Ana', acknowledged: 0, paged: 2, paged_outside_09_18: anaOutside },
      { user_id: ben.id, user_name: 'Ben', acknowledged: 1, paged: 1, paged_outside_09_18: utcOutside ? 1 : 0 },
    ]);
    expect(body.report.pages_outside_09_18).toBe(anaOutside + (utcOutside ? 1 : 0));
  });
});
