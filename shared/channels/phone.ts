/** Phone numbers as SMS and voice take them: E.164, and masked for the timeline. (Minimal; the phones helper's version wins at merge.) */
const E164 = /^\+[1-9]\d{7,14}$/;

export function normalizePhone(raw: string): { address: string } | { error: string } {
  const compact = raw.replace(/[\s().-]/g, '');
  return E164.test(compact) ? { address: compact } : { error: 'Phone numbers are in E.164 form: + then 8 to 15 digits' };
}

/** `+1•••0100`: the `+`, the first digit after it, `•••`, the last 4. */
export const maskPhone = (address: string) => `${address.slice(0, 2)}•••${address.slice(-4)}`;
