/**
 * An incident's urgency (issue 43 §3): which of a person's notification rules a page follows.
 * CRITICAL and HIGH are `high`, MEDIUM and LOW `low`; a stored `urgency` (fixed by the monitor, set
 * at open time) wins. MINIMAL (seam helper's tree): the contacts helper stores `urgency` on incidents.
 */
import type { Urgency } from '../contacts/model.js';

export const urgencyOfSeverity = (severity: string): Urgency => (severity === 'CRITICAL' || severity === 'HIGH' ? 'high' : 'low');

export const urgencyOf = (incident: { severity: string; urgency?: unknown }): Urgency =>
  incident.urgency === 'high' || incident.urgency === 'low' ? incident.urgency : urgencyOfSeverity(incident.severity);
