import { urgencyOf, type Incident } from './model.js';
import type { IncidentSnapshot } from '../platform/events/model.js';

/** The incident as events carry it. */
export const incidentSnapshot = (incident: Incident): IncidentSnapshot => ({
  id: incident.id,
  monitor_id: incident.monitor_id,
  monitor_name: incident.monitor_name,
  owner_id: incident.owner_id,
  title: incident.title,
  message: incident.message,
  status: incident.status,
  severity: incident.severity,
  urgency: urgencyOf(incident),
  automatic: incident.automatic,
  acknowledged: incident.acknowledged,
  started_at: incident.started_at,
  resolved_at: incident.resolved_at,
  escalation_policy_id: incident.escalation_policy_id,
});
