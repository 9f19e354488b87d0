/**
 * Phone numbers as the service keeps them: E.164 (`+`, then 8 to 15 digits, the first 1–9), the form
 * AWS End User Messaging takes and publishes. A number is shown masked (`+1•••0100`): the `+`, the
 * first digit after it (the country, as far as one can know without a table of country codes), and
 * the last four digits.
 */
const E164 = /^\+[1-9]\d{7,14}$/;

export const E164_MESSAGE = 'must be a phone number in E.164 form: + and 8 to 15 digits, as in +14155550100';

/** Whether `value` is a phone number in E.164 form. */
export const isE164 = (value: string): boolean => E164.test(value);

/**
 * The canonical form of a number: E.164 exactly as given (the issue: "anything else 400"). Nothing
 * is stripped or guessed, so what a person verifies is the very number that is paged.
 */
export function normalizePhone(raw: string): { address: string } | { error: string } {
  return isE164(raw) ? { address: raw } : { error: E164_MESSAGE };
}

/** `+14155550100` → `+1•••0100`. */
export function maskPhone(e164: string): string {
  if (!isE164(e164)) return '•••';
  return `${e164.slice(0, 2)}•••${e164.slice(-4)}`;
}
