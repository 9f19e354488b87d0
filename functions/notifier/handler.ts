/** `notifier`: turns bus events into e-mails through SES (subscribers, invitees, escalation targets). */
import { notify } from '../../shared/notifications/notifier.js';
import { eventTypeOf, type BusEvent } from '../lib/events.js';

export const handler = async (event: BusEvent) => notify(eventTypeOf(event), event.detail);
