import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from './client.js';
import { attributes, ownerIndex } from './keys.js';

export type Item = Record<string, unknown>;
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One Query, following `LastEvaluatedKey` until the result is complete. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * The upper bound of a sort-key prefix range: every key of the service is ASCII (ids, ISO times,
 * lower-cased e-mails), so `prefix <= sk <= prefix + HIGHEST` is exactly `begins_with(sk, prefix)`.
 */
export const PREFIX_END = '\uffff';

/**
 * A prefix as a `BETWEEN` range rather than `begins_with`: DynamoDB Local answers `begins_with` in time
 * that grows with the partition's other items (a Query for one membership among 10,000 incidents took
 * 2.5× the time it took among 100, with ScannedCount 1 both times), `BETWEEN` in time that does not;
 * on DynamoDB both are a range read. `sk` and `value` name the attribute and the value placeholder.
 */
export const prefixCondition = (sk: string, value: string) => `${sk} BETWEEN ${value} AND ${value}_end`;
export const prefixValues = (value: string, prefix: string) => ({ [value]: prefix, [`${value}_end`]: `${prefix}${PREFIX_END}` });

/**
 * Every item of one item collection (strongly consistent), optionally only some attributes, or
 * only those whose sort key starts with `prefix`, or sorts before `below`.
 */
export function queryCollection(partition: string, projection?: string[], prefix?: string, below?: string): Promise<Item[]> {
  const names = Object.fromEntries((projection ?? []).map((name, index) => [`#p${index}`, name]));
  const range = prefix ? ` AND ${prefixCondition('#sk', ':prefix')}` : below ? ' AND #sk < :below' : '';
  return queryAll({
    KeyConditionExpression: `#pk = :pk${range}`,
    ExpressionAttributeNames: { '#pk': attributes.pk, ...(range ? { '#sk': attributes.sk } : {}), ...names },
    ExpressionAttributeValues: { ':pk': partition, ...(prefix ? prefixValues(':prefix', prefix) : below ? { ':below': below } : {}) },
    ProjectionExpression: projection ? Object.keys(names).join(', ') : undefined,
    ConsistentRead: true,
  });
}

/** An index to query by partition and sort-key prefix (the owner, team and monitor indexes of `keys.ts`). */
export interface IndexShape {
  name: string;
  pk: string;
  sk: string;
}

/**
 * The items of one index partition whose sort key starts with `prefix`, newest first,
 * optionally filtered by attribute equality (e.g. `{ severity: 'HIGH' }`).
 */
export function queryIndex(
  index: IndexShape,
  partition: string,
  prefix: string,
  filter: Record<string, unknown> = {},
): Promise<Item[]> {
  const filters = Object.entries(filter).filter(([, value]) => value !== undefined);
  return queryAll({
    IndexName: index.name,
    KeyConditionExpression: `#pk = :pk AND ${prefixCondition('#sk', ':prefix')}`,
    FilterExpression: filters.length ? filters.map((_, i) => `#f${i} = :f${i}`).join(' AND ') : undefined,
    ExpressionAttributeNames: {
      '#pk': index.pk,
      '#sk': index.sk,
      ...Object.fromEntries(filters.map(([name], i) => [`#f${i}`, name])),
    },
    ExpressionAttributeValues: {
      ':pk': partition,
      ...prefixValues(':prefix', prefix),
      ...Object.fromEntries(filters.map(([, value], i) => [`:f${i}`, value])),
    },
    ScanIndexForward: false,
  });
}

/** One owner's items of one kind on the owner index, newest first (see `queryIndex`). */
export const queryOwnerIndex = (ownerId: string, prefix: string, filter: Record<string, unknown> = {}) =>
  queryIndex(ownerIndex, ownerIndex.partition(ownerId), prefix, filter);

const unmarshallItem = (item: Record<string, AttributeValue> | undefined): Item | undefined =>
  item ? unmarshall(item) : undefined;

/**
 * A failed condition of a single write. With `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`
 * the item as it was is returned (undefined when it did not exist).
 */
export function conditionFailure(error: unknown): { item: Item | undefined } | undefined {
  if (error instanceof ConditionalCheckFailedException) {
    return { item: unmarshallItem(error.Item) };
  }
  return undefined;
}

/** A transaction refused only because another one held its items (`transactWrite` with `conflictRetryMs: 0`). */
export const conflicted = (error: unknown) =>
  error instanceof TransactionCancelled && error.reasons.some((reason) => reason.code === 'TransactionConflict') && !error.reasons.some((reason) => reason.code === 'ConditionalCheckFailed');

