/**
 * The local OpenID Connect provider (Cognito managed login's stand-in, infra/local/aws/oidc.ts),
 * driven by a real OIDC client (openid-client) through the authorization code flow with PKCE, as
 * the console signs in: discovery, the sign-in form, the code exchange, the API called with the
 * access token from the console's origin, refresh, sign-out; and every refusal with its words.
 */
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcEndpoints, type OidcClient } from '../../infra/local/aws/oidc.js';
import { createGateway } from '../../infra/local/aws/gateway.js';
import { LocalIssuer } from '../../infra/local/aws/jwt.js';
import { advanceClock, resetClock } from '../../shared/platform/clock.js';
import { escapeHtml } from '../../shared/platform/html.js';
import { routes } from '../../shared/system.js';
import { Api, uniqueEmail } from '../support/api.js';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from '../../infra/paths.js';

let api: Api;
let config: client.Configuration;
let consoleOrigin: string;
let redirectUri: string;
const CLIENT_ID = 'incident-console';

beforeAll(async () => {
  api = await Api.start();
  consoleOrigin = api.runtime.oidc.consoleOrigin;
  redirectUri = `${consoleOrigin}/callback`;
  // A public client (no secret), over plain http: the local provider is on this machine.
  config = await client.discovery(new URL(api.url), CLIENT_ID, undefined, client.None(), { execute: [client.allowInsecureRequests] });
});
afterAll(() => api.close());

const unescapeHtml = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The hidden fields of the sign-in form: the authorization request it carries. */
function hiddenFields(html: string): URLSearchParams {
  const fields = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name!, unescapeHtml(value!));
  return fields;
}

/** A new authorization request, as the console builds it. */
async function authorizationRequest(parameters: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...parameters,
  });
  return { verifier, state, url };
}

const get = (url: URL | string, cookie?: string) => fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });

/** Submits the sign-in form of `html` with `fields`, as a browser does (following no redirect). */
function submit(html: string, fields: Record<string, string>) {
  const form = hiddenFields(html);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return fetch(`${api.url}/oauth2/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
}

/** The provider's session cookie a response sets, as a browser sends it back. */
const sessionCookie = (response: Response) => response.headers.getSetCookie()[0]!.split(';')[0]!;

/** Through the form to the redirect with a code. */
async function signInToCode(email: string, name?: string, parameters: Record<string, string> = {}) {
  const request = await authorizationRequest(parameters);
  const form = await get(request.url);
  expect(form.status).toBe(200);
  const signedIn = await submit(await form.text(), name === undefined ? { email } : { email, name });
  expect(signedIn.status).toBe(303);
  const location = new URL(signedIn.headers.get('location')!);
  return { ...request, location, code: location.searchParams.get('code')!, cookie: sessionCookie(signedIn) };
}

/** The token endpoint called as is (for the refusals openid-client would not send). */
async function tokenCall(fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded') {
  const body = contentType === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  const response = await fetch(`${api.url}/oauth2/token`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  tokenCall({ grant_type: 'authorization_code', client_id: CLIENT_ID, code, redirect_uri: redirectUri, code_verifier: verifier, ...extra });

const callApi = (token: string, path = '/api/me/contact-methods') => fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${token}`, origin: consoleOrigin } });

/** An error page: 400, HTML, the message, and no redirect anywhere. */
async function expectErrorPage(response: Response, message: string) {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await response.text()).toContain(`<p id="error">${escapeHtml(message)}</p>`);
}

