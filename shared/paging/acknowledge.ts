/**
 * Paging, stage 5 — acknowledge: someone has it, so the steps not yet sent are cancelled when
 * their time comes (`page.ts` finds the incident acknowledged). People acknowledge through the API
 * (`incidents/service.ts`) or the link of a page's e-mail (`incidents/acknowledge-link.ts`); here a
 * signal's source does (an alert's acknowledge, method `api`, named by its integration).
 */
import { randomUUID } from 'node:crypto';
import { retryOnConflict } from '../platform/db/retry.js';
import { countMetric } from '../platform/observability/metrics.js';
import type { Acknowledgement } from '../incidents/model.js';
import * as incidents from '../incidents/repository.js';
import { acknowledgementRecords, type TimelineDetails } from '../incidents/timeline.js';

/** Who acknowledges for a signal's source: the name the acknowledgement shows, the accountable address, the timeline's details. */
export interface SourceAcknowledger {
  id: string;
  name: string;
  email: string;
  details: TimelineDetails;
}

/** Acknowledges the incident as `by` (method `api`); false when nothing changed (gone, resolved or already acknowledged). */
export function acknowledgeAsSource(incidentId: string, by: SourceAcknowledger): Promise<boolean> {
  return retryOnConflict(async () => {
    const incident = await incidents.getIncident(incidentId);
    if (!incident || incident.status === 'RESOLVED' || incident.acknowledged) return false;
    const now = incidents.writeInstant(incident);
    const acknowledgement: Acknowledgement = {
      id: randomUUID(),
      incident_id: incident.id,
      user_id: by.id,
      user_name: by.name,
      user_email: by.email,
      method: 'api',
      acknowledged_at: now,
    };
    const records = acknowledgementRecords(incident, acknowledgement, by.details);
    const { outcome } = await incidents.acknowledgeIncident(incident, acknowledgement, now, records, []);
    if (outcome === 'acknowledged') {
      countMetric('IncidentAcknowledged', { method: 'api' });
      return true;
    }
    if (outcome !== 'rescoped') return false;
    return undefined;
  }, (attempts) => `Incident ${incidentId} kept changing; gave up after ${attempts} attempts`);
}
