/**
 * CORS on the local API Gateway, as API Gateway (HTTP API) answers with the stack's configuration
 * (`cors` in shared/system.ts for the console's origin): the console's origin is allowed, no other.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/aws/gateway.js';
import { LocalIssuer } from '../../infra/local/aws/jwt.js';
import { routes } from '../../shared/system.js';
import { Api, uniqueEmail, type User } from '../support/api.js';

let api: Api;
let user: User;
let consoleOrigin: string;

beforeAll(async () => {
  // A console origin of its own (CONSOLE_PORT=4321): the default one (3001) is then refused too.
  api = await Api.start({ consoleOrigin: 'http://localhost:4321' });
  consoleOrigin = api.runtime.oidc.consoleOrigin;
  user = await api.signUp(uniqueEmail('cors'));
});
afterAll(() => api.close());

const preflight = (path: string, origin: string, method = 'POST', headers = 'authorization,content-type,idempotency-key') =>
  fetch(`${api.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

const corsHeadersOf = (response: Response) => Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

describe('CORS on the local API', () => {
  it('answers a preflight from the console\'s origin itself, on any path, as API Gateway does', async () => {
    for (const path of ['/api/incidents', '/api/incidents/some-id/acknowledge', '/oauth2/token', '/no/such/route']) {
      const response = await preflight(path, consoleOrigin);
      expect(response.status, path).toBe(204);
      expect(corsHeadersOf(response)).toEqual({
        'access-control-allow-origin': consoleOrigin,
        'access-control-allow-methods': 'GET,POST,PUT,DELETE',
        'access-control-allow-headers': 'authorization,content-type,idempotency-key',
        'access-control-max-age': '3600',
      });
      expect(response.headers.get('vary')).toBe('origin');
      expect(await response.text()).toBe('');
    }
  });

  it('serves the console origin it is given', () => {
    expect(consoleOrigin).toBe('http://localhost:4321');
  });

  it.each([['http://localhost:3001'], ['http://localhost:4322'], ['https://localhost:4321'], ['http://127.0.0.1:4321'], ['https://evil.example.com'], ['null']])(
    'gives a preflight from %s no CORS headers',
    async (origin) => {
      const response = await preflight('/api/incidents', origin);
      expect(response.status).toBe(204);
      expect(corsHeadersOf(response)).toEqual({});
    },
  );

  it('adds the allowed origin and the exposed headers to every answer to the console: success, refusal, not found', async () => {
    const answers = [
      await fetch(`${api.url}/api/teams`, { headers: { origin: consoleOrigin, authorization: `Bearer ${user.token}` } }),
      await fetch(`${api.url}/api/teams`, { headers: { origin: consoleOrigin } }),
      await fetch(`${api.url}/no/such/route`, { headers: { origin: consoleOrigin } }),
      await fetch(`${api.url}/.well-known/openid-configuration`, { headers: { origin: consoleOrigin } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 200]);
    for (const answer of answers) {
      expect(corsHeadersOf(answer)).toEqual({ 'access-control-allow-origin': consoleOrigin, 'access-control-expose-headers': 'x-request-id,link' });
      expect(answer.headers.get('vary')).toBe('origin');
    }
  });

  it('adds no CORS headers for another origin, or without one (the request is still served: the browser enforces CORS)', async () => {
    const other = await fetch(`${api.url}/api/teams`, { headers: { origin: 'https://evil.example.com', authorization: `Bearer ${user.token}` } });
    expect(other.status).toBe(200);
    expect(corsHeadersOf(other)).toEqual({});
    const none = await fetch(`${api.url}/api/teams`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(none.status).toBe(200);
    expect(corsHeadersOf(none)).toEqual({});
    expect(none.headers.get('vary')).toBeNull();
  });

  it('lets the console exchange a code at the token endpoint across origins', async () => {
    const response = await fetch(`${api.url}/oauth2/token`, {
      method: 'POST',
      headers: { origin: consoleOrigin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'incident-console' }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBe(consoleOrigin);
  });

  it('takes an OPTIONS request without Access-Control-Request-Method for no preflight (no route has OPTIONS)', async () => {
    const response = await fetch(`${api.url}/api/teams`, { method: 'OPTIONS', headers: { origin: consoleOrigin } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
  });

  it("ignores a function's own CORS headers, as API Gateway does once CORS is configured", async () => {
    // A gateway of its own whose every route answers with CORS headers of its own (no function does).
    const issuer = await LocalIssuer.create({ issuer: 'http://localhost:3000' });
    const server = createGateway({
      routes,
      issuer,
      corsOrigins: new Set([consoleOrigin]),
      loadHandler: async () => async () => ({
        statusCode: 200,
        headers: { 'content-type': 'application/json', 'Access-Control-Allow-Origin': '*', 'access-control-expose-headers': 'everything' },
        body: '{}',
      }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/unsubscribe/some-token`;
    try {
      expect(corsHeadersOf(await fetch(url, { headers: { origin: consoleOrigin } }))).toEqual({
        'access-control-allow-origin': consoleOrigin,
        'access-control-expose-headers': 'x-request-id,link',
      });
      expect(corsHeadersOf(await fetch(url, { headers: { origin: 'https://evil.example.com' } }))).toEqual({});
      expect(corsHeadersOf(await fetch(url))).toEqual({});
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