describe('local OIDC provider: discovery', () => {
  it('publishes Cognito managed login\'s endpoints, absolute, under the API\'s own origin', async () => {
    const response = await fetch(api.runtime.oidc.discoveryUrl);
    expect(response.status).toBe(200);
    const origin = api.url;
    expect(await response.json()).toEqual({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth2/authorize`,
      token_endpoint: `${origin}/oauth2/token`,
      end_session_endpoint: `${origin}/logout`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['openid', 'email', 'profile'],
      token_endpoint_auth_methods_supported: ['none'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'name'],
    });
    expect(api.runtime.oidc.discoveryUrl).toBe(`${origin}/.well-known/openid-configuration`);
    expect(api.runtime.issuer.issuer).toBe(origin);
    // openid-client took it (it checks the issuer against the URL it was discovered from).
    expect(config.serverMetadata().issuer).toBe(origin);
  });
});

describe('local OIDC provider: signing in with the authorization code and PKCE', () => {
  it('signs a new user in through the form; the tokens call the API from the console; refresh; sign-out asks for the form again', async () => {
    const email = uniqueEmail('oidc');
    const request = await authorizationRequest();

    // The form: no script, a strict policy, the authorization request carried along.
    const form = await get(request.url);
    expect(form.status).toBe(200);
    const csp = form.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self' http:\/\/localhost:3001; frame-ancestors 'none'; base-uri 'none'$/);
    expect(form.headers.get('cache-control')).toBe('no-store');
    const html = await form.text();
    expect(html).not.toContain('<script');
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain('<label for="email">E-mail address</label>');
    expect(Object.fromEntries(hiddenFields(html))).toMatchObject({ client_id: CLIENT_ID, redirect_uri: redirectUri, state: request.state, code_challenge_method: 'S256' });

    const signedIn = await submit(html, { email, name: 'Olive Idc' });
    expect(signedIn.status).toBe(303);
    const [setCookie] = signedIn.headers.getSetCookie();
    expect(setCookie).toMatch(/^local_oidc_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    const location = new URL(signedIn.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe(request.state);

    const tokens = await client.authorizationCodeGrant(config, location, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    const identity = tokens.claims()!;
    expect(identity).toMatchObject({ iss: api.url, aud: CLIENT_ID, email, name: 'Olive Idc', email_verified: true, token_use: 'id' });
    const access = decodeJwt(tokens.access_token);
    expect(access).toMatchObject({ iss: api.url, aud: 'incident-service', sub: identity.sub, email, name: 'Olive Idc', client_id: CLIENT_ID, token_use: 'access', scope: 'openid email profile' });
    expect(access.exp! - access.iat!).toBe(3600);

    // The access token is the API's, called across origins from the console.
    const contactMethods = await callApi(tokens.access_token);
    expect(contactMethods.status).toBe(200);
    expect(contactMethods.headers.get('access-control-allow-origin')).toBe(consoleOrigin);
    const teams = await callApi(tokens.access_token, '/api/teams');
    expect(teams.status).toBe(200);
    // The account is the one POST /local/users finds for the e-mail.
    const same = await api.request('POST', '/local/users', { body: { email, name: 'Other Name' } });
    expect(same.body.user).toEqual({ id: identity.sub, email, name: 'Olive Idc' });

    // Refresh: new access and ID tokens for the same account; the refresh token stays (as Cognito's).
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeUndefined();
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.claims()).toMatchObject({ sub: identity.sub, email });
    expect((await callApi(refreshed.access_token)).status).toBe(200);

    // With the provider's session, the next sign-in redirects at once with a code.
    const cookie = sessionCookie(signedIn);
    const again = await authorizationRequest();
    const direct = await get(again.url, cookie);
    expect(direct.status).toBe(302);
    const second = await client.authorizationCodeGrant(config, new URL(direct.headers.get('location')!), { pkceCodeVerifier: again.verifier, expectedState: again.state });
    expect(second.claims()!.sub).toBe(identity.sub);

    // Cognito's sign-out: client_id and logout_uri; the session ends and the cookie goes.
    const logoutUrl = client.buildEndSessionUrl(config, { logout_uri: consoleOrigin });
    expect(`${logoutUrl.origin}${logoutUrl.pathname}`).toBe(`${api.url}/logout`);
    const loggedOut = await get(logoutUrl, cookie);
    expect(loggedOut.status).toBe(302);
    expect(loggedOut.headers.get('location')).toBe(consoleOrigin);
    expect(loggedOut.headers.getSetCookie()).toEqual(['local_oidc_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);
    // Even a copy of the old cookie no longer signs anyone in.
    const afterLogout = await get((await authorizationRequest()).url, cookie);
    expect(afterLogout.status).toBe(200);
    expect(await afterLogout.text()).toContain('<button type="submit">Sign in</button>');
  });

  it('signs an existing account in by its e-mail alone, in any case, and hands the nonce back in the ID token', async () => {
    const user = await api.signUp(uniqueEmail('Existing'), 'Existing User');
    const nonce = client.randomNonce();
    const { location, verifier, state } = await signInToCode(user.email.toUpperCase(), undefined, { nonce });
    const tokens = await client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.claims()).toMatchObject({ sub: user.id, email: user.email, name: 'Existing User', nonce });
  });

  it('shows the form again, with what was wrong, for a new e-mail without a name and for a bad e-mail address', async () => {
    const request = await authorizationRequest();
    const html = await (await get(request.url)).text();
    const cases: [Record<string, string>, string, string][] = [
      [{ email: uniqueEmail('nameless') }, 'name', 'There is no account for this e-mail address yet: enter your name to create one.'],
      [{ email: 'not-an-address', name: 'X' }, 'email', 'Enter a valid e-mail address, as in alice@example.com.'],
      [{ email: '' }, 'email', 'Enter your e-mail address.'],
      [{ email: uniqueEmail('long'), name: 'x'.repeat(101) }, 'name', 'Name: Too big: expected string to have <=100 characters'],
    ];
    for (const [fields, field, message] of cases) {
      const answer = await submit(html, fields);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(answer.headers.getSetCookie()).toEqual([]);
      const page = await answer.text();
      expect(page).toContain(`<p class="error" id="${field}-error" role="alert">${escapeHtml(message)}</p>`);
      // What was entered stays, and the request goes on being carried.
      expect(hiddenFields(page).get('state')).toBe(request.state);
    }
  });

  it('refuses a POSTed form that is not a form', async () => {
    const response = await fetch(`${api.url}/oauth2/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json' }, body: '{}' });
    await expectErrorPage(response, 'The sign-in form must be sent as application/x-www-form-urlencoded.');
  });
});

describe('local OIDC provider: docs/local.md', () => {
  it('signs in with the curl commands docs/local.md gives, and the token calls the API', async () => {
    const docs = readFileSync(join(repositoryRoot, 'docs', 'local.md'), 'utf8');
    const section = docs.slice(docs.indexOf('By hand, with `curl`'));
    const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const { stdout } = await promisify(execFile)('bash', ['-c', `set -eo pipefail\n${script}`], { env: { ...process.env, PORT: String(api.runtime.port) } });
    const tokens = JSON.parse(stdout) as Record<string, string>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect((await callApi(tokens.access_token!)).status).toBe(200);
  });
});

describe('local OIDC provider: codes', () => {
  it('refuses a wrong code_verifier, and the code is spent by the attempt', async () => {
    const { code, verifier } = await signInToCode(uniqueEmail('verifier'), 'V');
    const wrong = await exchange(code, client.randomPKCECodeVerifier());
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge.' } });
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    expect((await exchange(code, verifier)).body).toEqual({ error: 'invalid_grant', error_description: 'The code is invalid, expired or already used.' });
  });

  it('redeems a code once: again, and when two redemptions race', async () => {
    const first = await signInToCode(uniqueEmail('reuse'), 'R');
    expect((await exchange(first.code, first.verifier)).status).toBe(200);
    expect((await exchange(first.code, first.verifier)).body).toEqual({ error: 'invalid_grant', error_description: 'The code is invalid, expired or already used.' });

    const raced = await signInToCode(uniqueEmail('race'), 'R');
    const answers = await Promise.all(Array.from({ length: 4 }, () => exchange(raced.code, raced.verifier)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('binds a code to its redirect_uri and requires the code_verifier', async () => {
    const a = await signInToCode(uniqueEmail('bound'), 'B');
    expect((await exchange(a.code, a.verifier, { redirect_uri: `${consoleOrigin}/elsewhere` })).body).toEqual({
      error: 'invalid_grant',
      error_description: "redirect_uri does not match the authorization request's.",
    });
    const b = await signInToCode(uniqueEmail('bound'), 'B');
    expect((await tokenCall({ grant_type: 'authorization_code', client_id: CLIENT_ID, code: b.code, redirect_uri: redirectUri })).body).toEqual({
      error: 'invalid_grant',
      error_description: 'code_verifier is missing: the code was issued with a PKCE challenge.',
    });
  });

  it('lets a code expire after 5 minutes', async () => {
    const late = await signInToCode(uniqueEmail('late'), 'L');
    const inTime = await signInToCode(uniqueEmail('intime'), 'I');
    try {
      advanceClock(5 * 60_000 - 1_000);
      expect((await exchange(inTime.code, inTime.verifier)).status).toBe(200);
      advanceClock(1_000);
      expect((await exchange(late.code, late.verifier)).body).toEqual({ error: 'invalid_grant', error_description: 'The code is invalid, expired or already used.' });
    } finally {
      resetClock();
    }
  });

  it('ends the provider\'s session after an hour: the form again', async () => {
    const { cookie } = await signInToCode(uniqueEmail('hour'), 'H');
    try {
      advanceClock(60 * 60_000 - 1_000);
      expect((await get((await authorizationRequest()).url, cookie)).status).toBe(302);
      advanceClock(1_000);
      const expired = await get((await authorizationRequest()).url, cookie);
      expect(expired.status).toBe(200);
      expect(await expired.text()).toContain('<button type="submit">Sign in</button>');
    } finally {
      resetClock();
    }
  });

  it('answers the token endpoint\'s other refusals as OAuth 2.0 errors', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ grant_type: 'authorization_code', code: 'x' }, 'invalid_request', 'client_id is missing.'],
      [{ grant_type: 'authorization_code', client_id: 'someone-else', code: 'x' }, 'invalid_client', 'Unknown client_id "someone-else".'],
      [{ client_id: CLIENT_ID }, 'invalid_request', 'grant_type is missing.'],
      [{ client_id: CLIENT_ID, grant_type: 'password' }, 'unsupported_grant_type', 'grant_type "password" is not supported: use authorization_code or refresh_token.'],
      [{ client_id: CLIENT_ID, grant_type: 'authorization_code' }, 'invalid_request', 'code is missing.'],
      [{ client_id: CLIENT_ID, grant_type: 'authorization_code', code: 'made-up', code_verifier: 'v'.repeat(43), redirect_uri: redirectUri }, 'invalid_grant', 'The code is invalid, expired or already used.'],
      [{ client_id: CLIENT_ID, grant_type: 'refresh_token' }, 'invalid_request', 'refresh_token is missing.'],
      [{ client_id: CLIENT_ID, grant_type: 'refresh_token', refresh_token: 'not.a.token' }, 'invalid_grant', "The refresh token is invalid, expired or not this client's."],
    ];
    for (const [fields, error, description] of cases) {
      const answer = await tokenCall(fields);
      expect(answer, description).toMatchObject({ status: 400, body: { error, error_description: description } });
    }
    expect(await tokenCall({ grant_type: 'refresh_token', client_id: CLIENT_ID }, 'application/json')).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'The request body must be application/x-www-form-urlencoded.' },
    });
  });

  it('takes no access token for a refresh token, and the API takes neither ID nor refresh tokens', async () => {
    const { code, verifier } = await signInToCode(uniqueEmail('kinds'), 'K');
    const exchanged = await exchange(code, verifier);
    expect(exchanged).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 3600 } });
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(exchanged.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'token_type']);
    const tokens = exchanged.body as Record<string, string>;
    expect((await tokenCall({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: tokens.access_token! })).body).toEqual({
      error: 'invalid_grant',
      error_description: "The refresh token is invalid, expired or not this client's.",
    });
    for (const token of [tokens.id_token!, tokens.refresh_token!]) {
      const refused = await callApi(token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error_description="the token does not have a valid audience"');
    }
  });
});

