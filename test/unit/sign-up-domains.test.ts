/**
 * Self sign-up for some domains only (`allowedSignUpDomains`, issue 46 §2): the Cognito pre-sign-up
 * trigger refuses every other address before Cognito sends it a code.
 */
import type { Context, PreSignUpTriggerEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/accounts/post-confirmation.js';
import { allowedDomainsOf, signUpAllowed } from '../../shared/accounts/sign-up-domains.js';
import { env } from '../../shared/system.js';

const preSignUp = (email: string, triggerSource: PreSignUpTriggerEvent['triggerSource'] = 'PreSignUp_SignUp') =>
  ({ triggerSource, request: { userAttributes: { email } }, response: {} }) as unknown as PreSignUpTriggerEvent;
const context = { awsRequestId: 'test-request', functionName: 'accounts-post-confirmation' } as Context;
const invoke = (event: PreSignUpTriggerEvent) => (handler as unknown as (event: PreSignUpTriggerEvent, context: Context) => Promise<unknown>)(event, context);

describe('sign-up domains', () => {
  afterEach(() => {
    delete process.env[env.allowedSignUpDomains];
  });

  it('admits an address of an allowed domain only, exactly (no subdomain, no look-alike), case-insensitively', () => {
    const domains = allowedDomainsOf(' Example.com, example.org ,');
    expect(domains).toEqual(['example.com', 'example.org']);
    expect(signUpAllowed('alice@example.com', domains)).toBe(true);
    expect(signUpAllowed('Bob@EXAMPLE.ORG', domains)).toBe(true);
    for (const email of ['alice@mail.example.com', 'alice@example.com.evil.test', 'alice@notexample.com', 'example.com', '@example.com', '', undefined]) {
      expect(signUpAllowed(email, domains), String(email)).toBe(false);
    }
    // An unset setting refuses everyone (the trigger is attached only with domains).
    expect(signUpAllowed('alice@example.com', allowedDomainsOf(undefined))).toBe(false);
  });

  it("refuses a stranger's sign-up in the trigger, saying which domains may sign up, and lets an administrator's creation through", async () => {
    process.env[env.allowedSignUpDomains] = 'example.com';
    await expect(invoke(preSignUp('mallory@elsewhere.test'))).rejects.toThrow('Sign-up is open to addresses of example.com only; ask a team manager for an account');
    await expect(invoke(preSignUp('alice@example.com'))).resolves.toMatchObject({ triggerSource: 'PreSignUp_SignUp' });
    await expect(invoke(preSignUp('mallory@elsewhere.test', 'PreSignUp_AdminCreateUser'))).resolves.toMatchObject({ triggerSource: 'PreSignUp_AdminCreateUser' });
  });
});
