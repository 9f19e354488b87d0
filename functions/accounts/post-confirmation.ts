/** `accounts-post-confirmation`: Cognito's post-confirmation trigger creates the account record. */
import type { PostConfirmationTriggerEvent } from 'aws-lambda';
import { registerAccount } from '../../shared/accounts/service.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler('accounts-post-confirmation', async (event: PostConfirmationTriggerEvent) => {
  if (event.triggerSource === 'PostConfirmation_ConfirmSignUp') {
    const attributes = event.request.userAttributes;
    await registerAccount({
      id: attributes.sub!,
      email: attributes.email!,
      name: attributes.name ?? attributes.email!,
    });
  }
  return event;
});
