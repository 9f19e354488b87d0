/**
 * Integration keys: the credential a monitoring tool sends its alerts with (`routing_key` of an
 * Events API v2 event, or the `Authorization` header of a webhook). A key is 32 characters of
 * `[a-z0-9]`, the length of PagerDuty's routing keys, so tools that check the length accept ours.
 * The table keeps only its SHA-256 and its last 4 characters (the hint a list shows); the key
 * itself is shown once, when it is created.
 */
import { createHash, randomBytes } from 'node:crypto';

export const INTEGRATION_KEY_LENGTH = 32;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** The largest multiple of the alphabet's size that fits a byte: bytes at or above it are drawn again. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);
const KEY_PATTERN = /^[a-z0-9]{32}$/;

/** A fresh key: 32 characters, each drawn uniformly from `[a-z0-9]` (about 165 bits). */
export function newIntegrationKey(): string {
  let key = '';
  while (key.length < INTEGRATION_KEY_LENGTH) {
    for (const byte of randomBytes(INTEGRATION_KEY_LENGTH)) {
      // 252 = 36 × 7: a byte below it maps to each character exactly 7 times.
      if (byte < UNBIASED_BELOW && key.length < INTEGRATION_KEY_LENGTH) key += ALPHABET[byte % ALPHABET.length];
    }
  }
  return key;
}

/** Whether a string can be one of our keys at all (anything else is refused without a read). */
export const isIntegrationKeyShaped = (value: string): boolean => KEY_PATTERN.test(value);

/** What the table keeps of a key: its SHA-256, lower-case hex. */
export const integrationKeyHash = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The last 4 characters, which lists show so a person can tell keys apart. */
export const integrationKeyHint = (key: string): string => key.slice(-4);

export type AuthorizationKey =
  | { ok: true; key: string }
  | { ok: false; reason: 'missing' | 'unsupported scheme' | 'malformed' };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key a webhook request carries in `Authorization`: `Bearer <key>`, or Basic auth whose
 * password is the key (the user name is ignored: tools make one mandatory, and it names nothing
 * here). Schemes are matched without regard to case (RFC 9110 §11.1). Whether the key is known is
 * for the caller to find out; this only takes it out of the header.
 */
export function keyFromAuthorization(header: string | undefined): AuthorizationKey {
  const value = header?.trim();
  if (!value) return { ok: false, reason: 'missing' };
  const match = /^([A-Za-z]+) +(\S+)$/.exec(value);
  if (!match) return { ok: false, reason: 'malformed' };
  const scheme = match[1]!.toLowerCase();
  const credentials = match[2]!;
  if (scheme === 'bearer') return { ok: true, key: credentials };
  if (scheme !== 'basic') return { ok: false, reason: 'unsupported scheme' };
  if (!BASE64.test(credentials) || credentials.length % 4 !== 0) return { ok: false, reason: 'malformed' };
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  // RFC 7617: the user-id cannot contain a colon; the password may.
  const colon = decoded.indexOf(':');
  if (colon < 0) return { ok: false, reason: 'malformed' };
  const password = decoded.slice(colon + 1);
  return password ? { ok: true, key: password } : { ok: false, reason: 'malformed' };
}

/** The 429 of a key past its rate (webhook notifications, heartbeat pings): the API's own form, `{"message"}` with `Retry-After`. */
export const KEY_RATE_MESSAGE = 'Too many requests for this integration key';
