/**
 * Keyset pages over one or more sorted sources (index partitions, or an item collection) that
 * share one sort-key format, e.g. `INCIDENT#<started_at>#<id>` in the owner, team and monitor
 * indexes. Each source is read with one Query of at most `limit + 2` items from the position
 * after the previous page, in parallel; the page is the merge, de-duplicated by sort key.
 *
 * A source that stopped early (it has more) bounds what may be shown: nothing beyond its last
 * examined key, since that source has not been read there yet. So the page never skips an item,
 * and the next page starts exactly after the last item shown. A page costs O(limit) per source.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import { attributes } from './keys.js';
import { PREFIX_END, type IndexShape, type Item } from './ops.js';

export type Order = 'desc' | 'asc';

export interface Source {
  /** The index to read (the table's own keys when omitted). */
  index?: IndexShape;
  partition: string;
  /** Sort-key prefix of the items of this list. */
  prefix: string;
  /** A filter applied by DynamoDB after the key condition (`#name`/`:value` placeholders). */
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
  /** Strongly consistent (table reads only). */
  consistent?: boolean;
}

export interface PageWindow {
  limit: number;
  order: Order;
  /** The sort key of the last item of the previous page (exclusive). */
  after?: string;
  /** Inclusive bounds on what follows the prefix in the sort key (e.g. timestamps). */
  from?: string;
  to?: string;
}

export interface SourceRead {
  items: Item[];
  /** The last key the Query examined when it stopped early (undefined: the source is exhausted). */
  frontier?: string;
  /** The sort-key attribute of this source's items. */
  sortKey: string;
}

/** Reads one source's share of a page: one Query. */
export async function readSource(source: Source, window: PageWindow): Promise<SourceRead> {
  const pk = source.index?.pk ?? attributes.pk;
  const sk = source.index?.sk ?? attributes.sk;
  let low = source.prefix + (window.from ?? '');
  let high = source.prefix + (window.to ?? '') + PREFIX_END;
  if (window.after !== undefined) {
    if (window.order === 'desc' && window.after < high) high = window.after;
    if (window.order === 'asc' && window.after > low) low = window.after;
  }
  if (low > high) return { items: [], sortKey: sk };
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: source.index?.name,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      FilterExpression: source.filter?.expression,
      ExpressionAttributeNames: { '#pk': pk, '#sk': sk, ...source.filter?.names },
      ExpressionAttributeValues: { ':pk': source.partition, ':low': low, ':high': high, ...source.filter?.values },
      ScanIndexForward: window.order === 'asc',
      // One more than a page, and the previous page's last item (the bounds are inclusive).
      Limit: window.limit + 2,
      ConsistentRead: source.consistent,
    }),
  );
  const items = (page.Items ?? []).filter((item) => item[sk] !== window.after);
  const frontier = page.LastEvaluatedKey ? String(page.LastEvaluatedKey[sk]) : undefined;
  return { items, frontier, sortKey: sk };
}

/** Merges the sources' reads into one page; `next` is the position to continue after. */
export function mergePage(reads: SourceRead[], window: PageWindow): { items: Item[]; next?: string } {
  const desc = window.order === 'desc';
  const frontiers = reads.flatMap((read) => (read.frontier === undefined ? [] : [read.frontier]));
  const cutoff = frontiers.length === 0 ? undefined : frontiers.reduce((a, b) => (desc ? (a > b ? a : b) : a < b ? a : b));
  // The same item seen in two scopes (an owner's incident shared with their team) has the same key.
  const byKey = new Map<string, { item: Item; key: string }>();
  for (const read of reads) {
    for (const item of read.items) {
      const key = String(item[read.sortKey]);
      if (cutoff !== undefined && (desc ? key < cutoff : key > cutoff)) continue;
      if (!byKey.has(key)) byKey.set(key, { item, key });
    }
  }
  const sorted = [...byKey.values()].sort((a, b) => (a.key === b.key ? 0 : (a.key < b.key) === desc ? 1 : -1));
  const shown = sorted.slice(0, window.limit);
  const more = sorted.length > window.limit || cutoff !== undefined;
  const next = shown.length > 0 ? shown.at(-1)!.key : cutoff;
  return { items: shown.map((entry) => entry.item), next: more ? next : undefined };
}

/** Reads every source for one page and merges it. */
export async function pageOf(sources: Source[], window: PageWindow) {
  return mergePage(await Promise.all(sources.map((source) => readSource(source, window))), window);
}

/** A filter of attribute equalities (undefined values are left out); undefined when there is none. */
export function equalities(values: Record<string, unknown>, extra: { expression: string; names: Record<string, string>; values: Record<string, unknown> }[] = []) {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const parts = [
    ...entries.map(([name, value], index) => ({ expression: `#f${index} = :f${index}`, names: { [`#f${index}`]: name }, values: { [`:f${index}`]: value } })),
    ...extra,
  ];
  if (parts.length === 0) return undefined;
  return {
    expression: parts.map((part) => part.expression).join(' AND '),
    names: Object.assign({}, ...parts.map((part) => part.names)),
    values: Object.assign({}, ...parts.map((part) => part.values)),
  };
}
