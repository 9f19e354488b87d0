import { randomUUID } from 'node:crypto';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { findAccountIdByEmail, getAccount, insertAccount } from './repository.js';
import type { Account, SignUpInput } from './model.js';

/**
 * Signs a user up, or returns the existing account of that e-mail (case-insensitive).
 * The e-mail is kept as first given; the lookup is by its lower-cased form.
 */
export async function signUp(input: SignUpInput): Promise<Account> {
  const account: Account = {
    id: randomUUID(),
    email: input.email,
    name: input.name,
    created_at: clock.nowIso(),
  };
  if (await insertAccount(account)) return account;
  const existingId = await findAccountIdByEmail(input.email);
  const existing = existingId ? await getAccount(existingId) : undefined;
  if (!existing) throw new Error(`Account e-mail claim without an account: ${input.email}`);
  return existing;
}

/**
 * Creates the account record of an identity-provider user (id = the user's `sub`), as the
 * Cognito post-confirmation trigger does on AWS. Idempotent for the same user.
 */
export async function registerAccount(input: { id: string; email: string; name: string }): Promise<Account> {
  const account: Account = { ...input, name: input.name.slice(0, 100), created_at: clock.nowIso() };
  if (await insertAccount(account)) return account;
  const existing = await getAccount(input.id);
  if (existing) return existing;
  throw new Error(`The e-mail of user ${input.id} already belongs to another account`);
}

/**
 * The name and e-mail to show for the caller: the account record's, else the token's claims
 * (users of an external identity provider may have no account record).
 */
export function identityOf(caller: Caller, account: Account | undefined): { name: string; email: string } {
  return {
    name: account?.name ?? caller.name ?? caller.email ?? caller.userId,
    email: account?.email ?? caller.email ?? '',
  };
}

export { getAccount } from './repository.js';
