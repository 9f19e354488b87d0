import { SecretBody } from '../../shared/webhooks/model.js';
import { rotateSecret } from '../../shared/webhooks/service.js';
import { idParams } from '../../shared/platform/validation.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: 'Give a webhook a new signing secret; for 24 hours its messages carry a signature with the previous one too',
    params: idParams,
    response: SecretBody,
    errors: { 403: ['Not authorized'], 404: ['Webhook not found'] },
    failure: 'Failed to rotate webhook secret',
  },
  async ({ params, caller }) => rotateSecret(caller, params.id),
);
