/**
 * A person's contact methods (issue 43 §2): the account e-mail from the start, new methods verified by a
 * 6-digit code sent through them (15 minutes, 5 wrong tries, one a minute), E.164 numbers, uniqueness and
 * the limit, another account's methods out of reach, and deleting a method with its rules.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { getByKeys, queryCollection } from '../../shared/platform/db/ops.js';
import { keys } from '../../shared/platform/db/keys.js';
import { env } from '../../shared/system.js';
import { allMailTo, Api, eventually, uniqueEmail, type User } from '../support/api.js';

let api: Api;
let user: User;
let other: User;
const SMS_NUMBER = '+18005550100';

beforeAll(async () => {
  api = await Api.start();
  user = await api.signUp(uniqueEmail('contacts'));
  other = await api.signUp(uniqueEmail('contacts-other'));
});
afterAll(() => api.close());
afterEach(() => {
  resetClock();
  delete process.env[env.smsOriginationIdentity];
});

const methods = (as: User = user) => api.request('GET', '/api/me/contact-methods', { token: as.token });
const create = (body: unknown, as: User = user) => api.request('POST', '/api/me/contact-methods', { token: as.token, body });
const verify = (id: string, code: string, as: User = user) => api.request('POST', `/api/me/contact-methods/${id}/verify`, { token: as.token, body: { code } });
const sendCode = (id: string, as: User = user) => api.request('POST', `/api/me/contact-methods/${id}/send-code`, { token: as.token });
const update = (id: string, body: unknown, as: User = user) => api.request('PUT', `/api/me/contact-methods/${id}`, { token: as.token, body });
const remove = (id: string, as: User = user) => api.request('DELETE', `/api/me/contact-methods/${id}`, { token: as.token });

/** The codes e-mailed to `address`, oldest first, once `count` have arrived. */
async function codesTo(address: string, count = 1): Promise<string[]> {
  const mails = await eventually(
    async () => (await allMailTo(api, address)).filter((mail) => mail.subject.startsWith('Your verification code is')),
    (found) => found.length >= count,
  );
  return mails.sort((a, b) => a.at - b.at).map((mail) => /(\d{6})$/.exec(mail.subject)![1]!);
}

/** The code of the latest verification event of a method (SMS and voice: read from the bus, as the notifier gets it). */
async function codeOfEvent(methodId: string): Promise<string> {
  const event = await eventually(
    async () => api.runtime.bus.published.filter((candidate) => candidate['detail-type'] === 'contact_method.verification_requested' && (candidate.detail as { contact_method: { id: string } }).contact_method.id === methodId),
    (found) => found.length > 0,
  );
  return (event.at(-1)!.detail as { code: string }).code;
}

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function newEmailMethod(as: User = user) {
  const address = uniqueEmail('method');
  const created = await create({ type: 'email', address }, as);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.contact_method.id as string, address };
}