export interface CancellationReason {
  code: string;
  item: Item | undefined;
}

/** A transaction that DynamoDB cancelled; `reasons` has one entry per action, in order. */
export class TransactionCancelled extends Error {
  constructor(readonly reasons: CancellationReason[]) {
    super(`Transaction cancelled: ${reasons.map((r) => r.code).join(', ')}`);
    this.name = 'TransactionCancelled';
  }
}

/**
 * How long a transaction keeps retrying conflicts with concurrent transactions on its items: the
 * competing writes finish in milliseconds, but fifty writers to one item (a busy monitor, a busy
 * incident) on a loaded machine can keep one loser waiting for seconds. Well within a request
 * function's 10 s timeout; a loser that runs out answers 500, as a real failure should.
 */
export const CONFLICT_RETRY_MS = 6_000;

/**
 * Sends a write, sending it again while `conflicted(error)`: DynamoDB refused it because a concurrent
 * transaction holds one of its items (nothing decided yet; the competing write decides the outcome on
 * the next try). With jittered backoff, for up to `CONFLICT_RETRY_MS`; then, or on any other error,
 * throws that error.
 */
async function retryingConflicts<T>(send: () => Promise<T>, conflicted: (error: unknown) => boolean, retryMs = CONFLICT_RETRY_MS): Promise<T> {
  const deadline = performance.now() + retryMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!conflicted(error) || performance.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20 * attempt, 200)));
    }
  }
}

/**
 * Sends a single-item write (`db().send(new UpdateCommand(…))`, a Put, a Delete), retrying it as
 * `transactWrite` retries its conflicts: a single write to an item a transaction is writing fails with
 * `TransactionConflictException`, which the SDK does not retry. Needed where transactions and single
 * writes share items (an integration key's lookup, an alert incident's count: `alerts/ingest.ts`).
 */
export const sendWrite = <T>(send: () => Promise<T>): Promise<T> =>
  retryingConflicts(send, (error) => error instanceof Error && error.name === 'TransactionConflictException');

const cancellationReasons = (error: TransactionCanceledException): CancellationReason[] =>
  (error.CancellationReasons ?? []).map((reason) => ({ code: reason.Code ?? 'None', item: unmarshallItem(reason.Item) }));

/**
 * Runs a write transaction. Conflicts with a concurrent transaction on the same items are
 * retried with jittered backoff (the competing write decides the outcome on the next try) for up
 * to `CONFLICT_RETRY_MS`; failed conditions surface as `TransactionCancelled` with the per-action
 * reasons. `conflictRetryMs: 0`: a conflict is not retried but surfaces as `TransactionCancelled` with
 * a `TransactionConflict` reason (`conflicted`), for a caller with a cheaper way round it.
 */
export async function transactWrite(
  transactItems: NonNullable<TransactWriteCommandInput['TransactItems']>,
  options: { conflictRetryMs?: number } = {},
): Promise<void> {
  const onlyConflicts = (error: unknown) => {
    if (!(error instanceof TransactionCanceledException)) return false;
    const codes = cancellationReasons(error).map((reason) => reason.code);
    return codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
  };
  try {
    await retryingConflicts(() => db().send(new TransactWriteCommand({ TransactItems: transactItems })), onlyConflicts, options.conflictRetryMs);
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    throw new TransactionCancelled(cancellationReasons(error));
  }
}

export interface UpdateSpec {
  /** Attributes to set; `undefined` values are skipped. */
  set?: Record<string, unknown>;
  /** `SET name = if_not_exists(name, value)`: keeps an existing value. */
  setIfAbsent?: Record<string, unknown>;
  remove?: string[];
  /** Condition expression using `#name` / `:name` placeholders given in `names` / `values`. */
  condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

/** Builds an UpdateItem expression with placeholders for every attribute name and value. */
export function updateExpression(spec: UpdateSpec) {
  const names: Record<string, string> = { ...spec.condition?.names };
  const values: Record<string, unknown> = { ...spec.condition?.values };
  const sets: string[] = [];
  for (const [attribute, value] of Object.entries(spec.set ?? {})) {
    if (value === undefined) continue;
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    sets.push(`#${attribute} = :${attribute}`);
  }
  for (const [attribute, value] of Object.entries(spec.setIfAbsent ?? {})) {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    sets.push(`#${attribute} = if_not_exists(#${attribute}, :${attribute})`);
  }
  const removes = (spec.remove ?? []).map((attribute) => {
    names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  });
  const clauses = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''];
  return {
    UpdateExpression: clauses.filter(Boolean).join(' '),
    ConditionExpression: spec.condition?.expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
  };
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));