describe('local OIDC provider: authorization requests', () => {
  const authorizeWith = (parameters: Record<string, string | undefined>, cookie?: string) => {
    const url = new URL(`${api.url}/oauth2/authorize`);
    for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
    return get(url, cookie);
  };
  const good = () => ({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'st4te',
    scope: 'openid email profile',
  });

  it.each([
    [{ client_id: undefined }, 'client_id is missing.'],
    [{ client_id: 'someone-else' }, 'Unknown client_id "someone-else".'],
    [{ redirect_uri: undefined }, 'redirect_uri is missing.'],
    [{ redirect_uri: 'https://evil.example.com/callback' }, 'redirect_uri "https://evil.example.com/callback" is not registered for client incident-console.'],
    [{ redirect_uri: 'http://localhost:3001/callback/../steal' }, 'redirect_uri "http://localhost:3001/callback/../steal" is not registered for client incident-console.'],
  ])('answers %j with an error page and redirects nowhere', async (change, message) => {
    await expectErrorPage(await authorizeWith({ ...good(), ...change }), message);
  });

  it.each([
    [{ response_type: undefined }, 'invalid_request', 'response_type is missing.'],
    [{ response_type: 'token' }, 'unsupported_response_type', 'response_type "token" is not supported: use code.'],
    [{ code_challenge: undefined }, 'invalid_request', 'code_challenge is missing: PKCE is required.'],
    [{ code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method must be S256, not "plain".'],
    [{ code_challenge_method: undefined }, 'invalid_request', 'code_challenge_method must be S256.'],
    [{ code_challenge: 'short' }, 'invalid_request', 'code_challenge must be a base64url SHA-256 hash (43 characters).'],
    [{ scope: 'openid admin' }, 'invalid_scope', 'Unknown scope "admin": the scopes are openid, email, profile.'],
    [{ prompt: 'consent' }, 'invalid_request', 'prompt "consent" is not supported: use login or none.'],
    [{ prompt: 'none' }, 'login_required', 'No one is signed in.'],
  ])('sends %j back to the client with an OAuth 2.0 error', async (change, error, description) => {
    const answer = await authorizeWith({ ...good(), ...change });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error, error_description: description, state: 'st4te' });
  });

  it('shows the form to a signed-in user when the client asks (prompt=login)', async () => {
    const { cookie } = await signInToCode(uniqueEmail('prompt'), 'P');
    expect((await authorizeWith(good(), cookie)).status).toBe(302);
    const asked = await authorizeWith({ ...good(), prompt: 'login' }, cookie);
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('<button type="submit">Sign in</button>');
  });

  it.each([
    [{ client_id: undefined }, 'client_id is missing.'],
    [{ client_id: 'someone-else' }, 'Unknown client_id "someone-else".'],
    [{ logout_uri: undefined }, 'logout_uri is missing.'],
    [{ logout_uri: 'https://evil.example.com/' }, 'logout_uri "https://evil.example.com/" is not registered for client incident-console.'],
  ])('answers a sign-out with %j with an error page, and the session goes on', async (change, message) => {
    const { cookie } = await signInToCode(uniqueEmail('logout'), 'L');
    const url = new URL(`${api.url}/logout`);
    for (const [name, value] of Object.entries({ client_id: CLIENT_ID, logout_uri: consoleOrigin, ...change })) if (value !== undefined) url.searchParams.set(name, value);
    const answer = await get(url, cookie);
    expect(answer.headers.getSetCookie()).toEqual([]);
    await expectErrorPage(answer, message);
    expect((await authorizeWith(good(), cookie)).status).toBe(302);
  });
});

