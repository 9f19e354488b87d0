/**
 * Paging, stage 6 — resolve: a signal's incident resolved by the signal (a check's recovery, the
 * tool's resolve, the ping after a missed heartbeat), releasing its claim in the same transaction
 * so the next failure opens a new incident. People resolve through the API
 * (`incidents/service.ts`); either way the step schedules still due find it resolved and cancel.
 */
import { tableName } from '../platform/db/client.js';
import type { Key } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { countMetric } from '../platform/observability/metrics.js';
import { applyChanges, statusEvents } from '../incidents/changes.js';
import * as incidents from '../incidents/repository.js';
import { changeEntries, timelinePut, type TimelineDetails } from '../incidents/timeline.js';

/**
 * Resolves an automatic incident and releases its claim (the item at `claimKey(monitorId)`, deleted on
 * the condition that it still names the incident), with the `incident.resolved` event and the
 * `resolved` entry (`resolvedDetails` added to it: by whom). Already resolved (by a person): only the
 * stale claim goes; `false`.
 */
export async function resolveAutomaticIncident(
  incidentId: string,
  claimKey: (monitorId: string) => Key,
  resolvedDetails: TimelineDetails = {},
): Promise<boolean> {
  const release = (monitorId: string): TransactItem => ({
    Delete: {
      TableName: tableName(),
      Key: claimKey(monitorId),
      ConditionExpression: 'incident_id = :incident',
      ExpressionAttributeValues: { ':incident': incidentId },
    },
  });
  return retryOnConflict(async () => {
    const current = await incidents.getIncident(incidentId);
    if (!current || current.status === 'RESOLVED') {
      // Already resolved by hand: manual resolution wins; only the stale claim goes.
      if (current) await incidents.releaseMarker(release(current.monitor_id));
      return false;
    }
    const now = incidents.writeInstant(current);
    const next = applyChanges(current, { status: 'RESOLVED' }, now);
    const { outcome } = await incidents.writeIncidentChange(current, next, [
      release(current.monitor_id),
      ...statusEvents(current, next, now),
      ...changeEntries(current, next, null, now).map((spec) => timelinePut({ ...spec, details: { ...spec.details, ...resolvedDetails } })),
    ]);
    if (outcome === 'ok') {
      countMetric('IncidentResolved');
      return true;
    }
    return undefined;
  }, (attempts) => `Incident ${incidentId}: could not resolve after ${attempts} attempts`);
}
