import { tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, monitorItemSk, ownerIndex } from '../platform/db/keys.js';
import { batchGet, queryCollection, queryOwnerIndex, transactOutcome, type Item, type TransactItem } from '../platform/db/ops.js';
import type { Monitor } from '../monitors/model.js';
import { getMonitorAnd, monitorAsRead } from '../monitors/repository.js';
import { integrationItem, integrationKeyItem, type Integration, type IntegrationKey } from './model.js';

type Guard<G extends string> = readonly (readonly [G, TransactItem])[];

/**
 * Writes the integration and its key's lookup item in one transaction, on the conditions that the
 * monitor is still as read and (through its team) that the caller may update it (`guard`).
 */
export async function insertIntegration<G extends string>(monitor: Monitor, integration: Integration, guard: Guard<G>, audit: TransactItem) {
  const lookup = {
    ...keys.integrationKey(integration.key_hash),
    type: 'integration_key',
    monitor_id: monitor.id,
    integration_id: integration.id,
    integration_name: integration.name,
    created_by_email: integration.created_by_email,
  };
  return transactOutcome<G | 'moved' | 'conflict'>([
    ...guard,
    ['moved', monitorAsRead(monitor)],
    [
      'conflict',
      {
        Put: {
          TableName: tableName(),
          // Also in its creator's owner index: what their removal from the monitor's team reviews.
          Item: { ...keys.integration(monitor.id, integration.id), ...ownerIndex.integration(integration.created_by, integration.created_at, integration.id), type: 'integration', ...integration },
          ConditionExpression: itemAbsent,
        },
      },
    ],
    ['conflict', { Put: { TableName: tableName(), Item: lookup, ConditionExpression: itemAbsent } }],
    ['conflict', audit],
  ]);
}

/** The monitor and one integration, in one BatchGetItem. */
export async function getMonitorAndIntegration(monitorId: string, integrationId: string) {
  const { monitor, item } = await getMonitorAnd(monitorId, keys.integration(monitorId, integrationId), (found) => integrationItem.parse(found));
  return { monitor, integration: item };
}

/** Every integration of a monitor, oldest first: one Query of its collection. */
export async function queryIntegrations(monitorId: string): Promise<Integration[]> {
  return (await queryCollection(keys.monitorPartition(monitorId), undefined, monitorItemSk.integrationPrefix))
    .map((item) => integrationItem.parse(item))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/**
 * The key lookup items of `integrations` and the items at `extra` keys, in one consistent
 * BatchGetItem (`extra` found, by key position; absent ones undefined).
 */
export async function lookupsAnd(integrations: Integration[], extra: Record<string, string>[]) {
  const found = await batchGet([...integrations.map((integration) => keys.integrationKey(integration.key_hash)), ...extra]);
  const at = (key: Record<string, string>) => found.find((item) => item[attributes.pk] === key[attributes.pk] && item[attributes.sk] === key[attributes.sk]);
  const lookups = new Map<string, IntegrationKey | undefined>();
  for (const integration of integrations) {
    const item = at(keys.integrationKey(integration.key_hash));
    lookups.set(integration.id, item ? integrationKeyItem.parse(item) : undefined);
  }
  return { lookups, extra: extra.map((key): Item | undefined => at(key)) };
}

/** The integrations a user created, on any monitor (their owner index; eventually consistent). */
export async function integrationsCreatedBy(userId: string): Promise<Integration[]> {
  return (await queryOwnerIndex(userId, ownerIndex.integrationPrefix)).map((item) => integrationItem.parse(item));
}

/** Deletes the integration and its key's lookup item together (its key is refused from then on). `gone` if already deleted. */
export async function deleteIntegration<G extends string>(monitor: Monitor, integration: Integration, guard: Guard<G>, audit: TransactItem) {
  return transactOutcome<G | 'moved' | 'gone'>([
    ...guard,
    ...(guard.length > 0 ? [['moved', monitorAsRead(monitor)] as const] : []),
    ['gone', { Delete: { TableName: tableName(), Key: keys.integration(monitor.id, integration.id), ConditionExpression: itemPresent } }],
    ['gone', { Delete: { TableName: tableName(), Key: keys.integrationKey(integration.key_hash) } }],
    ['gone', audit],
  ]);
}
