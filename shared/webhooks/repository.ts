/**
 * Webhook items. A webhook is indexed where its scope's incidents are found at delivery time, so
 * that finding the webhooks of one incident is three Queries, never a Scan, and where whoever may
 * read its monitor lists it:
 * - a monitor's webhook: the monitor index (`MONITOR#<id>`, `WEBHOOK#…`), its monitor's owner's
 *   owner index, and while the monitor is in a team, that team's index (`monitor_team_id`,
 *   `monitor_team_seq`: the monitor's move it reflects; the rescoper moves it with the monitor);
 * - a team's webhook: the team index (`TEAM#<id>`, `WEBHOOK#…`, `scope = team`);
 * - an owner's webhook (all their monitors): the owner index (`OWNER#<id>`, `WEBHOOK#…`, `scope = owner`).
 * Never the creator's own index for another's monitor: a creator who leaves the team stops seeing it.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { itemAbsent, itemPresent, keys, monitorIndex, ownerIndex, teamIndex } from '../platform/db/keys.js';
import { conditionFailure, queryIndex, transactOutcome, updateExpression, type TransactItem, type UpdateSpec } from '../platform/db/ops.js';
import type { Source } from '../platform/db/pagination.js';
import { webhookItem, type Webhook } from './model.js';

export type WebhookScope = 'monitor' | 'team' | 'owner';
export const scopeOfWebhook = (webhook: Pick<Webhook, 'monitor_id' | 'team_id'>): WebhookScope =>
  webhook.monitor_id ? 'monitor' : webhook.team_id ? 'team' : 'owner';

/** Where a monitor's webhook is listed: its monitor's owner, and its monitor's team (as of the monitor's `team_seq`). */
export interface MonitorPlace {
  owner_id: string;
  team_id: string | null;
  team_seq: number;
}

/** The team index entry of a monitor webhook while its monitor is in a team. */
const monitorTeamAttributes = (webhook: Pick<Webhook, 'id' | 'created_at'>, place: MonitorPlace) =>
  place.team_id ? { ...teamIndex.webhook(place.team_id, webhook.created_at, webhook.id), monitor_team_id: place.team_id } : {};

const webhookAttributes = (webhook: Webhook, place?: MonitorPlace) => {
  const scope = scopeOfWebhook(webhook);
  return {
    ...keys.webhook(webhook.id),
    ...(scope === 'team'
      ? teamIndex.webhook(webhook.team_id!, webhook.created_at, webhook.id)
      : ownerIndex.webhook(scope === 'monitor' ? place!.owner_id : webhook.owner_id, webhook.created_at, webhook.id)),
    ...(scope === 'monitor' ? { ...monitorIndex.webhook(webhook.monitor_id!, webhook.created_at, webhook.id), ...monitorTeamAttributes(webhook, place!), monitor_team_seq: place!.team_seq } : {}),
    type: 'webhook',
    scope,
    ...webhook,
  };
};

/** At most this many webhooks per monitor, per team (its team webhooks) and per account (its own webhooks). */
export const WEBHOOK_LIMITS: Record<WebhookScope, number> = { monitor: 10, team: 50, owner: 50 };

/** The counter of the webhook's scope (the monitor, the team, the owner's own). */
const countKey = (webhook: Pick<Webhook, 'monitor_id' | 'team_id' | 'owner_id'>) => {
  const scope = scopeOfWebhook(webhook);
  return keys.webhookCount(scope, scope === 'monitor' ? webhook.monitor_id! : scope === 'team' ? webhook.team_id! : webhook.owner_id);
};

/** One more webhook in its scope, refused (with the counter as it was) once the scope holds its limit. */
const countOneMore = (webhook: Webhook): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: countKey(webhook),
    UpdateExpression: 'SET #type = :type, #count = if_not_exists(#count, :zero) + :one',
    ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
    ExpressionAttributeNames: { '#type': 'type', '#count': 'count' },
    ExpressionAttributeValues: { ':type': 'webhook_count', ':zero': 0, ':one': 1, ':max': WEBHOOK_LIMITS[scopeOfWebhook(webhook)] },
  },
});

/** One webhook fewer in its scope (a webhook created before the limits existed has no counter: it starts from 1). */
const countOneLess = (webhook: Webhook): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: countKey(webhook),
    UpdateExpression: 'SET #type = :type, #count = if_not_exists(#count, :one) - :one',
    ExpressionAttributeNames: { '#type': 'type', '#count': 'count' },
    ExpressionAttributeValues: { ':type': 'webhook_count', ':one': 1 },
  },
});

/** A guard a write carries: the outcome it stands for when its condition fails, and the action. */
export type Guard<O extends string> = readonly (readonly [O, TransactItem])[];

/**
 * Writes the new webhook with the guards of its scope (the caller's rights, checked at write time)
 * and counts it in its scope (`limit` when the scope is full). A monitor's webhook is listed where
 * `place` (the monitor as read, which a guard holds to) says.
 */
export function insertWebhook<O extends string>(webhook: Webhook, guards: Guard<O>, place: MonitorPlace | undefined, audit: TransactItem) {
  return transactOutcome<O | 'limit' | 'conflict'>([
    ['conflict', audit],
    ...guards,
    ['limit', countOneMore(webhook)],
    ['conflict', { Put: { TableName: tableName(), Item: webhookAttributes(webhook, place), ConditionExpression: itemAbsent } }],
  ]);
}

