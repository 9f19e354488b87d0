/**
 * Webhook items. A webhook is indexed where its scope's incidents are found at delivery time, so
 * that finding the webhooks of one incident is three Queries, never a Scan:
 * - a monitor's webhook: the monitor index (`MONITOR#<id>`, `WEBHOOK#…`), and its creator's owner index;
 * - a team's webhook: the team index (`TEAM#<id>`, `WEBHOOK#…`);
 * - an owner's webhook (all their monitors): the owner index (`OWNER#<id>`, `WEBHOOK#…`, `scope = owner`).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { itemAbsent, itemPresent, keys, monitorIndex, ownerIndex, teamIndex } from '../platform/db/keys.js';
import { queryIndex, transactOutcome, updateExpression, type TransactItem, type UpdateSpec } from '../platform/db/ops.js';
import type { Source } from '../platform/db/paging.js';
import { webhookItem, type Webhook } from './model.js';

export type WebhookScope = 'monitor' | 'team' | 'owner';
export const scopeOfWebhook = (webhook: Pick<Webhook, 'monitor_id' | 'team_id'>): WebhookScope =>
  webhook.monitor_id ? 'monitor' : webhook.team_id ? 'team' : 'owner';

const webhookAttributes = (webhook: Webhook) => {
  const scope = scopeOfWebhook(webhook);
  return {
    ...keys.webhook(webhook.id),
    ...(scope === 'team' ? teamIndex.webhook(webhook.team_id!, webhook.created_at, webhook.id) : ownerIndex.webhook(webhook.owner_id, webhook.created_at, webhook.id)),
    ...(scope === 'monitor' ? monitorIndex.webhook(webhook.monitor_id!, webhook.created_at, webhook.id) : {}),
    type: 'webhook',
    scope,
    ...webhook,
  };
};

/** A guard a write carries: the outcome it stands for when its condition fails, and the action. */
export type Guard<O extends string> = readonly (readonly [O, TransactItem])[];

/** Writes the new webhook with the guards of its scope (the caller's rights, checked at write time). */
export function insertWebhook<O extends string>(webhook: Webhook, guards: Guard<O>) {
  return transactOutcome<O | 'conflict'>([
    ...guards,
    ['conflict', { Put: { TableName: tableName(), Item: webhookAttributes(webhook), ConditionExpression: itemAbsent } }],
  ]);
}

export async function getWebhook(webhookId: string): Promise<Webhook | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhook(webhookId), ConsistentRead: true }));
  return Item ? webhookItem.parse(Item) : undefined;
}

/** Changes the webhook (still as read: `updated_at`) with the guards of its scope. */
export function changeWebhook<O extends string>(current: Webhook, spec: UpdateSpec, guards: Guard<O>) {
  const condition = {
    expression: `${itemPresent} AND #was_updated = :was_updated${spec.condition ? ` AND ${spec.condition.expression}` : ''}`,
    names: { '#was_updated': 'updated_at', ...spec.condition?.names },
    values: { ':was_updated': current.updated_at, ...spec.condition?.values },
  };
  return transactOutcome<O | 'changed'>([
    ...guards,
    ['changed', { Update: { TableName: tableName(), Key: keys.webhook(current.id), ...updateExpression({ ...spec, condition }) } }],
  ]);
}

/** Deletes the webhook (still as read) with the guards of its scope; its messages expire with their TTL. */
export function deleteWebhook<O extends string>(current: Webhook, guards: Guard<O>) {
  return transactOutcome<O | 'changed'>([
    ...guards,
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

/** Where a list page of webhooks is read: the caller's own and monitor webhooks (owner index), a team's (team index). */
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
    monitor.team_id ? queryIndex(teamIndex, teamIndex.partition(monitor.team_id), teamIndex.webhookPrefix) : Promise.resolve([]),
  ]);
  return reads.flat().map((item) => webhookItem.parse(item));
}
