/**
 * Shift notices (issue 45 §3): a person whose shift starts is told so through their low-urgency
 * notification rules, at its start, once per shift (the sweep run twice, and by the runtime's own
 * periodic rule meanwhile), a shift that begins with an override included; nobody without a low-urgency
 * rule; nothing for a shift that had already started when an edit moved it; once per shift across both
 * of Europe/Berlin's DST changes, at the local handoff time. The clock is frozen and moved; the texts are
 * read in the local mailbox and phone inbox.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allMailTo, Api, eventually, uniqueEmail, type User } from '../support/api.js';
import { addContactMethod, accountEmailMethod, phoneMessages, replaceRules } from '../support/contacts.js';
import { seedTeam } from '../support/teams.js';
import { freezeClock, resetClock } from '../../shared/platform/clock.js';
import { sweepShiftNotices } from '../../shared/notifications/shift-notices.js';
import { SHIFT_NOTICES_TIMEOUT_SECONDS } from '../../shared/system.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());
afterEach(() => resetClock());

const ON_CALL = 'You are on call for ';
let numbers = 0;
const phone = () => `+1652${String(process.pid % 1000).padStart(3, '0')}${String(3000 + numbers++).slice(-4)}`;

/** A run of the sweep (waiting, as Lambda would, for a notice the runtime's own run is sending). */
const sweep = () => sweepShiftNotices({ remainingMs: () => 60_000, leaseMs: SHIFT_NOTICES_TIMEOUT_SECONDS * 1000 });
const at = (iso: string) => freezeClock(new Date(iso));

const mailNotices = async (user: User) => (await allMailTo(api, user.email)).filter((mail) => mail.subject.startsWith(ON_CALL)).map((mail) => mail.subject);
const smsNotices = async (number: string) => (await phoneMessages(api, number)).filter((message) => message.body.startsWith(ON_CALL)).map((message) => message.body);

async function people(count: number) {
  return Promise.all(Array.from({ length: count }, (_, index) => api.signUp(uniqueEmail(`shift-${index}`), `Person ${index}`)));
}