export async function getWebhook(webhookId: string): Promise<Webhook | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhook(webhookId), ConsistentRead: true }));
  return Item ? webhookItem.parse(Item) : undefined;
}

/** Changes the webhook (still as read: `updated_at`) with the guards of its scope. */
export function changeWebhook<O extends string>(current: Webhook, spec: UpdateSpec, guards: Guard<O>, audit: TransactItem) {
  const condition = {
    expression: `${itemPresent} AND #was_updated = :was_updated${spec.condition ? ` AND ${spec.condition.expression}` : ''}`,
    names: { '#was_updated': 'updated_at', ...spec.condition?.names },
    values: { ':was_updated': current.updated_at, ...spec.condition?.values },
  };
  return transactOutcome<O | 'changed'>([
    ['changed', audit],
    ...guards,
    ['changed', { Update: { TableName: tableName(), Key: keys.webhook(current.id), ...updateExpression({ ...spec, condition }) } }],
  ]);
}

/**
 * Disables the webhook for `reason`, while it is enabled with the same creator, on `checks` of the
 * same transaction (`changed` when any fails). `updated_at` moves, so a PUT that read it before
 * reads it again.
 */
export function disableWebhook(current: Webhook, reason: string, now: string, checks: TransactItem[]) {
  return transactOutcome<'changed'>([
    ...checks.map((check) => ['changed', check] as const),
    [
      'changed',
      {
        Update: {
          TableName: tableName(),
          Key: keys.webhook(current.id),
          ...updateExpression({
            set: { status: 'disabled', disabled_reason: reason, updated_at: now },
            condition: { expression: `${itemPresent} AND #status = :enabled AND owner_id = :creator`, names: { '#status': 'status' }, values: { ':enabled': 'enabled', ':creator': current.owner_id } },
          }),
        },
      },
    ],
  ]);
}

/** Deletes the webhook (still as read) with the guards of its scope, and uncounts it; its messages expire with their TTL. */
export function deleteWebhook<O extends string>(current: Webhook, guards: Guard<O>, audit: TransactItem) {
  return transactOutcome<O | 'changed'>([
    ['changed', audit],
    ...guards,
    ['changed', countOneLess(current)],
    [
      'changed',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.webhook(current.id),
          ConditionExpression: `${itemPresent} AND #was_updated = :was_updated`,
          ExpressionAttributeNames: { '#was_updated': 'updated_at' },
          ExpressionAttributeValues: { ':was_updated': current.updated_at },
        },
      },
    ],
  ]);
}

/** Where a list page of webhooks is read: the caller's own and their monitors' (owner index), a team's and its monitors' (team index). */
export const webhookSources = {
  owner: (ownerId: string): Source => ({ index: ownerIndex, partition: ownerIndex.partition(ownerId), prefix: ownerIndex.webhookPrefix }),
  team: (teamId: string): Source => ({ index: teamIndex, partition: teamIndex.partition(teamId), prefix: teamIndex.webhookPrefix }),
};

/**
 * Every webhook an incident of `monitor` reaches: the monitor's, its team's, its owner's own
 * (three Queries in parallel, on the indexes' eventually consistent copies).
 */
export async function webhooksFor(monitor: { id: string; owner_id: string; team_id: string | null }): Promise<Webhook[]> {
  const reads = await Promise.all([
    queryIndex(monitorIndex, monitorIndex.partition(monitor.id), monitorIndex.webhookPrefix),
    queryIndex(ownerIndex, ownerIndex.partition(monitor.owner_id), ownerIndex.webhookPrefix, { scope: 'owner' }),
    monitor.team_id ? queryIndex(teamIndex, teamIndex.partition(monitor.team_id), teamIndex.webhookPrefix, { scope: 'team' }) : Promise.resolve([]),
  ]);
  return reads.flat().map((item) => webhookItem.parse(item));
}

/** The webhooks of one monitor (the monitor index: eventually consistent). */
export async function monitorWebhooks(monitorId: string): Promise<Webhook[]> {
  return (await queryIndex(monitorIndex, monitorIndex.partition(monitorId), monitorIndex.webhookPrefix)).map((item) => webhookItem.parse(item));
}

/** How many webhooks the monitor's counter holds (what a re-scoping waits to have seen). */
export async function monitorWebhookCount(monitorId: string): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookCount('monitor', monitorId), ConsistentRead: true }));
  return typeof Item?.count === 'number' ? Item.count : 0;
}

/**
 * Lists a monitor's webhook where its monitor now is (its team's index, or none), unless it already
 * reflects that move or a later one (`monitor_team_seq`). Answers whether it changed anything.
 */
export async function rescopeMonitorWebhook(webhook: Pick<Webhook, 'id' | 'created_at'>, place: MonitorPlace): Promise<boolean> {
  const team = monitorTeamAttributes(webhook, place);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(webhook.id),
        ...updateExpression({
          set: { ...team, monitor_team_seq: place.team_seq },
          remove: place.team_id ? [] : [teamIndex.pk, teamIndex.sk, 'monitor_team_id'],
          condition: { expression: `${itemPresent} AND (attribute_not_exists(monitor_team_seq) OR monitor_team_seq < :seq)`, values: { ':seq': place.team_seq } },
        }),
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailure(error)) return false;
    throw error;
  }
}
