/**
 * `escalation-scheduler`: one one-time schedule per escalation step of a new automatic incident
 * (`incident.created`), one per delayed notification rule of a page's people
 * (`person.notifications_delayed`, issue 43), and one per flush of pages held past a phone method's
 * throttle (`person.messages_held`, issue 43 §4); issue 45: one per step of a restarted escalation
 * (`incident.escalation_restarted`), and one per acknowledgement of an incident with a timeout (`incident.acknowledged`).
 */
import { eventDetails } from '../../shared/platform/events/model.js';
import { scheduleEscalation } from '../../shared/paging/escalate.js';
import { scheduleHeldFlush, schedulePersonRules } from '../../shared/paging/schedule-person.js';
import { scheduleAckTimeout } from '../../shared/paging/restart.js';
import { releaseWindow, scheduleRelease } from '../../shared/paging/maintenance.js';
import type { BusEvent } from '../lib/events.js';
import { nobodyOnCall, workerHandler } from '../lib/observability.js';

export const handler = workerHandler('escalation-scheduler', async (event: BusEvent) => {
  switch (event['detail-type']) {
    case 'person.notifications_delayed':
      return { rules: await schedulePersonRules(eventDetails['person.notifications_delayed'].parse(event.detail)) };
    case 'person.messages_held':
      return { flush: await scheduleHeldFlush(eventDetails['person.messages_held'].parse(event.detail)) };
    case 'incident.acknowledged':
      return { ack_timeout: await scheduleAckTimeout(eventDetails['incident.acknowledged'].parse(event.detail)) };
    case 'incident.escalation_restarted':
      return { steps: await scheduleEscalation(eventDetails['incident.escalation_restarted'].parse(event.detail), nobodyOnCall) };
    case 'maintenance_window.ended':
      return { released: await releaseWindow(eventDetails['maintenance_window.ended'].parse(event.detail)) };
    default: {
      const created = eventDetails['incident.created'].parse(event.detail);
      // Held by maintenance (issue 45 §1): its release at the end, instead of its steps.
      if (created.maintenance) return { release: await scheduleRelease(created.incident.id, created.maintenance.until) };
      return { steps: await scheduleEscalation(created, nobodyOnCall) };
    }
  }
});
