/**
 * The local stand-in for Cognito's managed login: a small OpenID Connect provider at Cognito's paths,
 * so that the console's sign-in (authorization code with PKCE) runs the same code path locally and
 * on AWS. Its issuer is the local JWT issuer (`jwt.ts`), named after the API's origin, and its
 * access tokens are the very tokens the local API's JWT authorizer accepts.
 *
 * - `GET /.well-known/openid-configuration`: the discovery document, every endpoint absolute.
 * - `GET /oauth2/authorize`: checks the client and its redirect URI (a wrong one is answered with an
 *   error page, never a redirect), requires PKCE S256, then redirects with a code at once when the
 *   provider's session cookie names a signed-in account, else shows the sign-in form.
 * - `POST /oauth2/authorize`: the form: the account of the e-mail address (created with the name
 *   given when there is none, as `POST /local/users` does), the session cookie, and the redirect.
 * - `POST /oauth2/token`: `authorization_code` (single-use codes, 5 minutes, bound to the client,
 *   the redirect URI and the PKCE challenge) and `refresh_token`; errors as OAuth 2.0's JSON.
 * - `GET /logout?client_id&logout_uri`: Cognito's sign-out: ends the provider's session and
 *   redirects to a registered sign-out URI.
 *
 * Codes and sessions live in this process's memory (a restart signs everyone out of the provider,
 * not of the console: its refresh token is a signed token and survives). Codes are taken out of the
 * map in the same synchronous step that finds them, so two concurrent redemptions get one token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { clock } from '../../../shared/platform/clock.js';
import { escapeHtml } from '../../../shared/platform/html.js';
import type { LocalEndpoint } from './gateway.js';
import type { LocalIssuer, TokenSubject } from './jwt.js';

/** The one local client: the console, a public client (no secret), as the Cognito app client on AWS. */
export const LOCAL_CLIENT_ID = 'incident-console';
/** The provider's session cookie. */
export const SESSION_COOKIE = 'local_oidc_session';
/** How long a code may wait to be redeemed. */
export const CODE_LIFETIME_MS = 5 * 60_000;
/** How long the provider's session lasts (Cognito's managed login session: 1 hour). */
export const SESSION_LIFETIME_SECONDS = 60 * 60;
/** Access and ID tokens' lifetime (the stack's app client: 1 hour). */
export const ACCESS_TOKEN_SECONDS = 60 * 60;
/** Refresh tokens' lifetime (Cognito's default: 30 days). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
const SCOPES = ['openid', 'email', 'profile'] as const;

export interface OidcClient {
  id: string;
  /** The exact redirect URIs (`redirect_uri`) it may be sent codes at. */
  redirectUris: readonly string[];
  /** The exact URIs it may be sent back to after signing out (`logout_uri`). */
  logoutUris: readonly string[];
}

/** The console as the one client: codes go to `<origin>/callback`, sign-out back to the origin. */
export const consoleClient = (consoleOrigin: string): OidcClient => ({
  id: LOCAL_CLIENT_ID,
  redirectUris: [`${consoleOrigin}/callback`],
  logoutUris: [consoleOrigin, `${consoleOrigin}/`],
});

export interface SignInProblem {
  field: 'email' | 'name';
  message: string;
}
export type SignInOutcome = { account: TokenSubject } | { problems: SignInProblem[] };

/** The accounts the provider signs people in to. */
export interface OidcAccounts {
  /** The account of `email`, or a new one named `name` (empty: none given); or what is wrong with the input. */
  signIn(email: string, name: string): Promise<SignInOutcome>;
  /** The account whose id is `sub`. */
  find(sub: string): Promise<TokenSubject | undefined>;
}

export interface OidcProviderOptions {
  issuer: LocalIssuer;
  clients: readonly OidcClient[];
  accounts: OidcAccounts;
}

type Answer = Awaited<ReturnType<LocalEndpoint['handle']>>;

