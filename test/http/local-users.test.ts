import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, uniqueEmail } from '../support/api.js';

let api: Api;
beforeAll(async () => {
  api = await Api.start();
});
afterAll(() => api.close());

describe('POST /local/users (local runtime only)', () => {
  it('signs a user up and returns the user and a working token', async () => {
    const email = uniqueEmail('Signup');
    const response = await api.request('POST', '/local/users', { body: { email, name: 'Sign Up' } });
    expect(response.status).toBe(201);
    expect(response.body.user).toEqual({ id: expect.any(String), email, name: 'Sign Up' });
    const authorized = await api.request('GET', '/api/incidents', { token: response.body.token });
    expect(authorized).toMatchObject({ status: 200, body: { incidents: [] } });
  });

  it('returns the same user id and a fresh token for the same e-mail in any case', async () => {
    const email = uniqueEmail('Case');
    const first = await api.request('POST', '/local/users', { body: { email, name: 'First' } });
    const second = await api.request('POST', '/local/users', { body: { email: email.toUpperCase(), name: 'Second' } });
    expect(second.status).toBe(201);
    expect(second.body.user.id).toBe(first.body.user.id);
    expect(second.body.user.name).toBe('First');
    expect(second.body.token).not.toBe(first.body.token);
  });

  it('gives concurrent sign-ups of one e-mail one account', async () => {
    const email = uniqueEmail('race');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api.request('POST', '/local/users', { body: { email, name: 'Racer' } })),
    );
    expect(new Set(responses.map((response) => response.body.user.id)).size).toBe(1);
  });

  it.each([
    [{ name: 'No e-mail' }, 'email'],
    [{ email: 'not-an-email', name: 'X' }, 'email'],
    [{ email: 'a@example.com' }, 'name'],
    [{ email: 'a@example.com', name: '' }, 'name'],
  ])('answers 400 Validation errors for %j', async (body, field) => {
    const response = await api.request('POST', '/local/users', { body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation errors');
    expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('serves the JWKS with one RS256 public key and no private parts', async () => {
    const response = await api.request('GET', '/.well-known/jwks.json');
    expect(response.status).toBe(200);
    expect(response.body.keys).toHaveLength(1);
    expect(response.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(response.body.keys[0]).not.toHaveProperty('d');
  });
});
