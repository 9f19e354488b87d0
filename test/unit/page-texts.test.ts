/**
 * What a page's SMS and call say (issue 43 §4): the SMS in one 160-character GSM-7 part where it fits
 * (the title cut to fit; a hyphen for the issue's em dash, which GSM-7 lacks), UCS-2's 70 when the
 * title needs it, the link in a second part rather than lost; the call reads the incident twice and
 * says how to acknowledge. And the masks the timeline shows.
 */
import { describe, expect, it } from 'vitest';
import { combinedSms, combinedVoice, isGsm7, pageSms, pageVoice, smsUnits } from '../../shared/notifications/texts.js';
import { nextAllowed, THROTTLES } from '../../shared/notifications/throttle.js';
import { channelFor } from '../../shared/channels/index.js';

const facts = { code: 12, severity: 'CRITICAL', title: 'Checkout 5xx above 2%', monitorName: 'Checkout', acknowledgeUrl: 'https://x.io/acknowledge/abc' };

describe('the SMS of a page', () => {
  it("says the code, the severity, the title and the reply commands, then the link, in one GSM-7 part", () => {
    const text = pageSms(facts);
    expect(text).toBe('[12] CRITICAL Checkout 5xx above 2% - reply 12a to acknowledge, 12r to resolve https://x.io/acknowledge/abc');
    expect(isGsm7(text)).toBe(true);
    expect(smsUnits(text)).toBeLessThanOrEqual(160);
  });

  it('cuts a long title to keep the message to 160 GSM-7 characters', () => {
    const text = pageSms({ ...facts, title: `Checkout 5xx above 2% ${'on every node of the cluster '.repeat(5)}` });
    expect(smsUnits(text)).toBe(160);
    expect(text).toMatch(/^\[12\] CRITICAL Checkout 5xx above 2% on every .*\.\.\. - reply 12a to acknowledge, 12r to resolve https:\/\/x\.io\/acknowledge\/abc$/);
  });

  it('counts GSM-7 extension characters twice', () => {
    const title = `Queue [orders] {eu} ${'x'.repeat(80)}`;
    const text = pageSms({ ...facts, title });
    expect(isGsm7(text)).toBe(true);
    expect(smsUnits(text)).toBeLessThanOrEqual(160);
    expect(text.length).toBeLessThan(160);
  });

  it("keeps to UCS-2's 70 characters a part when the title needs UCS-2", () => {
    const text = pageSms({ ...facts, acknowledgeUrl: 'https://x.io/a', title: 'Заказы не проходят 🔥' });
    expect(isGsm7(text)).toBe(false);
    // The commands and the link alone take more than 70: the text holds to one part, the link follows.
    expect(text).toMatch(/^\[12\] CRITICAL Заказы.*\.\.\. - reply 12a to acknowledge, 12r to resolve https:\/\/x\.io\/a$/);
    expect(text.length - ' https://x.io/a'.length).toBeLessThanOrEqual(70);
  });

  it('sends the link in a second part rather than lose it (or the reply codes) when it leaves no room for the title', () => {
    const acknowledgeUrl = `https://abcdef1234.execute-api.eu-west-1.amazonaws.com/acknowledge/${'t'.repeat(43)}`;
    const text = pageSms({ ...facts, acknowledgeUrl, title: 'x'.repeat(200) });
    expect(text.endsWith(` - reply 12a to acknowledge, 12r to resolve ${acknowledgeUrl}`)).toBe(true);
    expect(smsUnits(text.slice(0, -acknowledgeUrl.length - 1))).toBeLessThanOrEqual(160);
  });
});

describe('the call of a page', () => {
  it('reads the incident twice and says how to acknowledge', () => {
    const text = pageVoice(facts);
    const incident = 'A critical severity incident on Checkout: Checkout 5xx above 2%.';
    expect(text.split(incident)).toHaveLength(3);
    expect(text).toContain('reply to the text message with 1 2 A, or open the link in the e-mail');
  });
});

describe('masked addresses', () => {
  it('show a phone number as + its first digit ••• its last 4, an e-mail as its first character ••• its domain', () => {
    expect(channelFor('sms').mask('+15550100')).toBe('+1•••0100');
    expect(channelFor('voice').mask('+442071230100')).toBe('+4•••0100');
    expect(channelFor('email').mask('ana@example.com')).toBe('a•••@example.com');
  });
});

describe('the combined message of held pages (issue 43 §4, throttles)', () => {
  const held = (code: number, title = `Service ${code} 5xx above 2%`) => ({ code, severity: 'HIGH', title, monitorName: `Service ${code}` });

  it('names each incident with its code, severity and title, and how to acknowledge', () => {
    expect(combinedSms([held(12), held(13)])).toBe('2 new incidents: [12] HIGH Service 12 5xx above 2%; [13] HIGH Service 13 5xx above 2% - reply <n>a to acknowledge');
    expect(combinedSms([held(7)])).toBe('1 new incident: [7] HIGH Service 7 5xx above 2% - reply 7a to acknowledge, 7r to resolve');
  });

  it('keeps to 160 GSM-7 characters: titles cut first, then left out, then codes only', () => {
    const long = 'Checkout latency above the objective on every node of the cluster';
    const cut = combinedSms([held(12, long), held(13, long), held(14, long)]);
    expect(smsUnits(cut)).toBeLessThanOrEqual(160);
    expect(cut).toMatch(/^3 new incidents: \[12\] HIGH Checkout .*\.\.\.; \[13\] HIGH Checkout .*\.\.\.; \[14\] HIGH Checkout .*\.\.\. - reply <n>a to acknowledge$/);
    const severities = combinedSms([1, 2, 3, 4, 5, 6, 7].map((code) => held(code, long)));
    expect(severities).toBe('7 new incidents: [1] HIGH; [2] HIGH; [3] HIGH; [4] HIGH; [5] HIGH; [6] HIGH; [7] HIGH - reply <n>a to acknowledge');
    const codes = combinedSms(Array.from({ length: 12 }, (_, index) => held(index + 1, long)));
    expect(codes).toBe('12 new incidents: [1] [2] [3] [4] [5] [6] [7] [8] [9] [10] [11] [12] - reply <n>a to acknowledge');
    expect(smsUnits(codes)).toBeLessThanOrEqual(160);
  });

  it('reads the count and each incident in a call', () => {
    expect(combinedVoice([held(12), held(3)])).toMatch(
      /^This is an incident page\. 2 new incidents\. Incident 1 2: high severity, on Service 12: Service 12 5xx above 2%\. Incident 3: .* Again: Incident 1 2: .*Goodbye\.$/,
    );
  });
});

describe('sliding windows', () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 27, 8, 0) + minutes * 60_000).toISOString();
  const now = (minutes: number) => Date.parse(at(minutes));

  it('lets one more go once the oldest of the last `count` sends leaves the window', () => {
    const five = [0, 1, 2, 3, 4].map(at);
    expect(nextAllowed(five.slice(0, 4), now(5), THROTTLES.sms)).toBe(now(5));
    expect(nextAllowed(five, now(5), THROTTLES.sms)).toBe(now(15));
    // The hour: 11 sends spread so that no 15 minutes hold 5.
    const eleven = [0, 0, 0, 0, 16, 16, 16, 16, 32, 32, 32].map(at);
    expect(nextAllowed(eleven, now(33), THROTTLES.sms)).toBe(now(60));
    expect(nextAllowed([0, 1, 2].map(at), now(3), THROTTLES.voice)).toBe(now(15));
  });
});