describe('contact methods', () => {
  it('every account has its account e-mail, verified, from the start, and reading it writes nothing', async () => {
    const fresh = await api.signUp(uniqueEmail('fresh'));
    const listed = await methods(fresh);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      contact_methods: [{ id: expect.any(String), type: 'email', address: fresh.email, name: null, verified: true, disabled: false, created_at: expect.any(String) }],
    });
    // The same id every time, and nothing written for it.
    expect((await methods(fresh)).body.contact_methods[0].id).toBe(listed.body.contact_methods[0].id);
    expect((await getByKeys({ counter: keys.contactCount(fresh.id) })).counter).toBeUndefined();
  });

  it('adds an e-mail method unverified, e-mails it a 6-digit code (kept only as its SHA-256), and verifies it with that code', async () => {
    const address = uniqueEmail('second');
    const created = await create({ type: 'email', address, name: '  Personal  ' });
    expect(created.status).toBe(201);
    const method = created.body.contact_method;
    expect(method).toEqual({ id: expect.any(String), type: 'email', address, name: 'Personal', verified: false, disabled: false, created_at: expect.any(String) });
    const [code] = await codesTo(address);
    expect(code).toMatch(/^\d{6}$/);
    const [mail] = await allMailTo(api, address);
    expect(mail!.subject).toBe(`Your verification code is ${code}`);
    expect(mail!.body.text).toContain('The code works for 15 minutes');
    const stored = await getByKeys({ method: keys.contactMethod(user.id, method.id) });
    expect(stored.method).toMatchObject({ code_hash: expect.stringMatching(/^[0-9a-f]{64}$/), code_attempts: 0 });
    expect(JSON.stringify(stored.method)).not.toContain(code);

    expect(await verify(method.id, wrong(code!))).toMatchObject({ status: 400, body: { error: 'Invalid verification code' } });
    const verified = await verify(method.id, code!);
    expect(verified.status).toBe(200);
    expect(verified.body.contact_method).toEqual({ ...method, verified: true });
    expect(await verify(method.id, code!)).toMatchObject({ status: 409, body: { error: 'Contact method already verified' } });
    expect(await sendCode(method.id)).toMatchObject({ status: 409, body: { error: 'Contact method already verified' } });
    const listed = (await methods()).body.contact_methods;
    expect(listed.map((item: { address: string }) => item.address)).toEqual([user.email, address]);
    expect(listed[1]).toEqual({ ...method, verified: true });
    // The account e-mail is verified already.
    expect(await verify(listed[0].id, '123456')).toMatchObject({ status: 409, body: { error: 'Contact method already verified' } });
  });

  it('refuses a code past 15 minutes and after 5 wrong tries (the right one too), and a new code works', async () => {
    freezeClock();
    const late = await newEmailMethod();
    const [lateCode] = await codesTo(late.address);
    advanceClock(15 * 60_000 - 1_000);
    const early = await newEmailMethod();
    const [earlyCode] = await codesTo(early.address);
    advanceClock(1_000);
    expect(await verify(late.id, lateCode!)).toMatchObject({ status: 400, body: { error: 'Invalid verification code' } });
    // A fresh code (past the minute since the first) verifies it.
    expect((await sendCode(late.id)).status).toBe(202);
    const [, renewed] = await codesTo(late.address, 2);
    expect(renewed).toMatch(/^\d{6}$/);
    expect((await verify(late.id, renewed!)).body.contact_method.verified).toBe(true);

    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await verify(early.id, wrong(earlyCode!))).toMatchObject({ status: 400, body: { error: 'Invalid verification code' } });
    }
    expect(await verify(early.id, earlyCode!)).toMatchObject({ status: 400, body: { error: 'Invalid verification code' } });
    expect((await getByKeys({ method: keys.contactMethod(user.id, early.id) })).method).toMatchObject({ verified: false, code_attempts: 5 });
  });

  it('sends a new code at most once a minute per method (429 with Retry-After), and the old code stops working', async () => {
    freezeClock();
    const method = await newEmailMethod();
    const [first] = await codesTo(method.address);
    const early = await sendCode(method.id);
    expect(early.status).toBe(429);
    expect(early.body).toEqual({ message: 'A verification code was sent less than a minute ago' });
    expect(early.headers.get('retry-after')).toBe('60');
    advanceClock(45_000);
    expect((await sendCode(method.id)).headers.get('retry-after')).toBe('15');
    advanceClock(15_000);
    const sent = await sendCode(method.id);
    expect(sent).toMatchObject({ status: 202, body: { message: 'Verification code sent' } });
    expect((await sendCode(method.id)).status).toBe(429);
    const [, second] = await codesTo(method.address, 2);
    if (second !== first) expect(await verify(method.id, first!)).toMatchObject({ status: 400, body: { error: 'Invalid verification code' } });
    expect((await verify(method.id, second!)).status).toBe(200);
  });

  it('refuses the same type and address twice (409; e-mail case-insensitively, the account e-mail too)', async () => {
    const { address } = await newEmailMethod();
    expect(await create({ type: 'email', address: address.toUpperCase() })).toMatchObject({ status: 409, body: { error: 'Contact method already exists' } });
    const fresh = await api.signUp(uniqueEmail('twice'));
    expect(await create({ type: 'email', address: fresh.email }, fresh)).toMatchObject({ status: 409, body: { error: 'Contact method already exists' } });
    // The same address on another account is that account's business.
    expect((await create({ type: 'email', address }, fresh)).status).toBe(201);
  });

  it('holds at most 10 methods per account, the account e-mail included', async () => {
    const owner = await api.signUp(uniqueEmail('ten'));
    for (let made = 1; made < 10; made++) expect((await create({ type: 'email', address: uniqueEmail('m') }, owner)).status).toBe(201);
    expect(await create({ type: 'email', address: uniqueEmail('m') }, owner)).toMatchObject({ status: 400, body: { error: 'Contact method limit reached: at most 10 per account' } });
    const last = (await methods(owner)).body.contact_methods.at(-1);
    expect((await remove(last.id, owner)).status).toBe(200);
    expect((await create({ type: 'email', address: uniqueEmail('m') }, owner)).status).toBe(201);
  });

  it('settles races in the table: one of concurrent adds of an address, the limit under concurrent adds, one of concurrent new codes', async () => {
    const racer = await api.signUp(uniqueEmail('race'));
    const address = uniqueEmail('same');
    // The first write to the account's contacts (the defaults written by exactly one of them) and one address, five times at once.
    const same = await Promise.all(Array.from({ length: 5 }, () => create({ type: 'email', address }, racer)));
    expect(same.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (let made = 2; made < 8; made++) expect((await create({ type: 'email', address: uniqueEmail('fill') }, racer)).status).toBe(201);
    const crowd = await Promise.all(Array.from({ length: 5 }, () => create({ type: 'email', address: uniqueEmail('crowd') }, racer)));
    expect(crowd.map((response) => response.status).sort()).toEqual([201, 201, 400, 400, 400]);
    expect((await methods(racer)).body.contact_methods).toHaveLength(10);

    freezeClock();
    const id = same.find((response) => response.status === 201)!.body.contact_method.id;
    advanceClock(60_000);
    const sends = await Promise.all(Array.from({ length: 4 }, () => sendCode(id, racer)));
    expect(sends.map((response) => response.status).sort()).toEqual([202, 429, 429, 429]);
  });

  it("answers 404 for another account's method, whatever is asked", async () => {
    const mine = await newEmailMethod();
    const notFound = { status: 404, body: { error: 'Contact method not found' } };
    expect(await verify(mine.id, '123456', other)).toMatchObject(notFound);
    expect(await sendCode(mine.id, other)).toMatchObject(notFound);
    expect(await update(mine.id, { name: 'Mine now' }, other)).toMatchObject(notFound);
    expect(await remove(mine.id, other)).toMatchObject(notFound);
    expect(await verify('00000000-0000-4000-8000-000000000000', '123456')).toMatchObject(notFound);
    expect((await methods(other)).body.contact_methods.map((method: { id: string }) => method.id)).not.toContain(mine.id);
    expect((await getByKeys({ method: keys.contactMethod(user.id, mine.id) })).method).toMatchObject({ name: null, verified: false });
  });

  it('renames, disables and enables a method; the account e-mail may be disabled but never deleted', async () => {
    const method = await newEmailMethod();
    expect((await update(method.id, { name: 'Desk' })).body.contact_method).toMatchObject({ id: method.id, name: 'Desk', disabled: false });
    expect((await update(method.id, { disabled: true })).body.contact_method).toMatchObject({ name: 'Desk', disabled: true });
    expect((await update(method.id, { name: null, disabled: false })).body.contact_method).toMatchObject({ name: null, disabled: false });
    expect(await update(method.id, {})).toMatchObject({ status: 400, body: { error: 'No updates provided' } });
    const invalid = await update(method.id, { disabled: 'yes', verified: true });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('Validation errors');
    expect(invalid.body.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['disabled', 'verified']);

    const fresh = await api.signUp(uniqueEmail('own-email'));
    const own = (await methods(fresh)).body.contact_methods[0];
    expect(await remove(own.id, fresh)).toMatchObject({ status: 409, body: { error: "The account's e-mail address cannot be removed" } });
    const disabled = await update(own.id, { disabled: true }, fresh);
    expect(disabled.body.contact_method).toEqual({ ...own, disabled: true });
    expect((await methods(fresh)).body.contact_methods).toEqual([{ ...own, disabled: true }]);
    // Its rules were written with it (the defaults), once.
    expect((await api.request('GET', '/api/me/notification-rules', { token: fresh.token })).body.notification_rules).toHaveLength(2);
  });

  it('validates the type, the address and the name', async () => {
    process.env[env.smsOriginationIdentity] = SMS_NUMBER;
    const fieldsOf = async (body: unknown) => {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      return response.body.details.map((detail: { field: string }) => detail.field);
    };
    for (const address of ['4155550100', '+0123456789', '+1234567', '+1234567890123456', '+1415555O100', 'tel:+14155550100', '']) {
      expect(await fieldsOf({ type: 'sms', address }), address).toEqual(['address']);
      expect(await fieldsOf({ type: 'voice', address }), address).toEqual(['address']);
    }
    for (const address of ['not-an-address', 'a@b', '+14155550100']) expect(await fieldsOf({ type: 'email', address }), address).toEqual(['address']);
    expect(await fieldsOf({ type: 'pager', address: 'x' })).toEqual(['type']);
    expect(await fieldsOf({ type: 'email' })).toEqual(['address']);
    expect(await fieldsOf({ type: 'email', address: uniqueEmail(), name: '' })).toEqual(['name']);
    expect(await fieldsOf({ type: 'email', address: uniqueEmail(), verified: true })).toEqual(['verified']);
    // E.164 exactly as given: a number written with spaces or punctuation is refused, not repaired.
    expect(await fieldsOf({ type: 'voice', address: '+1 (415) 555-0199' })).toEqual(['address']);
    const exact = await create({ type: 'voice', address: '+14155550199' });
    expect(exact.status).toBe(201);
    expect(exact.body.contact_method).toMatchObject({ type: 'voice', address: '+14155550199', verified: false });
    expect(await create({ type: 'voice', address: '+14155550199' })).toMatchObject({ status: 409, body: { error: 'Contact method already exists' } });
    // The same number as SMS is another method.
    expect((await create({ type: 'sms', address: '+14155550199' })).status).toBe(201);
  });

  it('refuses SMS and voice where no origination identity is configured; e-mail keeps working', async () => {
    const owner = await api.signUp(uniqueEmail('no-sms'));
    for (const type of ['sms', 'voice']) {
      expect(await create({ type, address: '+14155550123' }, owner)).toMatchObject({ status: 400, body: { error: 'SMS and voice are not set up on this deployment' } });
    }
    expect((await create({ type: 'email', address: uniqueEmail('still') }, owner)).status).toBe(201);
  });

  it('sends an SMS method its code (the event), keeps a lookup by number, and deleting it removes the lookup and its rules', async () => {
    process.env[env.smsOriginationIdentity] = SMS_NUMBER;
    const owner = await api.signUp(uniqueEmail('sms'));
    const created = await create({ type: 'sms', address: '+14155550142', name: 'Phone' }, owner);
    expect(created.status).toBe(201);
    const method = created.body.contact_method;
    const code = await codeOfEvent(method.id);
    expect(code).toMatch(/^\d{6}$/);
    expect((await getByKeys({ lookup: keys.phoneContact('+14155550142', owner.id, method.id) })).lookup).toMatchObject({ user_id: owner.id, contact_method_id: method.id, method_type: 'sms' });
    // An unverified method may have rules: they fire once it is verified.
    const rule = await api.request('POST', '/api/me/notification-rules', { token: owner.token, body: { contact_method_id: method.id, delay_minutes: 2, urgency: 'high' } });
    expect(rule.status).toBe(201);
    expect((await verify(method.id, code, owner)).body.contact_method).toMatchObject({ id: method.id, verified: true });

    expect(await remove(method.id, owner)).toMatchObject({ status: 200, body: { message: 'Contact method deleted' } });
    expect(await getByKeys({ lookup: keys.phoneContact('+14155550142', owner.id, method.id), rule: keys.notificationRule(owner.id, rule.body.notification_rule.id) })).toEqual({ lookup: undefined, rule: undefined });
    const rules = (await api.request('GET', '/api/me/notification-rules', { token: owner.token })).body.notification_rules;
    expect(rules.map((item: { contact_method_id: string }) => item.contact_method_id)).not.toContain(method.id);
    expect(await remove(method.id, owner)).toMatchObject({ status: 404, body: { error: 'Contact method not found' } });
    // Nothing of it is left in the account's collection but the counter's count of the rest.
    const left = await queryCollection(keys.contactCount(owner.id).pk!);
    expect(left.filter((item) => JSON.stringify(item).includes(method.id))).toEqual([]);
    expect(left.find((item) => item.type === 'contact_count')).toMatchObject({ contact_method_count: 1, notification_rule_count: 2 });
  });
});