/** A team schedule in Europe/Berlin with one layer handing off at 09:00. */
async function createSchedule(owner: User, members: User[], layer: { start: string; type: 'daily' | 'weekly' }, name = 'Platform', others: User[] = []) {
  const team = await seedTeam(owner, [...members, ...others].filter((member) => member.id !== owner.id).map((member) => [member, 'MEMBER'] as const));
  const created = await api.request('POST', '/api/schedules', {
    token: owner.token,
    body: {
      name,
      time_zone: 'Europe/Berlin',
      team_id: team.team.id,
      layers: [{ name: 'Primary', start: layer.start, rotation: { type: layer.type, length: 1 }, handoff_time: '09:00', members: members.map((member) => member.id) }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.schedule as { id: string; layers: unknown[] };
}

describe('shift notices', () => {
  it('reach a person at the start of their shift, once, through their low-urgency rules only, in the schedule\'s zone', async () => {
    const [ana, ben] = await people(2);
    const bensPhone = phone();
    const sms = await addContactMethod(api, ben!, 'sms', bensPhone);
    // Ben: SMS at low urgency, his account e-mail at high urgency only.
    await replaceRules(api, ben!, [
      { contact_method_id: sms, delay_minutes: 0, urgency: 'low' },
      { contact_method_id: await accountEmailMethod(api, ben!), delay_minutes: 0, urgency: 'high' },
    ]);
    // Mon 2027-03-08 08:50 in Berlin (CET): Ana's week ends at 09:00, Ben's begins.
    at('2027-03-08T07:50:00Z');
    const schedule = await createSchedule(ana!, [ana!, ben!], { start: '2027-03-01T09:00', type: 'weekly' });
    await sweep();
    at('2027-03-08T07:59:30Z');
    await sweep();
    expect(await smsNotices(bensPhone)).toEqual([]);

    at('2027-03-08T08:00:30Z');
    await sweep();
    await sweep();
    const sent = await eventually(() => smsNotices(bensPhone), (bodies) => bodies.length > 0);
    expect(sent).toEqual(['You are on call for Platform from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)']);
    at('2027-03-08T08:05:00Z');
    await sweep();
    expect(await smsNotices(bensPhone)).toHaveLength(1);
    // A run that tells the same window again (as one whose advance was lost after its sends) sends nothing twice.
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.scheduleShiftNotices(schedule.id), UpdateExpression: 'SET #cursor = :before, hb_deadline = :due', ExpressionAttributeNames: { '#cursor': 'cursor' }, ExpressionAttributeValues: { ':before': '2027-03-08T07:59:30.000Z', ':due': 0 } }),
    );
    await sweep();
    expect(await smsNotices(bensPhone)).toHaveLength(1);
    expect(await mailNotices(ben!)).toEqual([]);

    // A week on, Ana's turn: her account's default low-urgency rule e-mails her; Ben is told nothing more.
    at('2027-03-15T08:00:30Z');
    await sweep();
    await sweep();
    expect(await eventually(() => mailNotices(ana!), (subjects) => subjects.length > 0)).toEqual([
      'You are on call for Platform from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)',
    ]);
    expect(await smsNotices(bensPhone)).toHaveLength(1);
  });

  it('reach the person a shift begins with by an override, and the one it hands back to', async () => {
    const [owner, cleo] = await people(2);
    at('2027-03-16T07:00:00Z');
    const schedule = await createSchedule(owner!, [owner!], { start: '2027-03-01T09:00', type: 'weekly' }, 'Payments', [cleo!]);
    await sweep();
    // Tue 10:00–14:30 Berlin: Cleo covers.
    const override = await api.request('POST', `/api/schedules/${schedule.id}/overrides`, {
      token: owner!.token,
      body: { user_id: cleo!.id, start: '2027-03-16T09:00:00Z', end: '2027-03-16T13:30:00Z' },
    });
    expect(override.status, JSON.stringify(override.body)).toBe(201);
    at('2027-03-16T08:59:00Z');
    await sweep();
    expect(await mailNotices(cleo!)).toEqual([]);
    at('2027-03-16T09:00:30Z');
    await sweep();
    await sweep();
    expect(await eventually(() => mailNotices(cleo!), (subjects) => subjects.length > 0)).toEqual(['You are on call for Payments from Tue 10:00 until 14:30 (Europe/Berlin)']);
    at('2027-03-16T13:31:00Z');
    await sweep();
    // A layer of one person hands off to no one: no end within the look-ahead.
    expect(await eventually(() => mailNotices(owner!), (subjects) => subjects.length > 0)).toEqual([
      'You are on call for Payments from Tue 14:30 (Europe/Berlin), with no handoff in the next 30 days',
    ]);
    expect(await mailNotices(cleo!)).toHaveLength(1);
  });

  it('reach nobody without a low-urgency rule', async () => {
    const [dana, eli] = await people(2);
    await replaceRules(api, eli!, [{ contact_method_id: await accountEmailMethod(api, eli!), delay_minutes: 0, urgency: 'high' }]);
    at('2027-03-17T07:00:00Z');
    await createSchedule(dana!, [dana!, eli!], { start: '2027-03-17T09:00', type: 'daily' });
    await sweep();
    // Wed 09:00 Dana's day starts, Thu 09:00 Eli's.
    at('2027-03-17T08:00:30Z');
    await sweep();
    expect(await eventually(() => mailNotices(dana!), (subjects) => subjects.length > 0)).toEqual(['You are on call for Platform from Wed 09:00 until Thu 09:00 (Europe/Berlin)']);
    at('2027-03-18T08:00:30Z');
    await sweep();
    await sweep();
    expect(await allMailTo(api, eli!.email)).toEqual([]);
  });

  it('tell nothing of a shift that had already started when an edit moved it; the next one is told', async () => {
    const [finn, gia] = await people(2);
    at('2027-03-19T07:00:00Z');
    const schedule = await createSchedule(finn!, [finn!, gia!], { start: '2027-03-19T09:00', type: 'daily' });
    await sweep();
    at('2027-03-19T08:00:30Z');
    await sweep();
    expect(await eventually(() => mailNotices(finn!), (subjects) => subjects.length > 0)).toHaveLength(1);
    // Fri 10:00: the order swapped, so Gia's shift "began" at 09:00.
    at('2027-03-19T09:00:00Z');
    const layers = [{ ...(schedule.layers[0] as object), members: [gia!.id, finn!.id] }];
    const edited = await api.request('PUT', `/api/schedules/${schedule.id}`, { token: finn!.token, body: { layers } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    at('2027-03-19T09:01:00Z');
    await sweep();
    await sweep();
    expect(await mailNotices(gia!)).toEqual([]);
    // Sat 09:00: Finn's turn in the new order.
    at('2027-03-20T08:00:30Z');
    await sweep();
    expect(await eventually(() => mailNotices(finn!), (subjects) => subjects.length > 1)).toEqual([
      'You are on call for Platform from Fri 09:00 until Sat 09:00 (Europe/Berlin)',
      'You are on call for Platform from Sat 09:00 until Sun 09:00 (Europe/Berlin)',
    ]);
    expect(await mailNotices(gia!)).toEqual([]);
  });

  // Europe/Berlin's changes: the last Sundays of March (02:00 → 03:00) and October (03:00 → 02:00) 2027.
  it.each([
    { change: 'spring forward', saturday: '2027-03-27T08:00:00Z', sunday: '2027-03-28T07:00:00Z', monday: '2027-03-29T07:00:00Z', naive: '2027-03-28T08:00:00Z' },
    { change: 'fall back', saturday: '2027-10-30T07:00:00Z', sunday: '2027-10-31T08:00:00Z', monday: '2027-11-01T08:00:00Z', naive: '2027-10-31T07:00:00Z' },
  ])('once per shift across the $change, at 09:00 local time', async ({ saturday, sunday, monday, naive }) => {
    const [ivy, jon] = await people(2);
    const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    at(plus(saturday, -3_600_000));
    const saturdayDate = saturday.slice(0, 10);
    await createSchedule(ivy!, [jon!, ivy!], { start: `${saturdayDate}T09:00`, type: 'daily' });
    await sweep();
    at(plus(saturday, 30_000));
    await sweep();
    expect(await eventually(() => mailNotices(jon!), (subjects) => subjects.length > 0)).toEqual(['You are on call for Platform from Sat 09:00 until Sun 09:00 (Europe/Berlin)']);
    // Sunday's handoff is at 09:00 in the new offset: not a minute before, once.
    const beforeSunday = Date.parse(sunday) < Date.parse(naive) ? plus(sunday, -30_000) : plus(naive, 30_000);
    at(beforeSunday);
    await sweep();
    expect(await mailNotices(ivy!)).toEqual([]);
    at(plus(sunday, 30_000));
    await sweep();
    expect(await eventually(() => mailNotices(ivy!), (subjects) => subjects.length > 0)).toEqual(['You are on call for Platform from Sun 09:00 until Mon 09:00 (Europe/Berlin)']);
    for (const step of [plus(sunday, 3_600_000), plus(monday, 30_000), plus(monday, 60_000)]) {
      at(step);
      await sweep();
    }
    expect(await eventually(() => mailNotices(jon!), (subjects) => subjects.length > 1)).toEqual([
      'You are on call for Platform from Sat 09:00 until Sun 09:00 (Europe/Berlin)',
      'You are on call for Platform from Mon 09:00 until Tue 09:00 (Europe/Berlin)',
    ]);
    expect(await mailNotices(ivy!)).toHaveLength(1);
  });
});
