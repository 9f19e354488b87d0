/**
 * Seeds incidents directly, exactly as the service stores them (every index key, the message as
 * its own item), and counts them on their monitor: for tests and the bench, where creating
 * thousands through the API would take minutes.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { incidentAttributes, incidentMessageItem } from '../../shared/incidents/repository.js';
import { SEVERITIES, STATUSES, type Incident } from '../../shared/incidents/model.js';

export interface SeedMonitor {
  id: string;
  name: string;
  owner_id: string;
  team_id: string | null;
}

export interface SeedOptions {
  /** Minutes after 2026-03-01T00:00Z of the first incident. */
  offsetMinutes?: number;
  message?: string | null;
  /** Index of the first incident (continues the cycles of an earlier seed). */
  from?: number;
  /**
   * Every incident as POST /api/incidents opens it (manual, INVESTIGATING, MEDIUM, unacknowledged)
   * instead of the cycles: for tests that act on open incidents, not on how they were opened.
   */
  opened?: boolean;
}

/**
 * `count` incidents of a monitor, two a minute (so `started_at` ties are broken by id), cycling
 * through statuses (4), severities (CRITICAL, HIGH, MEDIUM) and acknowledgement (1 in 5).
 */
export async function seedIncidents(monitor: SeedMonitor, count: number, options: SeedOptions = {}): Promise<Incident[]> {
  const base = Date.parse('2026-03-01T00:00:00.000Z') + (options.offsetMinutes ?? 0) * 60_000;
  const from = options.from ?? 0;
  const incidents: Incident[] = Array.from({ length: count }, (_, offset) => {
    const index = from + offset;
    const at = new Date(base + Math.floor(index / 2) * 60_000).toISOString();
    const status = STATUSES[index % 4]!;
    return {
      id: randomUUID(),
      monitor_id: monitor.id,
      monitor_name: monitor.name,
      owner_id: monitor.owner_id,
      title: `Incident ${index}`,
      message: options.message === undefined ? 'x'.repeat(2048) : options.message,
      ...(options.opened
        ? { status: 'INVESTIGATING' as const, severity: 'MEDIUM' as const, acknowledged: false, automatic: false, resolved_at: null }
        : { status, severity: SEVERITIES[index % 3]!, acknowledged: index % 5 === 0, automatic: true, resolved_at: status === 'RESOLVED' ? at : null }),
      started_at: at,
      escalation_policy_id: null,
      team_id: monitor.team_id,
      team_seq: 0,
      created_at: at,
      updated_at: at,
    };
  });
  await batchWrite(
    incidents.flatMap((incident) =>
      [incidentAttributes(incident), incidentMessageItem(incident)].flatMap((item) => (item ? [{ PutRequest: { Item: item } }] : [])),
    ),
  );
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.monitor(monitor.id),
      UpdateExpression: 'ADD incident_count :count',
      ExpressionAttributeValues: { ':count': count },
    }),
  );
  return incidents;
}