interface AuthorizationRequest {
  client: OidcClient;
  redirectUri: string;
  state: string | null;
  scope: string;
  codeChallenge: string;
  nonce: string | null;
  prompt: string | null;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  sub: string;
  scope: string;
  nonce: string | null;
  authTime: number;
  expiresAt: number;
}

interface Session {
  sub: string;
  authTime: number;
  expiresAt: number;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1f2937;background:#fff}' +
  'h1{font-size:1.4rem}label{display:block;margin-top:1rem;font-weight:600}' +
  'input{display:block;box-sizing:border-box;width:100%;font-size:1rem;padding:.5em;margin-top:.3rem}' +
  'button{font-size:1rem;padding:.6em 1.2em;margin-top:1.5rem}.hint{font-weight:400;color:#6b7280}.error{color:#b91c1c;margin:.3rem 0 0}' +
  '@media (prefers-color-scheme:dark){body{color:#e5e7eb;background:#111827}.hint{color:#9ca3af}.error{color:#fca5a5}}';
/** The pages' one style sheet, allowed by its hash: the CSP allows no inline script and no other style. */
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const token = () => randomBytes(32).toString('base64url');
const seconds = (at: number) => Math.floor(at / 1000);

/** A page of the provider: nothing cached, no referrer, no frames, no script; its form may post only here and lead only to the clients' redirect URIs. */
function page(status: number, title: string, content: string, formTargets: readonly string[]): Answer {
  return {
    status,
    contentType: 'text/html; charset=utf-8',
    headers: {
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      // Browsers hold a form's redirect to form-action too: the code's redirect goes to the client's origin.
      'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${escapeHtml(title)} — Incident service (local)</title><style>${STYLE}</style></head><body>${content}</body></html>`,
  };
}

/** The error page of a request that cannot be redirected back (no client, or a redirect URI not registered). */
const errorPage = (message: string) => page(400, 'Sign-in error', `<h1>Sign-in error</h1><p id="error">${escapeHtml(message)}</p>`, []);

const redirect = (status: 302 | 303, location: string, headers: Record<string, string | string[]> = {}): Answer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  headers: { location, 'cache-control': 'no-store', ...headers },
  body: '',
});

const withParams = (uri: string, params: Record<string, string | null>) => {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.href;
};

/** OAuth 2.0's error answer of the token endpoint. */
const oauthError = (error: string, description: string, status = 400): Answer => ({
  status,
  headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
  body: { error, error_description: description },
});

function cookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of headers.cookie?.split(/;\s*/) ?? []) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at) === name) return part.slice(at + 1);
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Lax (sent when a client's page navigates here, not with other sites' requests). */
const sessionCookie = (value: string, maxAge: number) => `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`;

