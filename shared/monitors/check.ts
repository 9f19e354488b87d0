/**
 * Monitor checks from the monitoring system: failures beyond the threshold open ONE automatic
 * incident per monitor; recovery resolves it. The "open automatic incident" marker is a single
 * item per monitor, claimed with a conditional write, so retries and parallel checks cannot open
 * a second incident. A marker whose incident was resolved (by PUT, DELETE or recovery) is stale:
 * the next failure replaces it with a new incident, and the resolved one is never reopened.
 */
import * as z from '../platform/zod.js';
import { Text } from '../platform/api/common.js';
import { keys } from '../platform/db/keys.js';
import { getByKeys } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { NotFoundError } from '../platform/errors.js';
import * as incidents from '../incidents/repository.js';
import { claimPut, openAutomaticIncident, resolveAutomaticIncident } from '../incidents/automatic.js';
import { monitorItem } from './model.js';

export const monitorCheckInput = z.strictObject({
  monitorId: z.uuid(),
  status: z.enum(['down', 'up']),
  consecutiveFailures: z.int().check(z.minimum(0)),
  checkedAt: z.iso.datetime({ offset: true }),
  message: z.optional(Text({ max: 10_000, multiline: true })),
});
export type MonitorCheckInput = z.output<typeof monitorCheckInput>;

export type CheckOutcome =
  | 'below_threshold'
  | 'incident_opened'
  | 'incident_already_open'
  | 'incident_resolved'
  | 'no_open_incident';

export interface CheckResult {
  ok: true;
  outcome: CheckOutcome;
  incident_id?: string;
}

const openIncidentMarker = z.object({ incident_id: z.string() });

export async function processMonitorCheck(input: MonitorCheckInput): Promise<CheckResult> {
  const read = await getByKeys({ monitor: keys.monitor(input.monitorId), marker: keys.monitorOpenIncident(input.monitorId) });
  if (!read.monitor) throw new NotFoundError('Monitor not found');
  let monitor = monitorItem.parse(read.monitor);
  let marker = read.marker ? openIncidentMarker.parse(read.marker) : undefined;

  if (input.status === 'up') return recover(marker?.incident_id);
  if (input.consecutiveFailures <= monitor.failure_threshold) return { ok: true, outcome: 'below_threshold' };

  return retryOnConflict<CheckResult>(async () => {
    const current = marker && (await incidents.getIncident(marker.incident_id));
    if (current && current.status !== 'RESOLVED') {
      return { ok: true, outcome: 'incident_already_open', incident_id: current.id };
    }
    const opened = await openAutomaticIncident({
      monitor,
      title: `${monitor.name} is down`.slice(0, 200),
      severity: 'HIGH',
      message: input.message ?? null,
      claim: claimPut(keys.monitorOpenIncident(monitor.id), 'open_incident_marker', marker?.incident_id),
    });
    if (opened) return { ok: true, outcome: 'incident_opened', incident_id: opened.id };
    // Another check claimed the marker first (look at what it opened), or the monitor moved to
    // another team or was deleted meanwhile (read it again).
    const again = await getByKeys({ monitor: keys.monitor(input.monitorId), marker: keys.monitorOpenIncident(input.monitorId) });
    if (!again.monitor) throw new NotFoundError('Monitor not found');
    monitor = monitorItem.parse(again.monitor);
    marker = again.marker ? openIncidentMarker.parse(again.marker) : undefined;
    return undefined;
  }, (attempts) => `Monitor ${input.monitorId}: could not settle the open incident after ${attempts} attempts`);
}

/** Resolves the monitor's open automatic incident and releases the marker, with the `incident.resolved` event. */
async function recover(incidentId: string | undefined): Promise<CheckResult> {
  if (!incidentId) return { ok: true, outcome: 'no_open_incident' };
  const resolved = await resolveAutomaticIncident(incidentId, keys.monitorOpenIncident);
  return { ok: true, outcome: resolved ? 'incident_resolved' : 'no_open_incident', incident_id: incidentId };
}
