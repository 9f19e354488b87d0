/**
 * Links e-mailed for one use (acknowledging a page, confirming a subscription): a token of 256
 * random bits for the e-mail, kept in the table only as its SHA-256, in a record written with the
 * e-mail's delivery. An expired link's record stays a week longer (its TTL), so the link can say
 * "expired" rather than "not valid".
 */
import { createHash, randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from './clock.js';
import { db, tableName } from './db/client.js';
import { attributes } from './db/keys.js';
import type { TransactItem } from './db/ops.js';

/** 32 random bytes, base64url. */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const RETENTION_AFTER_EXPIRY_SECONDS = 7 * 24 * 60 * 60;

/** What the table keeps of a link's token. */
export const linkTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * A new link: the token for the e-mail, and the record to write with its delivery under
 * `keyOf(hash)`, holding `fields` and its times (`created_at`, `expires_at` after `validityMs`).
 */
export function newEmailedLink(
  keyOf: (tokenHash: string) => Record<string, string>,
  validityMs: number,
  fields: Record<string, unknown>,
  conditionExpression?: string,
): { token: string; record: TransactItem } {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + validityMs);
  return {
    token,
    record: {
      Put: {
        TableName: tableName(),
        Item: {
          ...keyOf(linkTokenHash(token)),
          ...fields,
          created_at: now.toISOString(),
          expires_at: expiresAt.toISOString(),
          [attributes.ttl]: Math.floor(expiresAt.getTime() / 1000) + RETENTION_AFTER_EXPIRY_SECONDS,
        },
        ...(conditionExpression ? { ConditionExpression: conditionExpression } : {}),
      },
    },
  };
}

/**
 * The record of a link e-mailed under `keyOf(hash)`, read consistently (a click follows its e-mail
 * closely); undefined for a token of another shape (no read) or a link never written.
 */
export async function readEmailedLink(keyOf: (tokenHash: string) => Record<string, string>, token: string): Promise<Record<string, unknown> | undefined> {
  if (!LINK_TOKEN_PATTERN.test(token)) return undefined;
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keyOf(linkTokenHash(token)), ConsistentRead: true }));
  return Item;
}
