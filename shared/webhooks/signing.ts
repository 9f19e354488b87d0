/**
 * Signing outgoing webhooks as the Standard Webhooks specification says, so a receiver verifies
 * them with an off-the-shelf library (npm `standardwebhooks`, Svix's libraries and others):
 *
 * - `webhook-id`: the message's id, the same on every attempt and redelivery of one message;
 * - `webhook-timestamp`: the attempt's time, integer Unix seconds;
 * - `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the
 *   secret's decoded bytes; several such entries, space-separated, while a rotated-out secret is
 *   within its 24-hour overlap (each one alone verifies).
 *
 * A secret is `whsec_` + base64 of 32 random bytes. It is shown once (on create or rotation) and
 * never logged: nothing here prints or puts it into an error text.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { clock } from '../platform/clock.js';
import { nameBasedUuid, timeOrderedUuid } from '../platform/ids.js';

export const SECRET_PREFIX = 'whsec_';
/** Random bytes in a secret (the specification allows 24-64). */
export const SECRET_BYTES = 32;
/** How long a rotated-out secret still signs, beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The namespace of message ids derived from a webhook and an event. */
const MESSAGE_NAMESPACE = '6b1f0c2e-94d3-5a7e-8c41-2f9e7d3a0b58';

/** `whsec_` and canonical base64 (the length a multiple of 4). */
const SECRET_PATTERN = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The key bytes of a secret: `whsec_` + base64 of 24-64 bytes, as the specification allows (ours
 * have 32). A malformed secret is a programming error; the error's text never names the secret.
 */
export function secretKey(secret: string): Buffer {
  const match = SECRET_PATTERN.exec(secret);
  const key = match ? Buffer.from(match[1]!, 'base64') : undefined;
  if (!key || key.length < 24 || key.length > 64) throw new Error('Malformed webhook secret');
  return key;
}

/**
 * The id of the message carrying one event to one webhook: derived from both, so a redelivered
 * event (the bus delivers at least once) and every retry carry the same `webhook-id`, by which
 * receivers deduplicate. The specification forbids `.` in it (it separates the signed parts).
 */
export function messageId(webhookId: string, eventId: string): string {
  return `msg_${nameBasedUuid(MESSAGE_NAMESPACE, `${webhookId}/${eventId}`)}`;
}

/** A fresh message id, for a message that stands for no event (a `ping`). */
export function newMessageId(): string {
  return `msg_${timeOrderedUuid()}`;
}

/** A webhook's secrets: the current one, and the one it replaced while that one is within its overlap. */
export interface WebhookSecrets {
  secret: string;
  previous?: { secret: string; rotated_at: string } | null;
}

/** The secrets that sign a message at `now`: the current one first, then the rotated-out one for 24 hours after rotation. */
export function signingSecrets(secrets: WebhookSecrets, now: Date = clock.now()): string[] {
  const previous = secrets.previous;
  if (previous && now.getTime() < Date.parse(previous.rotated_at) + ROTATION_OVERLAP_MS) return [secrets.secret, previous.secret];
  return [secrets.secret];
}

/** One `v1,<base64>` signature of `id.timestamp.body`. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** A type, not an interface, so it passes where a header record is asked for (`deliver`). */
export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * The three Standard Webhooks headers of one attempt. `body` must be the exact text sent (the
 * signature covers its UTF-8 bytes); `secrets` holds at least one secret, each adding a signature.
 */
export function signatureHeaders(input: { id: string; body: string; secrets: readonly string[]; at?: Date }): SignatureHeaders {
  const { id, body, secrets } = input;
  if (id.length === 0 || id.includes('.')) throw new Error('A webhook message id must be non-empty and contain no "."');
  if (secrets.length === 0) throw new Error('A webhook message needs at least one signing secret');
  const timestamp = Math.floor((input.at ?? clock.now()).getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}
