/**
 * A signal — a monitor check from the monitoring system: failures beyond the threshold open ONE
 * automatic incident per monitor (`raise`, claimed by the monitor's open-incident marker); recovery
 * resolves it (`resolve.ts`). A marker whose incident was resolved (by PUT, DELETE or recovery) is
 * stale: the next failure replaces it with a new incident, and the resolved one is never reopened.
 */
import * as z from '../platform/zod.js';
import { Text } from '../platform/api/common.js';
import { keys } from '../platform/db/keys.js';
import { NotFoundError } from '../platform/errors.js';
import { resolveAutomaticIncident } from './resolve.js';
import { raise, readSignal } from './signal.js';

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

const monitorNotFound = () => new NotFoundError('Monitor not found');

export async function processMonitorCheck(input: MonitorCheckInput): Promise<CheckResult> {
  const read = await readSignal(input.monitorId, keys.monitorOpenIncident(input.monitorId));
  if (!read.monitor) throw monitorNotFound();
  if (input.status === 'up') return recover(read.claimed);
  if (input.consecutiveFailures <= read.monitor.failure_threshold) return { ok: true, outcome: 'below_threshold' };
  const raised = await raise(
    {
      monitorId: input.monitorId,
      claim: { key: keys.monitorOpenIncident(input.monitorId), type: 'open_incident_marker' },
      what: 'the open incident',
      incident: (monitor) => ({ title: `${monitor.name} is down`.slice(0, 200), severity: 'HIGH', message: input.message ?? null }),
    },
    read,
  );
  if (raised.outcome === 'monitor_gone') throw monitorNotFound();
  return { ok: true, outcome: raised.outcome === 'opened' ? 'incident_opened' : 'incident_already_open', incident_id: raised.incident_id };
}

/** Resolves the monitor's open automatic incident and releases the marker, with the `incident.resolved` event. */
async function recover(incidentId: string | undefined): Promise<CheckResult> {
  if (!incidentId) return { ok: true, outcome: 'no_open_incident' };
  const resolved = await resolveAutomaticIncident(incidentId, keys.monitorOpenIncident);
  return { ok: true, outcome: resolved ? 'incident_resolved' : 'no_open_incident', incident_id: incidentId };
}
