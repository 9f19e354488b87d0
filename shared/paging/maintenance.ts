/**
 * Paging, issue 45 §1 — maintenance: an incident opened inside a maintenance window (`open.ts` holds
 * it: no step pages, no subscriber e-mail, `in_maintenance`) is released when maintenance ends — at the
 * end of the windows covering it (a one-time schedule per incident and end, made by the escalation
 * scheduler from its `incident.created`), or at once when its window is ended early (the
 * `maintenance_window.ended` event finds it by its held marker). Released while still open and
 * unacknowledged, its escalation restarts from step 1 (`restart.ts`: the run's steps, and subscribers
 * get their e-mail from the event); another window covering it by then holds it on, to that one's end.
 * The release is one transaction conditioned on the hold as read: once, however often it is asked.
 */
import * as z from '../platform/zod.js';
import { env } from '../system.js';
import { clock } from '../platform/clock.js';
import { requireEnv } from '../platform/config.js';
import { tableName } from '../platform/db/client.js';
import { attributes, itemPresent, keys } from '../platform/db/keys.js';
import { queryCollection, TransactionCancelled, transactWrite, updateExpression, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import type { EventDetail } from '../platform/events/model.js';
import { scheduleOnce } from '../platform/scheduler.js';
import { coverage, heldKey, monitorSpans, teamSummary, type Scope } from '../monitors/maintenance.js';
import { getMonitor } from '../monitors/repository.js';
import type { Incident } from '../incidents/model.js';
import { getIncidentCollection, writeInstant } from '../incidents/repository.js';
import { restartItems } from './restart.js';

/** What a release's schedule invokes the escalation-step function with. */
export const maintenanceReleaseInput = z.strictObject({
  maintenance_release: z.strictObject({ incident_id: z.uuid(), until: z.iso.datetime() }),
});
export type MaintenanceReleaseInput = z.output<typeof maintenanceReleaseInput>;

/** One schedule per incident and end of maintenance (at most 64 characters). */
export const releaseScheduleName = (incidentId: string, until: string) => `mw-${incidentId}-${Math.ceil(Date.parse(until) / 1000)}`;

/** The incident's release at `until` (a repeat finds the schedule there). */
export async function scheduleRelease(incidentId: string, until: string): Promise<'scheduled' | 'already_scheduled'> {
  const input: MaintenanceReleaseInput = { maintenance_release: { incident_id: incidentId, until } };
  const created = await scheduleOnce({
    name: releaseScheduleName(incidentId, until),
    at: until,
    target: requireEnv(env.escalationStepArn),
    input,
    deadLetterArn: process.env[env.escalationDlqArn],
  });
  return created === 'created' ? 'scheduled' : 'already_scheduled';
}

export type ReleaseOutcome = 'paging' | 'released' | 'still_held' | 'not_held' | 'not_found';

const markerDeletes = (incident: Incident): TransactItem[] => [
  { Delete: { TableName: tableName(), Key: heldKey({ kind: 'monitor', id: incident.monitor_id }, incident.id) } },
  ...(incident.held_team_id ? [{ Delete: { TableName: tableName(), Key: heldKey({ kind: 'team', id: incident.held_team_id }, incident.id) } }] : []),
];

/**
 * Releases a held incident if maintenance is over for its monitor now: paging from step 1 when it is
 * still open and unacknowledged (`paging`), only the hold cleared otherwise (`released`). Still covered
 * (a window overlapping, or another since): held on to that end, and its release scheduled then.
 */
export function releaseHeld(incidentId: string): Promise<ReleaseOutcome> {
  return retryOnConflict<ReleaseOutcome>(async () => {
    const collection = await getIncidentCollection(incidentId);
    if (!collection) return 'not_found';
    const { incident, escalationSteps } = collection;
    if (!incident.in_maintenance) return 'not_held';
    const now = clock.nowIso();
    const monitor = incident.status === 'RESOLVED' ? undefined : await getMonitor(incident.monitor_id);
    const held = monitor ? coverage(monitorSpans(monitor, await teamSummary(monitor.team_id)), now) : null;
    const asRead = {
      expression: `${itemPresent} AND in_maintenance = :true AND held_until = :was_until AND #acknowledged = :was_acknowledged AND #status = :was_status`,
      names: { '#acknowledged': 'acknowledged', '#status': 'status' },
      values: { ':true': true, ':was_until': incident.held_until ?? '', ':was_acknowledged': incident.acknowledged, ':was_status': incident.status },
    };
    try {
      if (held) {
        if (held.until !== incident.held_until) {
          await transactWrite([
            {
              Update: {
                TableName: tableName(),
                Key: keys.incident(incidentId),
                ...updateExpression({ set: { held_until: held.until, maintenance_window_id: held.window_id }, condition: asRead }),
              },
            },
          ]);
        }
        await scheduleRelease(incidentId, held.until);
        return 'still_held';
      }
      const paging = incident.status !== 'RESOLVED' && !incident.acknowledged;
      const at = writeInstant(incident);
      const run = (incident.escalation_run ?? 0) + 1;
      const next: Incident = { ...incident, in_maintenance: false, updated_at: at, ...(paging ? { escalation_run: run } : {}) };
      await transactWrite([
        {
          Update: {
            TableName: tableName(),
            Key: keys.incident(incidentId),
            ...updateExpression({
              set: { in_maintenance: false, updated_at: at, ...(paging ? { escalation_run: run } : {}) },
              condition: { ...asRead, expression: `${asRead.expression} AND #updated_at < :now`, names: { ...asRead.names, '#updated_at': 'updated_at' }, values: { ...asRead.values, ':now': at } },
            }),
          },
        },
        ...markerDeletes(incident),
        ...(paging ? restartItems(next, escalationSteps, 'maintenance_ended', at) : []),
      ]);
      return paging ? 'paging' : 'released';
    } catch (error) {
      if (error instanceof TransactionCancelled) return undefined;
      throw error;
    }
  }, (attempts) => `Incident ${incidentId}: could not release it from maintenance after ${attempts} attempts`);
}

/** A window ended early: each incident it holds (its markers in the window's monitor or team) is released, or held on. */
export async function releaseWindow(event: EventDetail<'maintenance_window.ended'>): Promise<Record<string, number>> {
  const scope: Scope = event.window.monitor_id ? { kind: 'monitor', id: event.window.monitor_id } : { kind: 'team', id: event.window.team_id! };
  const partition = heldKey(scope, '')[attributes.pk]!;
  const markers = await queryCollection(partition, ['incident_id'], 'HELD#');
  const outcomes: Record<string, number> = {};
  for (const marker of markers) {
    const outcome = await releaseHeld(String(marker.incident_id));
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return outcomes;
}
