/**
 * The incident rescoper: after a monitor moved between scopes (a team, or its owner alone),
 * moves each of its incidents' team index entries to the monitor's scope. It runs off the
 * request path (`monitor.team_changed` on the bus); until it has finished, the transits the
 * move wrote on both teams make lists behave as if it already had (`shared/teams/access.ts`).
 *
 * It is idempotent and ordered: an incident is re-scoped only to a later `team_seq` than the one
 * it carries, so redeliveries and overtaking moves are harmless. It finishes only when it has
 * seen as many incidents as the monitor has counted (the monitor index is eventually
 * consistent); otherwise it throws, and the event is retried, then dead-lettered and alarmed.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemPresent, keys, transitAttribute } from '../platform/db/keys.js';
import { conditionFailure, updateExpression } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import type { EventDetail } from '../platform/events/model.js';
import { getIncident, incidentIndexKeys, listMonitorIncidents } from './repository.js';
import type { Incident } from './model.js';
import { getMonitor } from '../monitors/repository.js';

const CONCURRENCY = 8;
const PASSES = 5;

export interface RescopeResult {
  /** Incidents whose scope this run changed. */
  moved: number;
  /** Incidents of the monitor seen. */
  seen: number;
}

export async function rescopeIncidents(
  detail: Pick<EventDetail<'monitor.team_changed'>, 'monitor_id' | 'from_team_id' | 'to_team_id' | 'team_seq' | 'incident_count'>,
  options: { pauseMs?: number } = {},
): Promise<RescopeResult> {
  const monitor = await getMonitor(detail.monitor_id);
  // A deleted monitor's incidents keep the audience of its last move.
  const target = monitor ? { teamId: monitor.team_id, seq: monitor.team_seq } : { teamId: detail.to_team_id, seq: detail.team_seq };
  const expected = monitor?.incident_count ?? detail.incident_count ?? 0;
  let moved = 0;
  let seen = 0;
  for (let pass = 1; pass <= PASSES; pass++) {
    const incidents = await listMonitorIncidents(detail.monitor_id);
    seen = incidents.length;
    const stale = incidents.filter((incident) => incident.team_seq < target.seq);
    for (let start = 0; start < stale.length; start += CONCURRENCY) {
      const results = await Promise.all(stale.slice(start, start + CONCURRENCY).map((incident) => rescope(incident, target)));
      moved += results.filter(Boolean).length;
    }
    if (seen >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, (options.pauseMs ?? 500) * pass));
  }
  if (seen < expected) {
    throw new Error(`Monitor ${detail.monitor_id}: saw ${seen} of ${expected} incidents in the monitor index; will retry`);
  }
  await Promise.all([detail.from_team_id, detail.to_team_id].map((teamId) => teamId && clearTransit(teamId, detail.monitor_id, detail.team_seq)));
  return { moved, seen };
}

/**
 * Gives one incident the target scope — its team index entry and its team filter-index entries —
 * unless it already reflects the same or a later move. The entries are computed from the state
 * read, so the write is conditioned on that state; if it changed meanwhile, read it and go again.
 */
async function rescope(read: Incident, target: { teamId: string | null; seq: number }): Promise<boolean> {
  let incident: Incident | undefined = read;
  return retryOnConflict(async () => {
    if (!incident || incident.team_seq >= target.seq) return false;
    const { set, remove } = incidentIndexKeys({ ...incident, team_id: target.teamId });
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.incident(incident.id),
          ...updateExpression({
            set: { ...set, team_seq: target.seq, team_id: target.teamId ?? undefined },
            remove: [...remove, ...(target.teamId ? [] : ['team_id'])],
            condition: {
              expression: `${itemPresent} AND (attribute_not_exists(team_seq) OR team_seq < :target_seq) AND #was_status = :was_status AND #was_severity = :was_severity AND #was_acknowledged = :was_acknowledged`,
              names: { '#was_status': 'status', '#was_severity': 'severity', '#was_acknowledged': 'acknowledged' },
              values: { ':target_seq': target.seq, ':was_status': incident.status, ':was_severity': incident.severity, ':was_acknowledged': incident.acknowledged },
            },
          }),
        }),
      );
      return true;
    } catch (error) {
      if (!conditionFailure(error)) throw error;
      incident = await getIncident(incident.id);
      return undefined;
    }
  }, () => `Incident ${read.id} kept changing while being re-scoped`);
}

/** Removes the transit of that move from the team (a later move's transit, or a deleted team, is left alone). */
async function clearTransit(teamId: string, monitorId: string, seq: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.team(teamId),
        UpdateExpression: 'REMOVE #transit',
        ConditionExpression: `attribute_exists(${attributes.pk}) AND #transit.seq = :seq`,
        ExpressionAttributeNames: { '#transit': transitAttribute(monitorId) },
        ExpressionAttributeValues: { ':seq': seq },
      }),
    );
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
}
