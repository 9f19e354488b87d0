import * as z from '../../shared/platform/zod.js';
import { described } from '../../shared/platform/api/common.js';
import { pingHeartbeat, PINGS_PER_MINUTE } from '../../shared/heartbeats/service.js';
import { KEY_RATE_MESSAGE } from '../../shared/integrations/keys.js';
import { jsonResponse, rawRoute } from '../lib/http.js';

export const handler = rawRoute(
  {
    summary:
      "A heartbeat ping (public; the path's key is one of the monitor's integration keys, so the URL is a secret): moves the monitor's heartbeat deadline on, and resolves its \"missed its heartbeat\" incident as recovered",
    failure: 'Failed to record heartbeat',
    status: 202,
    params: z.strictObject({ key: described(z.string(), { description: "One of the monitor's integration keys: the heartbeat URL is a secret (logs show `[key]`)" }) }),
    requestBody: { description: 'Optional: no body, or anything (ignored)', schema: z.optional(described(z.unknown(), { id: 'HeartbeatPing' })) },
    responses: {
      202: { description: 'Ping recorded', schema: described(z.strictObject({ message: z.literal('Heartbeat recorded') }), { id: 'HeartbeatRecorded' }) },
      404: {
        description: 'A key that names no integration (unknown, revoked, or its monitor deleted), or a monitor without a heartbeat',
        schema: z.strictObject({ error: z.literal('Heartbeat not found') }),
      },
      429: {
        description: `Past the key's rate, ${PINGS_PER_MINUTE} pings a minute (counted apart from its events): the ping is not recorded; ping again after \`Retry-After\` seconds`,
        schema: z.strictObject({ message: z.literal(KEY_RATE_MESSAGE) }),
        headers: { 'Retry-After': "Seconds until the key's current one-minute window ends" },
      },
    },
  },
  async ({ params }) => {
    await pingHeartbeat(params.key ?? '');
    return jsonResponse(202, { message: 'Heartbeat recorded' });
  },
);
