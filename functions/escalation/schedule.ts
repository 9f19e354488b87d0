/**
 * `escalation-scheduler`: one one-time schedule per escalation step of a new automatic incident
 * (`incident.created`), and one per delayed notification rule of a page's people
 * (`person.notifications_delayed`, issue 43).
 */
import { eventDetails } from '../../shared/platform/events/model.js';
import { scheduleEscalation } from '../../shared/paging/escalate.js';
import { schedulePersonRules } from '../../shared/paging/schedule-person.js';
import type { BusEvent } from '../lib/events.js';
import { nobodyOnCall, workerHandler } from '../lib/observability.js';

export const handler = workerHandler('escalation-scheduler', async (event: BusEvent) =>
  event['detail-type'] === 'person.notifications_delayed'
    ? { rules: await schedulePersonRules(eventDetails['person.notifications_delayed'].parse(event.detail)) }
    : { steps: await scheduleEscalation(eventDetails['incident.created'].parse(event.detail), nobodyOnCall) },
);