export function oidcEndpoints({ issuer, clients, accounts }: OidcProviderOptions): LocalEndpoint[] {
  const codes = new Map<string, Grant>();
  const sessions = new Map<string, Session>();
  const formTargets = [...new Set(clients.flatMap((client) => client.redirectUris.map((uri) => new URL(uri).origin)))];

  const clientNamed = (id: string | null) => (id === null ? undefined : clients.find((client) => client.id === id));

  /** The client and redirect URI first: until both are known good, nothing may be redirected anywhere. */
  function authorizationRequest(params: URLSearchParams): { page: Answer } | { redirect: Answer } | { request: AuthorizationRequest } {
    const clientId = params.get('client_id');
    if (!clientId) return { page: errorPage('client_id is missing.') };
    const client = clientNamed(clientId);
    if (!client) return { page: errorPage(`Unknown client_id "${clientId}".`) };
    const redirectUri = params.get('redirect_uri');
    if (!redirectUri) return { page: errorPage('redirect_uri is missing.') };
    if (!client.redirectUris.includes(redirectUri)) return { page: errorPage(`redirect_uri "${redirectUri}" is not registered for client ${client.id}.`) };
    const state = params.get('state');
    const refuse = (error: string, description: string) => ({ redirect: redirect(302, withParams(redirectUri, { error, error_description: description, state })) });
    const responseType = params.get('response_type');
    if (!responseType) return refuse('invalid_request', 'response_type is missing.');
    if (responseType !== 'code') return refuse('unsupported_response_type', `response_type "${responseType}" is not supported: use code.`);
    const method = params.get('code_challenge_method');
    const codeChallenge = params.get('code_challenge');
    if (!codeChallenge) return refuse('invalid_request', 'code_challenge is missing: PKCE is required.');
    if (method !== 'S256') return refuse('invalid_request', `code_challenge_method must be S256${method ? `, not "${method}"` : ''}.`);
    if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) return refuse('invalid_request', 'code_challenge must be a base64url SHA-256 hash (43 characters).');
    const scopes = (params.get('scope') ?? SCOPES.join(' ')).split(' ').filter(Boolean);
    const unknown = scopes.find((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (unknown !== undefined) return refuse('invalid_scope', `Unknown scope "${unknown}": the scopes are ${SCOPES.join(', ')}.`);
    const prompt = params.get('prompt');
    if (prompt !== null && prompt !== 'login' && prompt !== 'none') return refuse('invalid_request', `prompt "${prompt}" is not supported: use login or none.`);
    return { request: { client, redirectUri, state, scope: scopes.join(' '), codeChallenge, nonce: params.get('nonce'), prompt } };
  }

  function signInForm(status: number, request: AuthorizationRequest, entered: { email?: string; name?: string } = {}, problems: SignInProblem[] = []) {
    const hidden: [string, string | null][] = [
      ['response_type', 'code'],
      ['client_id', request.client.id],
      ['redirect_uri', request.redirectUri],
      ['scope', request.scope],
      ['state', request.state],
      ['code_challenge', request.codeChallenge],
      ['code_challenge_method', 'S256'],
      ['nonce', request.nonce],
    ];
    const problem = (field: 'email' | 'name') => {
      const message = problems.find((candidate) => candidate.field === field)?.message;
      return message ? `<p class="error" id="${field}-error" role="alert">${escapeHtml(message)}</p>` : '';
    };
    const described = (field: 'email' | 'name') => (problems.some((candidate) => candidate.field === field) ? ` aria-invalid="true" aria-describedby="${field}-error"` : '');
    const content =
      `<h1>Sign in</h1><p>Local sign-in: no password. Enter your e-mail address; a new account also needs your name.</p>` +
      `<form method="post" action="/oauth2/authorize">` +
      hidden
        .filter((pair): pair is [string, string] => pair[1] !== null)
        .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
        .join('') +
      `<label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="email" required autofocus value="${escapeHtml(entered.email ?? '')}"${described('email')}>${problem('email')}` +
      `<label for="name">Name <span class="hint">(for a new account)</span></label><input id="name" name="name" autocomplete="name" maxlength="100" value="${escapeHtml(entered.name ?? '')}"${described('name')}>${problem('name')}` +
      `<button type="submit">Sign in</button></form>`;
    return page(status, 'Sign in', content, formTargets);
  }

  function issueCode(request: AuthorizationRequest, session: Session, status: 302 | 303, headers?: Record<string, string>): Answer {
    const now = clock.now().getTime();
    // Expired codes go as new ones come (the map is in issuing order).
    for (const [code, grant] of codes) {
      if (grant.expiresAt > now) break;
      codes.delete(code);
    }
    const code = token();
    codes.set(code, {
      clientId: request.client.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      sub: session.sub,
      scope: request.scope,
      nonce: request.nonce,
      authTime: session.authTime,
      expiresAt: now + CODE_LIFETIME_MS,
    });
    return redirect(status, withParams(request.redirectUri, { code, state: request.state }), headers);
  }

  function currentSession(headers: IncomingHttpHeaders): Session | undefined {
    const id = cookie(headers, SESSION_COOKIE);
    const session = id === undefined ? undefined : sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt <= clock.now().getTime()) {
      sessions.delete(id!);
      return undefined;
    }
    return session;
  }

  async function tokens(account: TokenSubject, clientId: string, scope: string, authTime: number, nonce: string | null) {
    const now = seconds(Date.now());
    const accessToken = await issuer.sign(account, ACCESS_TOKEN_SECONDS, { client_id: clientId, token_use: 'access', scope, auth_time: authTime });
    const idToken = scope.split(' ').includes('openid')
      ? await issuer.signPayload({
          iss: issuer.issuer,
          sub: account.sub,
          aud: clientId,
          email: account.email,
          email_verified: true,
          name: account.name,
          token_use: 'id',
          auth_time: authTime,
          iat: now,
          exp: now + ACCESS_TOKEN_SECONDS,
          ...(nonce === null ? {} : { nonce }),
        })
      : undefined;
    return { accessToken, idToken };
  }

  const tokenAnswer = (body: Record<string, unknown>): Answer => ({ status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body });

  async function authorizationCodeGrant(form: URLSearchParams, clientId: string): Promise<Answer> {
    const code = form.get('code');
    if (!code) return oauthError('invalid_request', 'code is missing.');
    // Taken out as it is found, in one synchronous step: a code is redeemed once, whatever runs at the same time.
    const grant = codes.get(code);
    codes.delete(code);
    if (!grant || grant.expiresAt <= clock.now().getTime()) return oauthError('invalid_grant', 'The code is invalid, expired or already used.');
    if (grant.clientId !== clientId) return oauthError('invalid_grant', 'The code was issued to another client.');
    if (form.get('redirect_uri') !== grant.redirectUri) return oauthError('invalid_grant', "redirect_uri does not match the authorization request's.");
    const verifier = form.get('code_verifier');
    if (!verifier) return oauthError('invalid_grant', 'code_verifier is missing: the code was issued with a PKCE challenge.');
    if (createHash('sha256').update(verifier).digest('base64url') !== grant.codeChallenge) return oauthError('invalid_grant', 'code_verifier does not match the code_challenge.');
    const account = await accounts.find(grant.sub);
    if (!account) return oauthError('invalid_grant', 'The account signed in no longer exists.');
    const { accessToken, idToken } = await tokens(account, clientId, grant.scope, grant.authTime, grant.nonce);
    const now = seconds(Date.now());
    const refreshToken = await issuer.signPayload({
      iss: issuer.issuer,
      sub: account.sub,
      aud: clientId,
      token_use: 'refresh',
      scope: grant.scope,
      auth_time: grant.authTime,
      iat: now,
      exp: now + REFRESH_TOKEN_SECONDS,
      jti: token(),
    });
    return tokenAnswer({
      ...(idToken ? { id_token: idToken } : {}),
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
    });
  }

  async function refreshTokenGrant(form: URLSearchParams, clientId: string): Promise<Answer> {
    const refreshToken = form.get('refresh_token');
    if (!refreshToken) return oauthError('invalid_request', 'refresh_token is missing.');
    const claims = await issuer.verifyFor(refreshToken, clientId);
    if (!claims || claims.token_use !== 'refresh' || typeof claims.sub !== 'string') {
      return oauthError('invalid_grant', 'The refresh token is invalid, expired or not this client\'s.');
    }
    const account = await accounts.find(claims.sub);
    if (!account) return oauthError('invalid_grant', 'The account signed in no longer exists.');
    const scope = typeof claims.scope === 'string' ? claims.scope : SCOPES.join(' ');
    const { accessToken, idToken } = await tokens(account, clientId, scope, Number(claims.auth_time), null);
    // As Cognito (without refresh token rotation): new access and ID tokens; the refresh token stays.
    return tokenAnswer({ ...(idToken ? { id_token: idToken } : {}), access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS });
  }

  return [
    {
      method: 'GET',
      path: '/.well-known/openid-configuration',
      handle: async () => {
        const origin = issuer.issuer;
        return {
          status: 200,
          body: {
            issuer: origin,
            authorization_endpoint: `${origin}/oauth2/authorize`,
            token_endpoint: `${origin}/oauth2/token`,
            end_session_endpoint: `${origin}/logout`,
            jwks_uri: `${origin}/.well-known/jwks.json`,
            response_types_supported: ['code'],
            grant_types_supported: ['authorization_code', 'refresh_token'],
            code_challenge_methods_supported: ['S256'],
            scopes_supported: [...SCOPES],
            token_endpoint_auth_methods_supported: ['none'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'name'],
          },
        };
      },
    },
    { method: 'GET', path: '/.well-known/jwks.json', handle: async () => ({ status: 200, body: issuer.jwks() }) },
    {
      method: 'GET',
      path: '/oauth2/authorize',
      handle: async ({ query, headers }) => {
        const parsed = authorizationRequest(query);
        if (!('request' in parsed)) return 'page' in parsed ? parsed.page : parsed.redirect;
        const { request } = parsed;
        const session = request.prompt === 'login' ? undefined : currentSession(headers);
        if (session) return issueCode(request, session, 302);
        if (request.prompt === 'none') {
          return redirect(302, withParams(request.redirectUri, { error: 'login_required', error_description: 'No one is signed in.', state: request.state }));
        }
        return signInForm(200, request);
      },
    },
    {
      method: 'POST',
      path: '/oauth2/authorize',
      body: 'form',
      handle: async ({ body }) => {
        if (!(body instanceof URLSearchParams)) return errorPage('The sign-in form must be sent as application/x-www-form-urlencoded.');
        const parsed = authorizationRequest(body);
        if (!('request' in parsed)) return 'page' in parsed ? parsed.page : parsed.redirect;
        const { request } = parsed;
        const email = (body.get('email') ?? '').trim();
        const name = (body.get('name') ?? '').trim();
        const outcome = await accounts.signIn(email, name);
        if ('problems' in outcome) return signInForm(400, request, { email, name }, outcome.problems);
        const now = clock.now().getTime();
        const session: Session = { sub: outcome.account.sub, authTime: seconds(now), expiresAt: now + SESSION_LIFETIME_SECONDS * 1000 };
        const id = token();
        sessions.set(id, session);
        return issueCode(request, session, 303, { 'set-cookie': sessionCookie(id, SESSION_LIFETIME_SECONDS) });
      },
    },
    {
      method: 'POST',
      path: '/oauth2/token',
      body: 'form',
      handle: async ({ body }) => {
        if (!(body instanceof URLSearchParams)) return oauthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
        const clientId = body.get('client_id');
        if (!clientId) return oauthError('invalid_request', 'client_id is missing.');
        if (!clientNamed(clientId)) return oauthError('invalid_client', `Unknown client_id "${clientId}".`);
        const grantType = body.get('grant_type');
        if (!grantType) return oauthError('invalid_request', 'grant_type is missing.');
        if (grantType === 'authorization_code') return authorizationCodeGrant(body, clientId);
        if (grantType === 'refresh_token') return refreshTokenGrant(body, clientId);
        return oauthError('unsupported_grant_type', `grant_type "${grantType}" is not supported: use authorization_code or refresh_token.`);
      },
    },
    {
      method: 'GET',
      path: '/logout',
      handle: async ({ query, headers }) => {
        const clientId = query.get('client_id');
        if (!clientId) return errorPage('client_id is missing.');
        const client = clientNamed(clientId);
        if (!client) return errorPage(`Unknown client_id "${clientId}".`);
        const logoutUri = query.get('logout_uri');
        if (!logoutUri) return errorPage('logout_uri is missing.');
        if (!client.logoutUris.includes(logoutUri)) return errorPage(`logout_uri "${logoutUri}" is not registered for client ${client.id}.`);
        const id = cookie(headers, SESSION_COOKIE);
        if (id !== undefined) sessions.delete(id);
        return redirect(302, logoutUri, { 'set-cookie': sessionCookie('', 0) });
      },
    },
  ];
}