/** A jittered wait before trying again after losing a race or being throttled: up to 25 ms · 2^attempt, at most 1 s. */
export const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt) * Math.random()));

/** Strongly consistent BatchGetItem, 100 keys a call, retrying unprocessed keys. */
export async function batchGet(keys: Record<string, unknown>[]): Promise<Item[]> {
  const found: Item[] = [];
  for (const chunk of chunks(keys, 100)) found.push(...(await batchGetChunk(chunk)));
  return found;
}

async function batchGetChunk(keys: Record<string, unknown>[]): Promise<Item[]> {
  const found: Item[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const { Responses, UnprocessedKeys } = await db().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[tableName()] ?? []));
    pending = UnprocessedKeys?.[tableName()]?.Keys ?? [];
  }
  return found;
}

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/**
 * BatchWriteItem, 25 requests a call and a few calls at once, retrying unprocessed requests
 * with backoff until every one is done.
 */
export async function batchWrite(requests: WriteRequest[], concurrency = 4): Promise<void> {
  const queue = chunks(requests, 25);
  const worker = async () => {
    for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
      let pending = chunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await backoff(attempt);
        const { UnprocessedItems } = await db().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
        );
        pending = (UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export const batchDelete = (keys: Item[]) => batchWrite(keys.map((key) => ({ DeleteRequest: { Key: key } })));

/** Strongly consistent reads of several items by key, in one BatchGetItem. */
export async function getByKeys<const K extends Record<string, Record<string, string>>>(
  wanted: K,
): Promise<{ [name in keyof K]: Item | undefined }> {
  const found = await batchGet(Object.values(wanted));
  const same = (item: Item, key: Record<string, string>) => item[attributes.pk] === key[attributes.pk] && item[attributes.sk] === key[attributes.sk];
  return Object.fromEntries(
    Object.entries(wanted).map(([name, key]) => [name, found.find((item) => same(item, key))]),
  ) as { [name in keyof K]: Item | undefined };
}


/**
 * Runs a transaction of named actions; when a condition fails, answers the name of the first
 * action whose condition failed (so callers map it to their error), else `ok`.
 */
export async function transactNamed<N extends string>(actions: (readonly [N, TransactItem])[]): Promise<N | 'ok'> {
  return (await transactOutcome(actions)).outcome;
}

/**
 * `transactNamed`, also answering the item as it was when the failed action asked for it
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), e.g. a membership whose role fell short.
 */
export async function transactOutcome<N extends string>(
  actions: (readonly [N, TransactItem])[],
  options: { conflictRetryMs?: number } = {},
): Promise<{ outcome: N | 'ok'; item?: Item }> {
  try {
    await transactWrite(actions.map(([, item]) => item), options);
    return { outcome: 'ok' };
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    const failed = error.reasons.findIndex((reason) => reason.code === 'ConditionalCheckFailed');
    if (failed < 0) throw error;
    return { outcome: actions[failed]![0], item: error.reasons[failed]!.item };
  }
}

/**
 * Deletes every item of an item collection, and for each item that holds a lookup token (an
 * attribute named in `lookups`), the lookup item `lookups[attribute](token, item)` too (none when it
 * answers undefined; `item` holds the lookup attributes). `before` sees the items (with `attributes`
 * too) before they go.
 */
export async function purgeCollection(
  partition: string,
  lookups: Record<string, (token: string, item: Item) => Record<string, string> | undefined>,
  options: { attributes?: string[]; before?: (items: Item[]) => Promise<void> } = {},
): Promise<number> {
  const tokenAttributes = Object.keys(lookups);
  const items = await queryCollection(partition, [attributes.pk, attributes.sk, ...tokenAttributes, ...(options.attributes ?? [])]);
  await options.before?.(items);
  const doomed: Record<string, string>[] = [];
  for (const item of items) {
    doomed.push({ [attributes.pk]: String(item[attributes.pk]), [attributes.sk]: String(item[attributes.sk]) });
    for (const tokenAttribute of tokenAttributes) {
      const token = item[tokenAttribute];
      const lookup = typeof token === 'string' ? lookups[tokenAttribute]!(token, item) : undefined;
      if (lookup) doomed.push(lookup);
    }
  }
  await batchDelete(doomed);
  return doomed.length;
}
