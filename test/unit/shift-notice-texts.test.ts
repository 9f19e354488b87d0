/** What a shift notice says (issue 45 §3): the shift's bounds in the schedule's zone, and an SMS of one part. */
import { describe, expect, it } from 'vitest';
import { shiftWhen } from '../../shared/schedules/notices.js';
import { isGsm7, shiftNoticeSms, smsUnits } from '../../shared/notifications/texts.js';

const ms = (iso: string) => Date.parse(iso);
const BERLIN = 'Europe/Berlin';

describe('shiftWhen', () => {
  it('tells the end by what sets it apart from the start, in the schedule\'s zone', () => {
    // Mon 2027-03-01 09:00 CET.
    const start = ms('2027-03-01T08:00:00Z');
    expect(shiftWhen(BERLIN, start, ms('2027-03-01T16:00:00Z'))).toBe('from Mon 09:00 until 17:00 (Europe/Berlin)');
    expect(shiftWhen(BERLIN, start, ms('2027-03-02T08:00:00Z'))).toBe('from Mon 09:00 until Tue 09:00 (Europe/Berlin)');
    expect(shiftWhen(BERLIN, start, ms('2027-03-07T08:00:00Z'))).toBe('from Mon 09:00 until Sun 09:00 (Europe/Berlin)');
    expect(shiftWhen(BERLIN, start, ms('2027-03-08T08:00:00Z'))).toBe('from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)');
    expect(shiftWhen(BERLIN, start, ms('2027-03-09T08:00:00Z'))).toBe('from Mon 09:00 until Tue 9 Mar 09:00 (Europe/Berlin)');
    expect(shiftWhen(BERLIN, start, null)).toBe('from Mon 09:00 (Europe/Berlin), with no handoff in the next 30 days');
    // Across the spring-forward: a week of 167 hours still ends at 09:00 local time.
    expect(shiftWhen(BERLIN, ms('2027-03-22T08:00:00Z'), ms('2027-03-29T07:00:00Z'))).toBe('from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)');
    expect(shiftWhen('America/New_York', ms('2027-03-01T14:00:00Z'), ms('2027-03-01T22:30:00Z'))).toBe('from Mon 09:00 until 17:30 (America/New_York)');
  });
});

describe('shiftNoticeSms', () => {
  const when = 'from Mon 09:00 until Mon 09:00 next week (America/Argentina/Buenos_Aires)';
  it('is the whole sentence where it fits one part', () => {
    expect(shiftNoticeSms('Platform', when)).toBe(`You are on call for Platform ${when}`);
  });
  it('cuts a long schedule name, never the times, to keep one part; a name needing UCS-2 (70 a part) is cut to 12 and goes in two', () => {
    const text = shiftNoticeSms('Payments platform primary rotation for the European data centres and the card network', when);
    expect(text.endsWith(`... ${when}`)).toBe(true);
    expect(smsUnits(text)).toBeLessThanOrEqual(160);
    const wide = shiftNoticeSms('Платформа платежей основная', 'from Mon 09:00 until 17:00 (Europe/Berlin)');
    expect(isGsm7(wide)).toBe(false);
    expect(wide).toBe('You are on call for Платформа... from Mon 09:00 until 17:00 (Europe/Berlin)');
  });
});
