import * as z from '../../shared/platform/zod.js';
import { escalateTexts } from '../../shared/incidents/service.js';
import { escalateIncident } from '../../shared/paging/escalate-now.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "Escalate now: page the incident's next escalation step at once instead of at its delay",
    params: idParams,
    status: 202,
    response: z.strictObject({ escalation: z.strictObject({ step_order: z.number() }) }),
    errors: {
      403: ['Not authorized'],
      404: ['Incident not found'],
      409: [escalateTexts.acknowledged, escalateTexts.resolved, escalateTexts.noMoreSteps],
    },
    failure: 'Failed to escalate incident',
  },
  async ({ params, caller }) => ({ escalation: await escalateIncident(caller, params.id) }),
);
