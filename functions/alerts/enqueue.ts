import * as z from '../../shared/platform/zod.js';
import { described } from '../../shared/platform/api/common.js';
import { EVENTS_V2_MAX_BYTES } from '../../shared/alerts/events-v2.js';
import { EVENTS_PER_MINUTE } from '../../shared/alerts/ingest.js';
import { receiveEventsV2 } from '../../shared/alerts/receive.js';
import { rawRoute } from '../lib/http.js';

const Answer = (id: string, status: z.ZodMiniType, description: string) =>
  described(z.strictObject({ status, message: z.string(), errors: z.array(z.string()) }), { id, description });

export const handler = rawRoute(
  {
    summary:
      "PagerDuty Events API v2 (public; the body's `routing_key`, an integration key, authenticates): a trigger opens an automatic incident on the key's monitor, or adds to the open one of its `dedup_key`; acknowledge and resolve act on that incident. Point a tool's PagerDuty output here",
    failure: 'Failed to process event',
    status: 202,
    requestBody: {
      description: `An Events API v2 event, up to ${EVENTS_V2_MAX_BYTES} bytes; taken as text, so any JSON is answered in PagerDuty's words`,
      schema: described(
        z.looseObject({
          routing_key: z.string(),
          event_action: z.enum(['trigger', 'acknowledge', 'resolve']),
          dedup_key: z.optional(z.string()),
          payload: z.optional(
            z.looseObject({
              summary: z.string(),
              source: z.string(),
              severity: z.enum(['critical', 'error', 'warning', 'info']),
              timestamp: z.optional(z.string()),
              component: z.optional(z.string()),
              group: z.optional(z.string()),
              class: z.optional(z.string()),
              custom_details: z.optional(z.unknown()),
            }),
          ),
          links: z.optional(z.array(z.unknown())),
          images: z.optional(z.array(z.unknown())),
          client: z.optional(z.string()),
          client_url: z.optional(z.string()),
        }),
        { id: 'EventsV2Event', example: { routing_key: '3xw8e1vz0c6ty5bu4nj7mr9sa2hdk2m9', event_action: 'trigger', dedup_key: 'checkout-5xx', payload: { summary: 'Checkout 5xx above 2%', source: 'checkout-api', severity: 'critical' } } },
      ),
    },
    responses: {
      202: {
        description: 'Event processed (also an acknowledge or resolve with no open incident: nothing changes)',
        schema: described(z.strictObject({ status: z.literal('success'), message: z.literal('Event processed'), dedup_key: z.string() }), { id: 'EventsV2Accepted' }),
      },
      400: {
        description: "The event is invalid: one text per bad field, PagerDuty's; `Invalid routing key` for a key that names no integration (unknown, revoked, or its monitor deleted); `JSON parse error` for a body that is not a JSON object",
        schema: z.union([
          Answer('EventsV2Invalid', z.literal('invalid event'), 'An invalid event'),
          Answer('EventsV2Unrecognized', z.literal('Unrecognized object'), 'A body that is not a JSON object'),
        ]),
      },
      413: { description: `Past ${EVENTS_V2_MAX_BYTES} bytes`, schema: Answer('EventsV2TooLarge', z.literal('invalid event'), 'Too large') },
      429: {
        description: `Past the key's rate, ${EVENTS_PER_MINUTE} events a minute: the event is not taken; retry after \`Retry-After\` seconds`,
        schema: Answer('EventsV2Throttled', z.literal('throttle exceeded'), 'Throttled'),
        headers: { 'Retry-After': 'Seconds until the key\'s current one-minute window ends' },
      },
    },
  },
  async ({ body }) => receiveEventsV2(body),
);
