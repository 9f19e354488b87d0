import * as z from '../../shared/platform/zod.js';
import { described, FieldError } from '../../shared/platform/api/common.js';
import { WEBHOOK_MAX_BYTES, WebhookPayload } from '../../shared/alerts/alertmanager.js';
import { EVENTS_PER_MINUTE, OPENS_PER_MINUTE } from '../../shared/alerts/ingest.js';
import { receiveWebhook, WEBHOOK_ACCEPTED_MESSAGE, WEBHOOK_RATE_MESSAGE } from '../../shared/alerts/receive.js';
import { jsonResponse, rawRoute } from '../lib/http.js';

export const handler = rawRoute(
  {
    summary:
      "Alertmanager's and Grafana's webhook (public; the integration key as `Authorization: Bearer <key>`, or as the password of Basic auth): each alert is an event keyed by its `fingerprint`, firing → trigger, resolved → resolve; recorded at once, applied in the background",
    failure: 'Failed to process notification',
    status: 202,
    requestBody: {
      description: `An Alertmanager (\`version\` "4") or Grafana (\`version\` "1") webhook payload, up to ${WEBHOOK_MAX_BYTES} bytes`,
      schema: described(WebhookPayload, { id: 'AlertmanagerWebhook' }),
    },
    responses: {
      202: {
        description: `Every alert of the notification recorded; they are applied in order within seconds, each alert state once (a re-sent notification changes nothing). New incidents count against the key's allowance, ${OPENS_PER_MINUTE} a minute: alerts past it are folded into one overflow incident that lists them`,
        schema: described(z.strictObject({ message: z.literal(WEBHOOK_ACCEPTED_MESSAGE), alerts: z.int().check(z.minimum(0)) }), { id: 'WebhookAccepted' }),
      },
      400: {
        description: 'Not an Alertmanager or Grafana webhook payload',
        schema: z.strictObject({ error: z.literal('Validation errors'), details: z.array(FieldError) }),
      },
      401: {
        description: 'No integration key, or one that names no integration (unknown, revoked, or its monitor deleted)',
        schema: z.strictObject({ error: z.literal('Unauthorized') }),
      },
      413: { description: `Past ${WEBHOOK_MAX_BYTES} bytes`, schema: z.strictObject({ error: z.string() }) },
      429: {
        description: `Past the key's rate, ${EVENTS_PER_MINUTE} requests a minute (a notification counts once)`,
        schema: z.strictObject({ message: z.literal(WEBHOOK_RATE_MESSAGE) }),
        headers: { 'Retry-After': "Seconds until the key's current one-minute window ends" },
      },
    },
  },
  async ({ body, headers }) => jsonResponse(202, await receiveWebhook(headers.authorization, body)),
);
