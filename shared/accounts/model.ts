import * as z from 'zod';

export const Email = z.email().max(254);
export const PersonName = z.string().trim().min(1).max(100);

export const signUpInput = z.strictObject({
  email: Email,
  name: PersonName,
});
export type SignUpInput = z.output<typeof signUpInput>;

/** The account record the service keeps for a user (names and e-mails for members, acknowledgements). */
export const accountItem = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  created_at: z.string(),
});
export type Account = z.output<typeof accountItem>;

export const accountView = (account: Account) => ({
  id: account.id,
  email: account.email,
  name: account.name,
});
