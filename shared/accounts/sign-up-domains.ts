/**
 * Self sign-up for some domains only (`allowedSignUpDomains`, issue 46 §2): the Cognito pre-sign-up
 * trigger refuses an address of any other domain, before Cognito sends it a code.
 */

/** The domains of the setting (`ALLOWED_SIGN_UP_DOMAINS`, comma-separated); none when unset, which refuses everyone. */
export const allowedDomainsOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean);

/** Whether an address may sign up: its domain (after the last `@`) is one of the allowed, exactly (no subdomains). */
export function signUpAllowed(email: string | undefined, domains: readonly string[]): boolean {
  const at = email?.lastIndexOf('@') ?? -1;
  if (!email || at < 1) return false;
  return domains.includes(email.slice(at + 1).toLowerCase());
}

/** What Cognito shows the person refused (its `UserLambdaValidationException` carries the message). */
export const signUpRefusal = (domains: readonly string[]) => `Sign-up is open to addresses of ${domains.join(', ')} only; ask a team manager for an account`;
