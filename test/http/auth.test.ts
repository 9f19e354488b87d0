/**
 * The local API Gateway's JWT authorizer: every missing or invalid token is answered
 * 401 {"message":"Unauthorized"} and the handler is never invoked.
 */
import type { AddressInfo } from 'node:net';
import { base64url, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../infra/local/aws/gateway.js';
import { LocalIssuer } from '../../infra/local/aws/jwt.js';
import { routes } from '../../shared/system.js';

/** This gateway's issuer (a runtime's is its own origin). */
const LOCAL_ISSUER = 'http://localhost:3000';

let issuer: LocalIssuer;
let url: string;
let close: () => Promise<void>;
const invocations: { event: any }[] = [];

beforeAll(async () => {
  issuer = await LocalIssuer.create({ issuer: LOCAL_ISSUER });
  const server = createGateway({
    routes,
    issuer,
    // A recording handler stands in for the route's module: it shows whether the gateway invoked it.
    loadHandler: async () => async (event: never) => {
      invocations.push({ event });
      return { statusCode: 200, body: JSON.stringify({ ok: true }), headers: { 'content-type': 'application/json' } };
    },
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  url = `http://localhost:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());
beforeEach(() => {
  invocations.length = 0;
});

const subject = { sub: '6f1c2a8e-3b0e-4f0e-9a59-8b0f5f0c1d2e', email: 'a@example.com', name: 'A' };
const now = () => Math.floor(Date.now() / 1000);

async function signWith(key: Parameters<SignJWT['sign']>[0], alg: string, claims: Record<string, unknown>, kid?: string) {
  return new SignJWT(claims).setProtectedHeader({ alg, ...(kid ? { kid } : {}) }).sign(key);
}

async function call(authorization?: string) {
  const response = await fetch(`${url}/api/incidents`, { headers: authorization ? { authorization } : {} });
  return { status: response.status, body: await response.json() };
}

describe('local JWT authorizer', () => {
  it('passes a valid token and hands the claims to the handler as strings', async () => {
    const token = await issuer.sign(subject);
    const response = await call(`Bearer ${token}`);
    expect(response).toEqual({ status: 200, body: { ok: true } });
    expect(invocations).toHaveLength(1);
    const event = invocations[0]!.event;
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('GET /api/incidents');
    expect(event.requestContext.authorizer.jwt.claims).toMatchObject({
      sub: subject.sub,
      email: subject.email,
      iss: LOCAL_ISSUER,
      aud: 'incident-service',
      exp: expect.stringMatching(/^\d+$/),
    });
  });

  it('refuses a token it has accepted once it expires: remembering verified tokens never outlives their exp', async () => {
    const exp = now() + 60;
    const token = await issuer.signPayload({ ...subject, iss: LOCAL_ISSUER, aud: 'incident-service', exp });
    expect((await call(`Bearer ${token}`)).status).toBe(200);
    expect((await call(`Bearer ${token}`)).status).toBe(200);
    // The clock is set from `exp`, not moved from now: `exp` is whole seconds, so "59 s from now" could
    // already be past it when the calls above took longer than what was left of their second.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime((exp - 1) * 1000);
      expect((await call(`Bearer ${token}`)).status).toBe(200);
      vi.setSystemTime(exp * 1000);
      const response = await fetch(`${url}/api/incidents`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error_description="the token has expired"');
    } finally {
      vi.useRealTimers();
    }
    expect(invocations).toHaveLength(3);
  });

  it('issues tokens valid for 24 hours', async () => {
    const token = await issuer.sign(subject);
    const payload = JSON.parse(new TextDecoder().decode(base64url.decode(token.split('.')[1]!)));
    expect(payload.exp - payload.iat).toBe(24 * 60 * 60);
  });

  const otherKey = () => generateKeyPair('RS256');

  const invalid: [string, () => Promise<string | undefined>][] = [
    ['no Authorization header', async () => undefined],
    ['a scheme other than Bearer', async () => `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['an empty bearer token', async () => 'Bearer '],
    ['a malformed token', async () => 'Bearer not.a.jwt'],
    [
      'a token signed by another key',
      async () => {
        const { privateKey } = await otherKey();
        return `Bearer ${await signWith(privateKey, 'RS256', { ...subject, iss: LOCAL_ISSUER, aud: 'incident-service', exp: now() + 600 }, issuer.jwks().keys[0]!.kid)}`;
      },
    ],
    ['a wrong issuer', async () => `Bearer ${await resign({ iss: 'https://evil.example.com' })}`],
    ['a wrong audience', async () => `Bearer ${await resign({ aud: 'someone-else' })}`],
    ['an expired token', async () => `Bearer ${await resign({ exp: now() - 5 })}`],
    ['a token not yet valid (nbf)', async () => `Bearer ${await resign({ nbf: now() + 600 })}`],
    ['a token without exp', async () => `Bearer ${await resign({ exp: undefined })}`],
    [
      'alg none',
      async () => {
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
        const payload = base64url.encode(
          JSON.stringify({ ...subject, iss: LOCAL_ISSUER, aud: 'incident-service', exp: now() + 600 }),
        );
        return `Bearer ${header}.${payload}.`;
      },
    ],
    [
      'HS256 signed with the public key as secret',
      async () => {
        const secret = new TextEncoder().encode(JSON.stringify(issuer.jwks().keys[0]));
        return `Bearer ${await signWith(secret, 'HS256', { ...subject, iss: LOCAL_ISSUER, aud: 'incident-service', exp: now() + 600 })}`;
      },
    ],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await issuer.sign(subject)).split('.');
        const payload = base64url.encode(
          JSON.stringify({ ...subject, sub: 'someone-else', iss: LOCAL_ISSUER, aud: 'incident-service', exp: now() + 600 }),
        );
        return `Bearer ${header}.${payload}.${signature}`;
      },
    ],
  ];

  /** Signs with the issuer's own key, overriding standard claims (undefined removes one). */
  async function resign(overrides: Record<string, unknown>) {
    const token = await issuer.sign(subject);
    const claims = { ...JSON.parse(new TextDecoder().decode(base64url.decode(token.split('.')[1]!))), ...overrides };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    return issuer.signPayload(claims);
  }

  it.each(invalid)('answers 401 Unauthorized for %s, never invoking the handler', async (_, authorization) => {
    const response = await call(await authorization());
    expect(response).toEqual({ status: 401, body: { message: 'Unauthorized' } });
    expect(invocations).toHaveLength(0);
  });

  it('answers 404 Not Found for an unknown route, authorized or not', async () => {
    const response = await fetch(`${url}/api/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
    expect(invocations).toHaveLength(0);
  });
});
