/**
 * The two ways alerts come in, each from its raw request: `POST /v2/enqueue` (PagerDuty's Events API
 * v2, answered in PagerDuty's words) and `POST /integrations/alertmanager` (Alertmanager's and
 * Grafana's webhooks, answered in the API's). Both admit the key, then apply each event (`ingest.ts`).
 */
import { TooManyRequestsError, UnauthorizedError } from '../platform/errors.js';
import { parseWebhookNotification } from './alertmanager.js';
import {
  acceptedAnswer,
  alertDetails,
  parseEventsV2,
  rateLimitedAnswer,
  unknownRoutingKeyAnswer,
  type EventsV2Answer,
} from './events-v2.js';
import { admitKey, countRepeat, ingestEvent, prefetchDedup } from './ingest.js';
import { integrationKeyHash, KEY_RATE_MESSAGE, keyFromAuthorization } from '../integrations/keys.js';
import { recordNotification } from './intake.js';

/** One Events API v2 event: PagerDuty's answer (202, 400, 413, 429). */
export async function receiveEventsV2(raw: string): Promise<EventsV2Answer> {
  const parsed = parseEventsV2(raw);
  if (!parsed.ok) return parsed.answer;
  const { event } = parsed;
  // A repeat trigger this instance has the key and the dedup key's incident of: one conditional write.
  const repeat = event.action === 'trigger' ? await countRepeat(event.routingKey, event.dedupKey) : undefined;
  if (repeat) {
    if (repeat.outcome === 'counted') return acceptedAnswer(event.dedupKey);
    return repeat.outcome === 'rate' ? rateLimitedAnswer(repeat.retryAfterSeconds) : unknownRoutingKeyAnswer();
  }
  // Otherwise the key is admitted and the dedup key read: at once when the key's monitor is known.
  const prefetched = prefetchDedup(event.routingKey, event.dedupKey);
  const admission = await admitKey(event.routingKey);
  if (!admission.ok) return admission.reason === 'rate' ? rateLimitedAnswer(admission.retryAfterSeconds) : unknownRoutingKeyAnswer();
  // The incident's message: the full summary when the title had to be cut from it.
  const message = event.action === 'trigger' && event.summary !== event.title ? event.summary : null;
  // What the trigger carried beyond the incident's fields, kept with the incident it opens (bounded).
  const details = event.details ? alertDetails(event.details) : undefined;
  const outcome = await ingestEvent(admission.integration, { ...event, message, ...(details ? { alertDetails: details } : {}) }, prefetched);
  return outcome === 'monitor_gone' ? unknownRoutingKeyAnswer() : acceptedAnswer(event.dedupKey);
}

/** The 429 of a webhook: the API's own form (`{"message"}` with `Retry-After`). */
export const WEBHOOK_RATE_MESSAGE = KEY_RATE_MESSAGE;

/** The 202 of a webhook: every alert of the notification recorded, to be applied in the background. */
export const WEBHOOK_ACCEPTED_MESSAGE = 'Notification accepted';

/**
 * One Alertmanager or Grafana notification: its alerts recorded (`intake.ts`), to be applied in order
 * by the alert processor. 401 without a key we know, 400 for a body that is not such a payload, 413
 * past 1 MiB, 429 past the key's request rate (a notification counts once, whatever its number of
 * alerts; what its alerts open counts against the key's allowance of new incidents, `takeOpening`).
 */
export async function receiveWebhook(authorization: string | undefined, raw: string): Promise<{ message: string; alerts: number }> {
  const credentials = keyFromAuthorization(authorization);
  if (!credentials.ok) throw new UnauthorizedError();
  const parsed = parseWebhookNotification(raw);
  if (!parsed.ok) throw parsed.error;
  const admission = await admitKey(credentials.key);
  if (!admission.ok) {
    if (admission.reason === 'rate') throw new TooManyRequestsError(WEBHOOK_RATE_MESSAGE, admission.retryAfterSeconds);
    throw new UnauthorizedError();
  }
  await recordNotification(admission.integration, integrationKeyHash(credentials.key), parsed.notification.events);
  return { message: WEBHOOK_ACCEPTED_MESSAGE, alerts: parsed.notification.events.length };
}
