/**
 * The local JWT issuer and the verifier that stands in for API Gateway's JWT authorizer.
 * One RS256 key pair, generated once (kept under `.data/` unless in memory); the JWKS is
 * served like an OIDC issuer's, and tokens are verified exactly as the authorizer does:
 * signature against the JWKS, `iss`, `aud`, `exp`/`nbf`, RS256 only.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import { writePrivateFile } from './private-files.js';

export const LOCAL_AUDIENCE = 'incident-service';
export const TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;

/** A token's verified claims, or why it is refused. */
export type Verification = { claims: JWTPayload } | { refused: string };

export interface TokenSubject {
  sub: string;
  email: string;
  name: string;
}

export class LocalIssuer {
  private readonly verifyKeys: ReturnType<typeof createLocalJWKSet>;
  /**
   * Tokens whose signature verified, with their claims (oldest first, at most VERIFIED_TOKENS):
   * jose's RS256 check costs about 0.4 ms, a fifth of a local GET, and a client sends its token
   * with every request. The key pair never changes while the runtime runs.
   */
  private readonly verified = new Map<string, JWTPayload>();

  /** The issuer's identifier (`iss`), once it is known: the API's own origin, set once it listens (`serveAt`). */
  private origin: string | undefined;

  private constructor(
    origin: string | undefined,
    readonly audience: string,
    private readonly privateKey: Awaited<ReturnType<typeof importJWK>>,
    private readonly publicJwk: JWK,
  ) {
    this.origin = origin;
    this.verifyKeys = createLocalJWKSet(this.jwks());
  }

  /** The issuer's identifier, the `iss` of its tokens. */
  get issuer(): string {
    if (this.origin === undefined) throw new Error('The local issuer has no identifier yet: it is the API\'s origin, set once the API listens');
    return this.origin;
  }

  /** Names the issuer after the origin it is served from (the API's, known once it listens: PORT=0 picks the port). */
  serveAt(origin: string) {
    this.origin = origin;
    this.verified.clear();
  }

  /**
   * Loads the key pair from `keyFile`, generating it on first use; no file = in memory. Without an
   * `issuer`, it is named by `serveAt` before it signs or verifies anything.
   */
  static async create(options: { issuer?: string; audience?: string; keyFile?: string }): Promise<LocalIssuer> {
    let privateJwk: JWK;
    if (options.keyFile && existsSync(options.keyFile)) {
      privateJwk = JSON.parse(readFileSync(options.keyFile, 'utf8')) as JWK;
    } else {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      privateJwk = await exportJWK(privateKey);
      privateJwk.kid = await calculateJwkThumbprint(privateJwk);
      if (options.keyFile) {
        writePrivateFile(options.keyFile, JSON.stringify(privateJwk));
      }
    }
    const { d, p, q, dp, dq, qi, ...publicJwk } = privateJwk;
    void [d, p, q, dp, dq, qi];
    const privateKey = await importJWK(privateJwk, 'RS256');
    return new LocalIssuer(options.issuer, options.audience ?? LOCAL_AUDIENCE, privateKey, {
      ...publicJwk,
      alg: 'RS256',
      use: 'sig',
    });
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  /**
   * An access token for the subject, valid `lifetimeSeconds` (24 h by default); `extra` claims (the
   * sign-in's client and scope) are added to the ones the API reads.
   */
  async sign(subject: TokenSubject, lifetimeSeconds = TOKEN_LIFETIME_SECONDS, extra: JWTPayload = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return this.signPayload({
      ...extra,
      email: subject.email,
      name: subject.name,
      iss: this.issuer,
      aud: this.audience,
      sub: subject.sub,
      iat: now,
      nbf: now,
      exp: now + lifetimeSeconds,
      jti: randomUUID(),
    });
  }

  /** Signs exactly `payload` with the issuer's key (tests use it to forge bad claims). */
  signPayload(payload: JWTPayload): Promise<string> {
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.publicJwk.kid }).sign(this.privateKey);
  }

  /**
   * The verified claims, or why the token is refused, in the words API Gateway's JWT authorizer
   * puts in its `www-authenticate` header's `error_description`. A token verified before is
   * answered at once, not through a promise.
   */
  verify(token: string): Verification | Promise<Verification> {
    const known = this.verified.get(token);
    if (known) {
      // The same token's signature, issuer and audience check out the same way every time; only
      // its time claims can turn (jose's checks, to the second, without tolerance).
      const now = Math.floor(Date.now() / 1000);
      if (known.exp! <= now) return { refused: 'the token has expired' };
      if (typeof known.nbf === 'number' && known.nbf > now) return { refused: 'the token is not valid yet' };
      return { claims: known };
    }
    return this.verifySignature(token);
  }

  /**
   * The claims of a token this issuer signed for `audience` (another than the API's: a client's ID or
   * refresh token), or undefined when it is not one: signature, issuer, audience and time, as `verify`.
   */
  async verifyFor(token: string, audience: string): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.verifyKeys, { issuer: this.issuer, audience, algorithms: ['RS256'], requiredClaims: ['exp'] });
      return payload;
    } catch {
      return undefined;
    }
  }

  /** jose's full check of a token not verified before; remembered when it passes. */
  private async verifySignature(token: string): Promise<Verification> {
    try {
      const { payload } = await jwtVerify(token, this.verifyKeys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: ['RS256'],
        requiredClaims: ['exp'],
      });
      if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, payload);
      return { claims: payload };
    } catch (error) {
      return { refused: refusal(error) };
    }
  }
}

const VERIFIED_TOKENS = 1_000;

/** jose's reason for refusing a token, as API Gateway words it. */
function refusal(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token does not have a valid audience';
    if (error.claim === 'iss') return 'the token does not have a valid issuer';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token's ${error.claim} claim is missing or invalid`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) return 'the token is not signed with RS256';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey) return 'the token has an invalid signature';
  return 'the token is malformed';
}
