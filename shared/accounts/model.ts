import * as z from '../platform/zod.js';
import { described, Text } from '../platform/api/common.js';

/**
 * An e-mail address as the service accepts it: a local part of letters, digits and _ ' + - .
 * (no leading, trailing or double dot) and a domain with a dot and a top-level domain of two or
 * more letters. The OpenAPI document carries the very pattern (zod's converter writes it beside
 * `format: email`, which alone would promise more, e.g. `0@com`).
 */
export const Email = described(z.email().check(z.maxLength(254)), {
  description: "An e-mail address: letters, digits and _ ' + - . before the @ (no leading, trailing or double dot); a domain with a dot and a top-level domain of two or more letters",
});
export const PersonName = Text({ min: 1, max: 100, name: true });

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
