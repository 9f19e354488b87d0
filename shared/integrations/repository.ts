import { tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, monitorItemSk } from '../platform/db/keys.js';
import { batchGet, queryCollection, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import type { Monitor } from '../monitors/model.js';
import { getMonitorAnd, monitorAsRead } from '../monitors/repository.js';
import { integrationItem, integrationKeyItem, type Integration, type IntegrationKey } from './model.js';

type Guard<G extends string> = readonly (readonly [G, TransactItem])[];

/**
 * Writes the integration and its key's lookup item in one transaction, on the conditions that the
 * monitor is still as read and (through its team) that the caller may update it (`guard`).
 */
export async function insertIntegration<G extends string>(monitor: Monitor, integration: Integration, guard: Guard<G>) {
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
    ['conflict', { Put: { TableName: tableName(), Item: { ...keys.integration(monitor.id, integration.id), type: 'integration', ...integration }, ConditionExpression: itemAbsent } }],
    ['conflict', { Put: { TableName: tableName(), Item: lookup, ConditionExpression: itemAbsent } }],
  ]);
}

/** The monitor and one integration, in one BatchGetItem. */
export async function getMonitorAndIntegration(monitorId: string, integrationId: string) {
  const { monitor, item } = await getMonitorAnd(monitorId, keys.integration(monitorId, integrationId), (found) => integrationItem.parse(found));
  return { monitor, integration: item };
}

/** Every integration of a monitor, oldest first (one Query of its collection), with its key's lookup item (one BatchGetItem). */
export async function listIntegrations(monitorId: string): Promise<{ integration: Integration; lookup: IntegrationKey | undefined }[]> {
  const integrations = (await queryCollection(keys.monitorPartition(monitorId), undefined, monitorItemSk.integrationPrefix))
    .map((item) => integrationItem.parse(item))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  if (integrations.length === 0) return [];
  const lookups = await batchGet(integrations.map((integration) => keys.integrationKey(integration.key_hash)));
  const byHash = new Map(lookups.map((item) => [String(item[attributes.pk]), integrationKeyItem.parse(item)]));
  return integrations.map((integration) => ({ integration, lookup: byHash.get(keys.integrationKey(integration.key_hash)[attributes.pk]!) }));
}

/** Deletes the integration and its key's lookup item together (its key is refused from then on). `gone` if already deleted. */
export async function deleteIntegration<G extends string>(monitor: Monitor, integration: Integration, guard: Guard<G>) {
  return transactOutcome<G | 'moved' | 'gone'>([
    ...guard,
    ...(guard.length > 0 ? [['moved', monitorAsRead(monitor)] as const] : []),
    ['gone', { Delete: { TableName: tableName(), Key: keys.integration(monitor.id, integration.id), ConditionExpression: itemPresent } }],
    ['gone', { Delete: { TableName: tableName(), Key: keys.integrationKey(integration.key_hash) } }],
  ]);
}