describe('local OIDC provider with two clients', () => {
  it('refuses a code issued to another client', async () => {
    // A provider of its own with a second client: the runtime registers only the console.
    const issuer = await LocalIssuer.create({});
    const other: OidcClient = { id: 'other', redirectUris: ['http://localhost:4000/callback'], logoutUris: [] };
    const theConsole: OidcClient = { id: CLIENT_ID, redirectUris: [redirectUri], logoutUris: [] };
    const account = { sub: 'u-1', email: 'u@example.com', name: 'U' };
    const server = createGateway({
      routes,
      issuer,
      loadHandler: async () => {
        throw new Error('no route here');
      },
      localEndpoints: oidcEndpoints({ issuer, clients: [theConsole, other], accounts: { signIn: async () => ({ account }), find: async () => account } }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    issuer.serveAt(origin);
    try {
      const verifier = client.randomPKCECodeVerifier();
      const form = new URLSearchParams({
        response_type: 'code',
        client_id: 'other',
        redirect_uri: 'http://localhost:4000/callback',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        email: 'u@example.com',
      });
      const signedIn = await fetch(`${origin}/oauth2/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      expect(signedIn.status).toBe(303);
      const code = new URL(signedIn.headers.get('location')!).searchParams.get('code')!;
      const response = await fetch(`${origin}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: CLIENT_ID, code, redirect_uri: 'http://localhost:4000/callback', code_verifier: verifier }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid_grant', error_description: 'The code was issued to another client.' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
