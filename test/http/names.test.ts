/**
 * Issue 41 (11): every name field refuses invisible and format characters with 400 Validation errors,
 * creating and changing nothing, and keeps emoji sequences and scripts that spell with joiners.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, uniqueEmail, type User } from '../support/api.js';

let api: Api;
let alice: User;
let monitorId: string;
let teamId: string;

const layer = (name: string) => ({ name, start: '2026-11-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [alice.id] });

beforeAll(async () => {
  api = await Api.start();
  alice = await api.signUp(uniqueEmail('names'), 'Alice');
  monitorId = (await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'Names' } })).body.monitor.id;
  teamId = (await api.request('POST', '/api/teams', { token: alice.token, body: { name: 'Names', slug: `n-${randomUUID().slice(0, 8)}` } })).body.team.id;
});
afterAll(() => api.close());

/** Every request that takes a name, and the field the refusal names. */
const attempts = (value: string): [string, string, unknown, string][] => [
  ['POST', '/api/monitors', { name: value }, 'name'],
  ['PUT', `/api/monitors/${monitorId}`, { name: value }, 'name'],
  ['POST', '/api/teams', { name: value, slug: `t-${randomUUID().slice(0, 8)}` }, 'name'],
  ['PUT', `/api/teams/${teamId}`, { name: value }, 'name'],
  ['POST', '/api/escalation-policies', { name: value, steps: [{ delay_minutes: 0, emails: ['a@example.com'] }] }, 'name'],
  ['POST', '/api/schedules', { name: value, time_zone: 'UTC', layers: [layer('Week')] }, 'name'],
  ['POST', '/api/schedules', { name: 'Fine', time_zone: 'UTC', layers: [layer(value)] }, 'layers.0.name'],
  ['POST', `/api/monitors/${monitorId}/integrations`, { name: value }, 'name'],
  ['POST', '/local/users', { email: uniqueEmail('name'), name: value }, 'name'],
];

describe('names', () => {
  const refused: [string, string][] = [
    ['a right-to-left mark (U+200F)', 'Payments\u200F API'],
    ['an Arabic letter mark (U+061C)', 'Pay\u061Cments'],
    ['a zero-width space inside a word', 'Pay\u200Bments'],
    ['a line separator (U+2028)', 'Pay\u2028ments'],
    ['a paragraph separator (U+2029)', 'Pay\u2029ments'],
    ['tag characters', 'Payments\u{E0069}\u{E0067}\u{E006E}'],
  ];

  it.each(refused)('refuses %s in every name field with 400 Validation errors, creating and changing nothing', async (_, value) => {
    const before = (await api.request('GET', '/api/monitors', { token: alice.token })).body.monitors.length;
    for (const [method, path, body, field] of attempts(value)) {
      const response = await api.request(method, path, { token: alice.token, body });
      expect({ method, path, status: response.status, error: response.body.error }).toEqual({ method, path, status: 400, error: 'Validation errors' });
      expect(response.body.details).toContainEqual({ field, message: 'Must not contain invisible or format characters' });
    }
    expect((await api.request('GET', '/api/monitors', { token: alice.token })).body.monitors.length).toBe(before);
    expect((await api.request('GET', `/api/monitors/${monitorId}`, { token: alice.token })).body.monitor.name).toBe('Names');
    expect((await api.request('GET', `/api/teams/${teamId}`, { token: alice.token })).body.team.name).toBe('Names');
  });

  it('keeps emoji ZWJ sequences, subdivision flags and the joiners of Persian and Indic scripts, as given', async () => {
    for (const name of ['👩🏽‍💻 Developers', '🏳️‍🌈 Pride', '🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland', 'تیم می‌خواهم', 'क्‍ष टीम']) {
      const monitor = await api.request('POST', '/api/monitors', { token: alice.token, body: { name } });
      expect(monitor.status, name).toBe(201);
      expect(monitor.body.monitor.name).toBe(name);
      const team = await api.request('PUT', `/api/teams/${teamId}`, { token: alice.token, body: { name } });
      expect(team.status, name).toBe(200);
      expect(team.body.team.name).toBe(name);
    }
  });
});
