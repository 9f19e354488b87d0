/**
 * End to end, by phone (issue 43, "Tests"): a real Prometheus Alertmanager (Debian's
 * `prometheus-alertmanager`, test/support/alertmanager.ts) sends a firing alert to the runtime's
 * `/integrations/alertmanager`; the monitor's policy pages its schedule at once, and whoever is on call
 * is reached by their notification rule: an SMS to their verified number (added and verified through
 * the API, the code read from the local phone inbox). The SMS lands in the inbox with its reply code;
 * the person texts back `<n>a` (`POST /local/phones/reply`, AWS's two-way payload to `sms-inbound`):
 * the incident is acknowledged by them with method sms, and the policy's second step is never paged
 * (the clock moved past its delay: nothing more is sent, the step is cancelled, the timeline names no
 * second page). The page is a `notification` timeline entry (sms, masked number, the person), sent,
 * then delivered by its receipt.
 *
 * The service's clock is moved (`advance`) rather than waited for; Alertmanager runs on real time.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock, resetClock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { Alertmanager, alertmanagerInstalled } from '../support/alertmanager.js';
import { advance, Api, eventually, mailTo, settle, uniqueEmail, type User } from '../support/api.js';
import { addContactMethod, phoneMessages, replaceRules } from '../support/contacts.js';
import { within } from '../support/deadlines.js';
import { seedTeam } from '../support/teams.js';

const MINUTE = 60_000;
const LOCAL_NUMBER = '+18005550100';

let api: Api;
let owner: User;
let ana: User;
let ben: User;
let teamId: string;

beforeAll(async () => {
  api = await Api.start();
  [owner, ana, ben] = (await Promise.all(['owner', 'ana', 'ben'].map((name) => api.signUp(uniqueEmail(name), name)))) as [User, User, User];
  // A schedule and a policy name only people who share a team with their owner (issue 41, 5).
  // The monitor is the team's, so those it pages may act on its incidents (a reply acts as its sender).
  teamId = (await seedTeam(owner, [[ana, 'MEMBER'], [ben, 'MEMBER']], 'On call')).team.id;
});
afterAll(() => api.close());
afterEach(() => resetClock());

// Without the binary the test cannot run here; CI installs it (.ci/run) and sets CI, so there it never skips.
describe.skipIf(!alertmanagerInstalled() && !process.env.CI)('an Alertmanager alert to the on-call phone and back', () => {
  let alertmanager: Alertmanager;
  let monitorId: string;
  const anaPhone = `+1650${String(process.pid % 1000).padStart(3, '0')}4242`;
  const benPhone = `+1650${String(process.pid % 1000).padStart(3, '0')}4343`;

  beforeAll(async () => {
    // Ana and Ben (step 2) are paged by SMS only: their rules replace the account e-mail's defaults.
    const anaSms = await addContactMethod(api, ana, 'sms', anaPhone);
    await replaceRules(api, ana, [{ contact_method_id: anaSms, delay_minutes: 0, urgency: 'high' }]);
    const benSms = await addContactMethod(api, ben, 'sms', benPhone);
    await replaceRules(api, ben, [{ contact_method_id: benSms, delay_minutes: 0, urgency: 'high' }]);

    // Ana is on call now (an hourly rotation from this hour); step 2 (10 minutes on) pages Ben.
    const start = `${clock.nowIso().slice(0, 13)}:00`;
    const schedule = await api.request('POST', '/api/schedules', {
      token: owner.token,
      body: { name: 'Primary', time_zone: 'UTC', layers: [{ name: 'Hourly', start, rotation: { type: 'hourly', length: 1 }, members: [ana.id] }] },
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: {
        name: 'Primary then Ben',
        steps: [
          { delay_minutes: 0, targets: [{ type: 'schedule', id: schedule.body.schedule.id }] },
          { delay_minutes: 10, targets: [{ type: 'user', id: ben.id }] },
        ],
      },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const monitor = await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Storage', escalation_policy_id: policy.body.escalation_policy.id, team_id: teamId } });
    expect(monitor.status, JSON.stringify(monitor.body)).toBe(201);
    monitorId = monitor.body.monitor.id;
    const integration = await api.request('POST', `/api/monitors/${monitorId}/integrations`, { token: owner.token, body: { name: 'Alertmanager' } });
    expect(integration.status).toBe(201);
    alertmanager = await Alertmanager.start({ webhook: { url: `${api.url}/integrations/alertmanager`, bearer: integration.body.integration.key } });
  }, within(90_000));
  afterAll(() => alertmanager?.stop());

  it('pages the person on call by SMS; their reply Na acknowledges as them with method sms, and step 2 is never paged', { timeout: within(120_000) }, async () => {
    await alertmanager.postAlerts([
      {
        labels: { alertname: 'DiskAlmostFull', instance: 'db1:9100', severity: 'critical' },
        annotations: { summary: 'Disk almost full on db1', description: 'Less than 5% of / is free.' },
        startsAt: new Date(Date.now() - MINUTE).toISOString(),
      },
    ]);
    const [opened] = await eventually(
      async () => (await api.request('GET', `/api/incidents?monitor_id=${monitorId}`, { token: owner.token })).body.incidents as { id: string; urgency: string }[],
      (list) => list.length > 0,
      60_000,
    );
    const incidentId = opened!.id;
    expect(opened).toMatchObject({ title: 'Disk almost full on db1', severity: 'CRITICAL', urgency: 'high', status: 'INVESTIGATING' });

    // The SMS: its reply code, the severity, the alert's summary, how to answer, and the acknowledge link.
    const isPage = (message: { channel: string; body: string }) => message.channel === 'sms' && / to acknowledge, /.test(message.body);
    const page = await eventually(
      async () => {
        await settle(api);
        return (await phoneMessages(api, anaPhone)).filter(isPage);
      },
      (found) => found.length > 0,
      60_000,
    ).then((found) => found[0]!);
    expect(page).toMatchObject({ channel: 'sms', to: anaPhone, from: LOCAL_NUMBER });
    const [, code] = /^\[(\d+)\] CRITICAL Disk almost full on db1 - reply \1a to acknowledge, \1r to resolve https?:\/\/\S+\/acknowledge\/[\w-]+$/.exec(page.body) ?? [];
    expect(code, page.body).toBeDefined();
    // A person's page is never an e-mail when a rule says SMS.
    expect(await mailTo(api, ana.email)).toEqual([]);

    // The timeline's notification: the channel, the masked number, the person; sent, then delivered by its receipt.
    const notifications = async () =>
      ((await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates as { kind: string; details: Record<string, unknown> }[])
        .filter((entry) => entry.kind === 'notification')
        .map((entry) => entry.details);
    const expected = { channel: 'sms', address: `+1•••${anaPhone.slice(-4)}`, user_id: ana.id, user_name: ana.name, step_order: 1, message_id: page.id };
    const [entry] = await notifications();
    expect(entry).toMatchObject(expected);
    expect(['sent', 'delivered']).toContain(entry!.status);
    await api.runtime.idle();
    expect(await eventually(notifications, (entries) => entries[0]?.status === 'delivered')).toEqual([{ ...expected, status: 'delivered' }]);

    // Ana texts back `<n>a`: acknowledged by her, by SMS, and told so.
    const replied = await api.request('POST', '/local/phones/reply', { body: { from: anaPhone, body: `${code}a` } });
    expect(replied.status, JSON.stringify(replied.body)).toBe(202);
    expect((await phoneMessages(api, anaPhone))[0]).toMatchObject({ channel: 'sms', from: LOCAL_NUMBER, body: `[${code}] acknowledged.` });
    const incident = (await api.request('GET', `/api/incidents/${incidentId}`, { token: owner.token })).body.incident;
    expect(incident).toMatchObject({ acknowledged: true, status: 'INVESTIGATING' });
    expect(incident.acknowledgement).toMatchObject({ user_id: ana.id, user_name: ana.name, method: 'sms' });

    // Past step 2's delay: Ben is never paged, the step is cancelled, the timeline tells of one page only.
    await advance(api, 10 * MINUTE);
    await advance(api, MINUTE);
    expect(await phoneMessages(api, benPhone)).toEqual(
      // (Only his verification code.)
      [expect.objectContaining({ body: expect.stringMatching(/verification code/i) })],
    );
    expect(await mailTo(api, ben.email)).toEqual([]);
    const step2 = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.escalationStep(incidentId, 2), ConsistentRead: true }))).Item;
    expect(step2).toMatchObject({ cancelled_at: expect.any(String) });
    expect(step2?.sent_at).toBeUndefined();
    const updates = (await api.request('GET', `/api/incidents/${incidentId}/updates`, { token: owner.token })).body.updates as { kind: string; details: { step_order?: number } }[];
    expect(updates.filter((update) => update.kind === 'escalation_paged').map((update) => update.details.step_order)).toEqual([1]);
    expect((await notifications()).map((details) => details.user_id)).toEqual([ana.id]);
    expect((await phoneMessages(api, anaPhone)).filter(isPage)).toHaveLength(1);
  });
});
