/**
 * A person's short reply codes (issue 43 §4): the `12` of `[12] CRITICAL …, reply 12a to acknowledge`.
 * Each person has their own numbers: the lowest n ≥ 1 that is free — never allocated, or naming an
 * incident now resolved (or gone) — is allocated to an incident the first time a message to them
 * needs one, and kept for it while it stays open. So the codes stay small: as many as the person's
 * incidents open at once.
 *
 * Items: `USER#<uid>` / `REPLY#<n>` → `{ incident_id, allocated_at }` (what a reply `<n>a` names), and
 * the reverse `REPLYCODE#<incidentId>#<uid>` / `REPLYCODE` → `{ code }` (outside the incident's
 * partition, which `getIncidentCollection` reads whole). Allocation is one transaction: the code's
 * item on the condition that it is absent or still names the resolved incident that was read, with
 * the reverse item on the condition that it is absent or still says what was read. A lost race reads
 * again.
 */
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { attributes, keys } from '../platform/db/keys.js';
import { batchGet, getByKeys, queryCollection, transactOutcome, type Item } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';

const REPLY_PREFIX = 'REPLY#';

/** The number of a `REPLY#<n>` sort key. */
const codeOf = (item: Item) => Number(String(item[attributes.sk]).slice(REPLY_PREFIX.length));

/** The person's code for the incident, allocated the first time (see the module's comment). */
export function replyCodeFor(userId: string, incidentId: string): Promise<number> {
  return retryOnConflict(
    () => tryAllocate(userId, incidentId),
    (attempts) => `Reply code of ${userId} for incident ${incidentId}: kept racing; gave up after ${attempts} attempts`,
  );
}

async function tryAllocate(userId: string, incidentId: string): Promise<number | undefined> {
  const reverseKey = keys.incidentReplyCode(incidentId, userId);
  const { reverse } = await getByKeys({ reverse: reverseKey });
  const held = typeof reverse?.code === 'number' ? reverse.code : undefined;
  const codes = await queryCollection(`USER#${userId}`, [attributes.sk, 'incident_id'], REPLY_PREFIX);
  const byCode = new Map(codes.map((item) => [codeOf(item), String(item.incident_id)]));
  // Still its own (a code given away once the incident resolved, and the incident reopened since, is not).
  if (held !== undefined && byCode.get(held) === incidentId) return held;
  const open = await openIncidents([...new Set(byCode.values())]);
  let code = 1;
  while (byCode.has(code) && open.has(byCode.get(code)!)) code++;
  const previous = byCode.get(code);
  const now = clock.nowIso();
  const { outcome } = await transactOutcome<'raced'>([
    [
      'raced',
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.replyCode(userId, code), type: 'reply_code', user_id: userId, incident_id: incidentId, allocated_at: now },
          ...(previous === undefined
            ? { ConditionExpression: `attribute_not_exists(${attributes.pk})` }
            : { ConditionExpression: 'incident_id = :previous', ExpressionAttributeValues: { ':previous': previous } }),
        },
      },
    ],
    [
      'raced',
      {
        Put: {
          TableName: tableName(),
          Item: { ...reverseKey, type: 'reply_code_of', user_id: userId, incident_id: incidentId, code },
          ...(held === undefined
            ? { ConditionExpression: `attribute_not_exists(${attributes.pk})` }
            : { ConditionExpression: 'code = :held', ExpressionAttributeValues: { ':held': held } }),
        },
      },
    ],
  ]);
  return outcome === 'ok' ? code : undefined;
}

/** Of these incidents, those that exist and are not resolved. */
async function openIncidents(incidentIds: string[]): Promise<Set<string>> {
  if (incidentIds.length === 0) return new Set();
  const items = await batchGet(incidentIds.map((id) => keys.incident(id)));
  return new Set(items.filter((item) => item.status !== 'RESOLVED').map((item) => String(item.id)));
}

/** The open incident the person's code names, if any (a code whose incident resolved names nothing). */
export async function incidentForReplyCode(userId: string, code: number): Promise<string | undefined> {
  if (!Number.isInteger(code) || code < 1) return undefined;
  const { slot } = await getByKeys({ slot: keys.replyCode(userId, code) });
  if (typeof slot?.incident_id !== 'string') return undefined;
  const open = await openIncidents([slot.incident_id]);
  return open.has(slot.incident_id) ? slot.incident_id : undefined;
}
