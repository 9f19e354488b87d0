import * as z from '../../shared/platform/zod.js';
import { postUpdate } from '../../shared/incidents/service.js';
import { postUpdateInput, TimelineEntryBody } from '../../shared/incidents/timeline.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Post a note on an incident's timeline; with status, it also changes the status exactly as PUT does (subscribers get the note)",
    params: idParams,
    body: postUpdateInput,
    status: 201,
    response: z.strictObject({ update: TimelineEntryBody }),
    errors: { 403: ['Not authorized'], 404: ['Incident not found'] },
    failure: 'Failed to post update',
    idempotent: true,
  },
  async ({ params, body, caller }) => ({ update: await postUpdate(caller, params.id, body) }),
);
