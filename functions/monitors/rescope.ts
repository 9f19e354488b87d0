/** `incident-rescoper`: after a monitor moved between teams, moves its webhooks' and incidents' team index entries with it. */
import { eventDetails } from '../../shared/platform/events/model.js';
import { rescopeIncidents } from '../../shared/incidents/rescope.js';
import { rescopeWebhooks } from '../../shared/webhooks/rescope.js';
import type { BusEvent } from '../lib/events.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler(
  'incident-rescoper',
  async (event: BusEvent) => {
    const detail = eventDetails['monitor.team_changed'].parse(event.detail);
    const webhooks = await rescopeWebhooks(detail.monitor_id);
    return { ...(await rescopeIncidents(detail)), webhooks: webhooks.moved };
  },
  (result) => `moved ${result.moved} of ${result.seen} incidents, ${result.webhooks} webhooks`,
);
