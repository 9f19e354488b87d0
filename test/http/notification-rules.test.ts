/**
 * A person's notification rules (issue 43 §3): the two defaults (the account e-mail at 0 minutes, per
 * urgency) before anything is written, then created, listed, deleted; validation, the caller's own
 * methods only, duplicates and the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getByKeys } from '../../shared/platform/db/ops.js';
import { keys } from '../../shared/platform/db/keys.js';
import { Api, uniqueEmail, type User } from '../support/api.js';

let api: Api;

beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

const rules = (as: User) => api.request('GET', '/api/me/notification-rules', { token: as.token });
const create = (as: User, body: unknown) => api.request('POST', '/api/me/notification-rules', { token: as.token, body });
const remove = (as: User, id: string) => api.request('DELETE', `/api/me/notification-rules/${id}`, { token: as.token });
const accountMethod = async (as: User) => (await api.request('GET', '/api/me/contact-methods', { token: as.token })).body.contact_methods[0].id as string;

describe('notification rules', () => {
  it('a new account has its account e-mail at 0 minutes for both urgencies, answered without a write', async () => {
    const user = await api.signUp(uniqueEmail('rules-new'));
    const method = await accountMethod(user);
    const listed = await rules(user);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      notification_rules: [
        { id: expect.any(String), contact_method_id: method, delay_minutes: 0, urgency: 'high', created_at: expect.any(String) },
        { id: expect.any(String), contact_method_id: method, delay_minutes: 0, urgency: 'low', created_at: expect.any(String) },
      ],
    });
    expect((await rules(user)).body).toEqual(listed.body);
    expect((await getByKeys({ counter: keys.contactCount(user.id) })).counter).toBeUndefined();
  });

  it('creates rules, lists them high first then by delay, and deletes them (a default too, which stays deleted)', async () => {
    const user = await api.signUp(uniqueEmail('rules'));
    const method = await accountMethod(user);
    const [defaultHigh, defaultLow] = (await rules(user)).body.notification_rules;
    const created = await create(user, { contact_method_id: method, delay_minutes: 5, urgency: 'high' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ notification_rule: { id: expect.any(String), contact_method_id: method, delay_minutes: 5, urgency: 'high', created_at: expect.any(String) } });
    const late = (await create(user, { contact_method_id: method, delay_minutes: 1440, urgency: 'low' })).body.notification_rule;
    expect((await rules(user)).body.notification_rules).toEqual([defaultHigh, created.body.notification_rule, defaultLow, late]);

    expect(await remove(user, defaultLow.id)).toMatchObject({ status: 200, body: { message: 'Notification rule deleted' } });
    expect(await remove(user, defaultLow.id)).toMatchObject({ status: 404, body: { error: 'Notification rule not found' } });
    // A later write does not bring the default back.
    expect((await create(user, { contact_method_id: method, delay_minutes: 10, urgency: 'high' })).status).toBe(201);
    const left = (await rules(user)).body.notification_rules;
    expect(left.map((rule: { id: string }) => rule.id)).not.toContain(defaultLow.id);
    expect(left).toHaveLength(4);
  });

  it('deletes a default rule of an account whose defaults were never written, keeping the other', async () => {
    const user = await api.signUp(uniqueEmail('rules-first'));
    const [high, low] = (await rules(user)).body.notification_rules;
    expect((await remove(user, high.id)).status).toBe(200);
    expect((await rules(user)).body.notification_rules).toEqual([low]);
    expect((await api.request('GET', '/api/me/contact-methods', { token: user.token })).body.contact_methods).toHaveLength(1);
  });

  it('validates the delay (0–1440), the urgency and the method id', async () => {
    const user = await api.signUp(uniqueEmail('rules-invalid'));
    const method = await accountMethod(user);
    const cases: [unknown, string[]][] = [
      [{ contact_method_id: method, delay_minutes: -1, urgency: 'high' }, ['delay_minutes']],
      [{ contact_method_id: method, delay_minutes: 1441, urgency: 'high' }, ['delay_minutes']],
      [{ contact_method_id: method, delay_minutes: 1.5, urgency: 'high' }, ['delay_minutes']],
      [{ contact_method_id: method, delay_minutes: 0, urgency: 'urgent' }, ['urgency']],
      [{ contact_method_id: 'nope', delay_minutes: 0, urgency: 'low' }, ['contact_method_id']],
      [{ delay_minutes: 0, urgency: 'low' }, ['contact_method_id']],
      [{ contact_method_id: method, delay_minutes: 0, urgency: 'low', extra: 1 }, ['extra']],
    ];
    for (const [body, fields] of cases) {
      const response = await create(user, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toBe('Validation errors');
      expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(fields);
    }
    expect((await create(user, { contact_method_id: method, delay_minutes: 0, urgency: 'high' })).status).toBe(409);
    expect((await remove(user, 'nope')).status).toBe(400);
  });

  it("refuses another account's method and rules (404), a duplicate (409) and a 21st rule", async () => {
    const user = await api.signUp(uniqueEmail('rules-own'));
    const stranger = await api.signUp(uniqueEmail('rules-stranger'));
    const method = await accountMethod(user);
    expect(await create(stranger, { contact_method_id: method, delay_minutes: 1, urgency: 'high' })).toMatchObject({ status: 404, body: { error: 'Contact method not found' } });
    const [rule] = (await rules(user)).body.notification_rules;
    expect(await remove(stranger, rule.id)).toMatchObject({ status: 404, body: { error: 'Notification rule not found' } });
    expect(await create(user, { contact_method_id: method, delay_minutes: 0, urgency: 'high' })).toMatchObject({ status: 409, body: { error: 'Notification rule already exists' } });

    for (let delay = 1; delay <= 18; delay++) expect((await create(user, { contact_method_id: method, delay_minutes: delay, urgency: 'low' })).status).toBe(201);
    expect(await create(user, { contact_method_id: method, delay_minutes: 30, urgency: 'low' })).toMatchObject({ status: 400, body: { error: 'Notification rule limit reached: at most 20 per account' } });
    expect((await rules(user)).body.notification_rules).toHaveLength(20);
  });
});
