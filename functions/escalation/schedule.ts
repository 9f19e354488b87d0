/** `escalation-scheduler`: one one-time schedule per escalation step of a new automatic incident. */
import { eventDetails } from '../../shared/platform/events/model.js';
import { scheduleEscalation } from '../../shared/paging/escalate.js';
import type { BusEvent } from '../lib/events.js';
import { nobodyOnCall, workerHandler } from '../lib/observability.js';

export const handler = workerHandler('escalation-scheduler', async (event: BusEvent) => ({
  steps: await scheduleEscalation(eventDetails['incident.created'].parse(event.detail), nobodyOnCall),
}));
