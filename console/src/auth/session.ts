/**
 * Signing in: OpenID Connect's authorization code with PKCE, against Cognito's managed login on AWS
 * and the local runtime's provider at the same paths. The tokens live in session storage (this tab
 * only, gone with it), never in localStorage. The API takes the access token.
 */
import type { ConsoleConfig } from '../config.js';
import { challengeOf, randomToken } from './pkce.js';

const TOKENS = 'console.tokens';
const PENDING = 'console.sign-in';
/** A token this close to its end is refreshed before a call. */
const EARLY_MS = 60_000;

interface Tokens {
  access_token: string;
  id_token?: string;
  refresh_token?: string;
  /** Epoch milliseconds. */
  expires_at: number;
}

interface PendingSignIn {
  state: string;
  verifier: string;
  /** Where the person was going (path and query). */
  returnTo: string;
}

/** Who is signed in, as the ID token names them. */
export interface Person {
  id: string;
  email: string;
  name: string;
}

export class SignInError extends Error {}

const read = <T,>(key: string): T | undefined => {
  const text = sessionStorage.getItem(key);
  return text ? (JSON.parse(text) as T) : undefined;
};

function claimsOf(jwt: string): Record<string, unknown> {
  const payload = jwt.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Record<string, unknown>;
}

export class Session {
  private refreshing: Promise<string | undefined> | undefined;

  constructor(private readonly config: ConsoleConfig) {}

  get signedIn(): boolean {
    return read<Tokens>(TOKENS) !== undefined;
  }

  /** The signed-in person, from the ID token (or the access token's claims). */
  get person(): Person | undefined {
    const tokens = read<Tokens>(TOKENS);
    if (!tokens) return undefined;
    const claims = claimsOf(tokens.id_token ?? tokens.access_token);
    const email = String(claims.email ?? '');
    return { id: String(claims.sub ?? ''), email, name: String(claims.name ?? email) };
  }

  /** Sends the browser to the provider's sign-in; back at the callback, `complete` finishes it. */
  async signIn(returnTo = location.pathname + location.search, prompt?: 'login'): Promise<never> {
    const pending: PendingSignIn = { state: randomToken(16), verifier: randomToken(48), returnTo };
    sessionStorage.setItem(PENDING, JSON.stringify(pending));
    const url = new URL(this.config.auth.authorizeUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.config.auth.clientId,
      redirect_uri: this.redirectUri,
      scope: this.config.auth.scopes,
      state: pending.state,
      code_challenge: await challengeOf(pending.verifier),
      code_challenge_method: 'S256',
      ...(prompt ? { prompt } : {}),
    }).toString();
    location.assign(url.toString());
    return new Promise<never>(() => {});
  }

  /** At the callback: checks the state, redeems the code with the verifier; answers where to go next. */
  async complete(query: URLSearchParams): Promise<string> {
    const pending = read<PendingSignIn>(PENDING);
    sessionStorage.removeItem(PENDING);
    const error = query.get('error');
    if (error) throw new SignInError(`The sign-in was refused: ${query.get('error_description') ?? error}.`);
    const code = query.get('code');
    if (!pending || !code || query.get('state') !== pending.state) {
      throw new SignInError('This sign-in link is stale or was not started here. Sign in again.');
    }
    await this.token({ grant_type: 'authorization_code', code, redirect_uri: this.redirectUri, code_verifier: pending.verifier });
    return pending.returnTo.startsWith('/') && !pending.returnTo.startsWith('//') ? pending.returnTo : '/';
  }

  /** A valid access token, refreshed first when it is about to end; undefined when signed out. */
  async accessToken(): Promise<string | undefined> {
    const tokens = read<Tokens>(TOKENS);
    if (!tokens) return undefined;
    if (tokens.expires_at - EARLY_MS > Date.now()) return tokens.access_token;
    if (!tokens.refresh_token) return this.forget();
    this.refreshing ??= this.token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })
      .then(() => read<Tokens>(TOKENS)?.access_token)
      .catch(() => this.forget())
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Ends the console's session and the provider's, then comes back to the console's start. */
  signOut(): void {
    this.forget();
    const url = new URL(this.config.auth.logoutUrl);
    url.search = new URLSearchParams({ client_id: this.config.auth.clientId, logout_uri: location.origin }).toString();
    location.assign(url.toString());
  }

  /** Forgets the tokens (an expired session, a refused token). */
  forget(): undefined {
    sessionStorage.removeItem(TOKENS);
    return undefined;
  }

  private get redirectUri() {
    return `${location.origin}/callback`;
  }

  private async token(grant: Record<string, string>) {
    const answer = await fetch(this.config.auth.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...grant, client_id: this.config.auth.clientId }).toString(),
    });
    const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
    if (!answer.ok || typeof body.access_token !== 'string') {
      throw new SignInError(`The sign-in could not be completed: ${String(body.error_description ?? body.error ?? `HTTP ${answer.status}`)}.`);
    }
    const previous = read<Tokens>(TOKENS);
    const tokens: Tokens = {
      access_token: body.access_token,
      id_token: typeof body.id_token === 'string' ? body.id_token : previous?.id_token,
      // Cognito's refresh answers no new refresh token: the one we have goes on.
      refresh_token: typeof body.refresh_token === 'string' ? body.refresh_token : previous?.refresh_token,
      expires_at: Date.now() + Number(body.expires_in ?? 3600) * 1000,
    };
    sessionStorage.setItem(TOKENS, JSON.stringify(tokens));
  }
}
