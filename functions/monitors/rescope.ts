/** `incident-rescoper`: after a monitor moved between teams, moves its incidents' team index entries with it. */
import { eventDetails } from '../../shared/platform/events/model.js';
import { rescopeIncidents } from '../../shared/incidents/rescope.js';
import type { BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'incident-rescoper',
  async (event: BusEvent) => rescopeIncidents(eventDetails['monitor.team_changed'].parse(event.detail)),
  (result) => `moved ${result.moved} of ${result.seen} incidents`,
);
