/**
 * Seeds incidents directly, exactly as the service stores them (every index key, the message as
 * its own item), and counts them on their monitor: for tests and the bench, where creating
 * thousands through the API would take minutes.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { batchWrite } from '../../shared/platform/db/ops.js';
import { incidentAttributes, incidentMessageItem } from '../../shared/incidents/repository.js';
import { manualIncident, SEVERITIES, STATUSES, type Incident } from '../../shared/incidents/model.js';
import { createdEntry, entryRecord, timelineEntry } from '../../shared/incidents/timeline.js';
import type { Monitor } from '../../shared/monitors/model.js';
import { monitorRecord, sharedMonitorRecord } from '../../shared/monitors/repository.js';
import { subscriptionItems } from '../../shared/subscribers/repository.js';
import { newSubscriber } from '../../shared/subscribers/service.js';

export interface SeedMonitor {
  id: string;
  name: string;
  owner_id: string;
  team_id: string | null;
}

/** An incident as POST /api/incidents opens it (manual, INVESTIGATING, MEDIUM, unacknowledged, no message) at `at`. */
export function openedIncident(monitor: SeedMonitor & { team_seq?: number }, at: string, fields: Partial<Incident> = {}): Incident {
  return { ...manualIncident({ team_seq: 0, ...monitor }, { title: 'Incident', message: null, severity: 'MEDIUM' }, at), ...fields };
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
  /** More fields of the incident of each index (what a report reads: its first acknowledgement, its pages). */
  fields?: (index: number, incident: Incident) => Partial<Incident>;
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
    const opened = openedIncident(monitor, at, { title: `Incident ${index}`, message: options.message === undefined ? 'x'.repeat(2048) : options.message });
    const incident: Incident = options.opened
      ? opened
      : { ...opened, status, severity: SEVERITIES[index % 3]!, acknowledged: index % 5 === 0, automatic: true, resolved_at: status === 'RESOLVED' ? at : null };
    return options.fields ? { ...incident, ...options.fields(index, incident) } : incident;
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

export interface SeededMonitor {
  monitor: Monitor;
  incident: Incident;
  subscriberId: string;
}

/**
 * A monitor shared with `teamId` by `owner`, an incident its owner opened on it and an address its
 * owner subscribed, item for item as POST /api/monitors, POST /api/incidents and POST
 * /api/monitors/{id}/subscribers write them but for ids and times (through the repositories' own item
 * builders): the monitor, counting its incident, and the team's record of the share; the incident
 * (manual, INVESTIGATING, MEDIUM, unacknowledged, no message) and its `created` entry; the pending
 * subscriber, its e-mail claim and its unsubscribe token. Not written: what those calls do besides
 * (the owner's daily quota charges, the `incident.created` and `subscriber.confirmation_requested`
 * events and the confirmation e-mail). All of `count` monitors in one BatchWriteItem per 25 items.
 */
export async function seedSharedMonitors(
  owner: { id: string; name: string },
  teamId: string,
  count: number,
  fields: { name: string; title: string; email: () => string },
): Promise<SeededMonitor[]> {
  const start = clock.now().getTime();
  const seeded = Array.from({ length: count }, (_, index): SeededMonitor & { items: Record<string, unknown>[] } => {
    // The monitor, then its incident, then its subscriber, a millisecond apart; each monitor after the last.
    const at = (step: number) => new Date(start + index * 3 + step).toISOString();
    const monitor: Monitor = {
      id: randomUUID(),
      name: fields.name,
      owner_id: owner.id,
      failure_threshold: 3,
      escalation_policy_id: null,
      team_id: teamId,
      heartbeat: null,
      urgency: null,
      ack_timeout_minutes: null,
      maintenance: [],
      maintenance_version: 0,
      team_seq: 0,
      incident_count: 1,
      created_at: at(0),
      updated_at: at(0),
    };
    const incident = openedIncident(monitor, at(1), { title: fields.title });
    const subscriber = { ...newSubscriber(monitor.id, fields.email(), 'pending'), created_at: at(2) };
    const subscription = subscriptionItems(monitor, subscriber);
    const message = incidentMessageItem(incident);
    const items = [
      monitorRecord(monitor),
      sharedMonitorRecord(teamId, monitor.id),
      incidentAttributes(incident),
      ...(message ? [message] : []),
      entryRecord(timelineEntry(createdEntry(incident, { id: owner.id, name: owner.name }))),
      subscription.claim,
      subscription.subscriber,
    ];
    return { monitor, incident, subscriberId: subscriber.id, items };
  });
  await batchWrite(seeded.flatMap(({ items }) => items.map((Item) => ({ PutRequest: { Item } }))));
  return seeded.map(({ monitor, incident, subscriberId }) => ({ monitor, incident, subscriberId }));
}
