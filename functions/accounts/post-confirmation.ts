/**
 * `accounts-post-confirmation`: the user pool's trigger for accounts (AWS only). Post confirmation:
 * creates the account record of a user who signed up. Post authentication (attached when
 * `selfSignUp` is false): creates it at the first sign-in of a user an administrator created, who never
 * confirms a sign-up (idempotent: later sign-ins find it). Pre sign-up (attached with
 * `allowedSignUpDomains`): refuses an address of another domain before Cognito sends it anything.
 */
import type { PostAuthenticationTriggerEvent, PostConfirmationTriggerEvent, PreSignUpTriggerEvent } from 'aws-lambda';
import { registerAccount } from '../../shared/accounts/service.js';
import { allowedDomainsOf, signUpAllowed, signUpRefusal } from '../../shared/accounts/sign-up-domains.js';
import { env } from '../../shared/system.js';
import { workerHandler } from '../lib/observability.js';

type AccountsTriggerEvent = PostConfirmationTriggerEvent | PostAuthenticationTriggerEvent | PreSignUpTriggerEvent;

export const handler = workerHandler('accounts-post-confirmation', async (event: AccountsTriggerEvent) => {
  const attributes = event.request.userAttributes;
  if (event.triggerSource === 'PreSignUp_SignUp') {
    // (An administrator's AdminCreateUser is not refused: PreSignUp_AdminCreateUser.)
    const domains = allowedDomainsOf(process.env[env.allowedSignUpDomains]);
    if (!signUpAllowed(attributes.email, domains)) throw new Error(signUpRefusal(domains));
  }
  if (event.triggerSource === 'PostConfirmation_ConfirmSignUp' || event.triggerSource === 'PostAuthentication_Authentication') {
    await registerAccount({
      id: attributes.sub!,
      email: attributes.email!,
      name: attributes.name ?? attributes.email!,
    });
  }
  return event;
});
