/**
 * Safe retries of the creating POSTs (`Idempotency-Key`, issue 14). The first request with a key
 * claims it with a conditional write; its answer (status and body) is stored on the claim for 24
 * hours. A repeat with the same key and the same request gets that answer again and creates
 * nothing; the same key with another request is refused; a repeat while the first is still under
 * way waits for its answer, or is told it is in progress. DynamoDB settles the race: of concurrent
 * requests with one key exactly one claims it.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash, randomUUID } from 'node:crypto';
import { clock } from '../clock.js';
import { db, tableName } from '../db/client.js';
import { attributes, keys } from '../db/keys.js';
import { conditionFailure } from '../db/ops.js';
import { ServiceError, ValidationError } from '../errors.js';

/** How long an answer is kept and replayed. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A claim whose request has not answered within this long (longer than any function runs) may be taken over. */
const CLAIM_TIMEOUT_MS = 60_000;
/** How long a repeat waits for the first request's answer before it is told the key is in progress. */
const WAIT_MS = 5_000;
const WAIT_STEP_MS = 50;

export interface StoredAnswer {
  status: number;
  body: string;
}

/** The key as sent: 1–255 printable ASCII characters. */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x20-\x7E]{1,255}$/.test(value)) {
    throw new ValidationError([{ field: 'Idempotency-Key', message: 'Must be 1 to 255 printable ASCII characters' }]);
  }
  return value;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted, so that the same body sent with its fields in another order is the same request. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((name) => `${JSON.stringify(name)}:${canonical((value as Record<string, unknown>)[name])}`)
          .join(',')}}`
      : JSON.stringify(value ?? null);

/** What makes two requests "the same": the route, its path and its body. */
export const requestFingerprint = (route: string, path: string, body: unknown) => sha256(`${route}\n${path}\n${canonical(body)}`);

export class IdempotencyConflict extends ServiceError {
  constructor() {
    super(409, 'Request with this idempotency key is in progress');
  }
}

export class IdempotencyMismatch extends ServiceError {
  constructor() {
    super(422, 'Idempotency key reused with a different request');
  }
}

interface Claim {
  fingerprint: string;
  state: 'in_progress' | 'done';
  claim_id: string;
  claimed_until: number;
  answer?: StoredAnswer;
  expires_at: number;
}

/** The claim this request holds: where it is, and the id that proves it is still this request's. */
export interface HeldClaim {
  itemKey: Record<string, string>;
  claimId: string;
}

export type Outcome = { run: true; held: HeldClaim } | { run: false; answer: StoredAnswer };

/**
 * Claims `key` for this request, or answers what a repeat gets: the stored answer, after waiting
 * for it if the first request is still under way. Throws 422 for another request with the key,
 * 409 when the first does not answer in time.
 */
export async function claim(userId: string, key: string, fingerprint: string): Promise<Outcome> {
  const itemKey = keys.idempotency(userId, sha256(key));
  const now = clock.now().getTime();
  const claimId = randomUUID();
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...itemKey,
          type: 'idempotency_key',
          fingerprint,
          state: 'in_progress',
          claim_id: claimId,
          claimed_until: now + CLAIM_TIMEOUT_MS,
          expires_at: now + IDEMPOTENCY_WINDOW_MS,
          [attributes.ttl]: Math.ceil((now + IDEMPOTENCY_WINDOW_MS) / 1000),
        },
        // Free, expired (TTL deletes late), or abandoned by a request that never answered.
        ConditionExpression: `attribute_not_exists(${attributes.pk}) OR expires_at < :now OR (#state = :in_progress AND claimed_until < :now)`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':now': now, ':in_progress': 'in_progress' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { run: true, held: { itemKey, claimId } };
  } catch (error) {
    const failed = conditionFailure(error);
    if (!failed) throw error;
    return { run: false, answer: await answerOf(itemKey, fingerprint, failed.item as Claim | undefined) };
  }
}

async function answerOf(itemKey: Record<string, string>, fingerprint: string, existing: Claim | undefined): Promise<StoredAnswer> {
  const deadline = Date.now() + WAIT_MS;
  let current = existing;
  for (;;) {
    if (!current) throw new IdempotencyConflict();
    if (current.fingerprint !== fingerprint) throw new IdempotencyMismatch();
    if (current.state === 'done' && current.answer) return current.answer;
    if (Date.now() >= deadline) throw new IdempotencyConflict();
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: itemKey, ConsistentRead: true }));
    current = Item as Claim | undefined;
  }
}

/** The condition of every write a claim's holder makes (placeholder `:claim`). */
const STILL_HELD = 'claim_id = :claim';

/**
 * A write conditioned on the claim still being this request's. If it was taken over (its request
 * ran past the claim timeout), the write is dropped: the work is done either way.
 */
const whileHeld = (write: Promise<unknown>) =>
  write.then(
    () => undefined,
    (error: unknown) => {
      if (!conditionFailure(error)) throw error;
    },
  );

/** Stores the answer of the request that holds the claim. */
export const complete = (held: HeldClaim, answer: StoredAnswer) =>
  whileHeld(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: held.itemKey,
        UpdateExpression: 'SET #state = :done, answer = :answer',
        ConditionExpression: STILL_HELD,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':done': 'done', ':answer': answer, ':claim': held.claimId },
      }),
    ),
  );

/** Gives the claim up (the request failed unexpectedly): a retry runs again. */
export const release = (held: HeldClaim) =>
  whileHeld(
    db().send(
      new DeleteCommand({ TableName: tableName(), Key: held.itemKey, ConditionExpression: STILL_HELD, ExpressionAttributeValues: { ':claim': held.claimId } }),
    ),
  );
