/**
 * What an SMS and a call of a page say (issue 43 §4).
 *
 * SMS: `[12] CRITICAL Checkout 5xx above 2% - reply 12a to acknowledge, 12r to resolve` and the
 * acknowledge link, in one message of at most 160 GSM-7 characters where it fits: the title is cut
 * (ending in `...`) to make it fit. The example has an em dash, which GSM-7 lacks (one such
 * character sends the whole message as UCS-2, 70 characters a part): we write ` - `. A title that
 * needs characters outside GSM-7 (an emoji, Cyrillic) makes the message UCS-2, whose one part holds 70
 * UTF-16 units, and the same cutting applies to that limit. When even a title cut short would not leave
 * room for the link (a long API address: a link is about 110 characters on AWS), the text without the
 * link is cut to one part and the link follows it: the message then goes as 2 parts (153 GSM-7
 * characters each), rather than lose the link or the reply codes.
 *
 * Voice (one-way): the incident (severity, title, monitor) read twice, then how to acknowledge: reply
 * to the text message with the code, or the link in the e-mail.
 */

/** GSM 03.38's basic character set (one unit each)… */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** …and its extension table (two units each: an escape, then the character). */
const GSM7_EXTENDED = '^{}\\[~]|€\f';

/** One SMS part: 160 GSM-7 units, or 70 UTF-16 units when the text needs UCS-2. */
export const SMS_GSM7_LIMIT = 160;
export const SMS_UCS2_LIMIT = 70;

/** Whether the text is all GSM-7 (so it goes as GSM-7, not UCS-2). */
export const isGsm7 = (text: string) => [...text].every((char) => GSM7_BASIC.includes(char) || GSM7_EXTENDED.includes(char));

/** The units the text takes in its encoding: GSM-7 septets (the extension's count two), or UTF-16 units. */
export function smsUnits(text: string, gsm7 = isGsm7(text)): number {
  if (!gsm7) return text.length;
  return [...text].reduce((units, char) => units + (GSM7_EXTENDED.includes(char) ? 2 : 1), 0);
}

/** `text` cut (by whole characters, ending in `...`) to at most `units` in the encoding. */
function cut(text: string, units: number, gsm7: boolean): string {
  if (smsUnits(text, gsm7) <= units) return text;
  const chars = [...text];
  while (chars.length > 0 && smsUnits(`${chars.join('').trimEnd()}...`, gsm7) > units) chars.pop();
  return chars.length > 0 ? `${chars.join('').trimEnd()}...` : '';
}

/** Below this, a title is not worth keeping in one part: the link goes in a second part instead. */
const MIN_TITLE_UNITS = 12;

export interface PageFacts {
  code: number;
  severity: string;
  title: string;
  monitorName: string;
  acknowledgeUrl: string;
}

/** The SMS of a page (see the module's comment). */
export function pageSms({ code, severity, title, acknowledgeUrl }: PageFacts): string {
  const prefix = `[${code}] ${severity} `;
  const suffix = ` - reply ${code}a to acknowledge, ${code}r to resolve`;
  const link = ` ${acknowledgeUrl}`;
  const gsm7 = isGsm7(prefix + title + suffix + link);
  const limit = gsm7 ? SMS_GSM7_LIMIT : SMS_UCS2_LIMIT;
  const room = limit - smsUnits(prefix + suffix + link, gsm7);
  if (room >= Math.min(MIN_TITLE_UNITS, smsUnits(title, gsm7))) return `${prefix}${cut(title, room, gsm7)}${suffix}${link}`;
  // The link leaves too little room: the text fills one part, the link follows in the next.
  return `${prefix}${cut(title, Math.max(0, limit - smsUnits(prefix + suffix, gsm7)), gsm7)}${suffix}${link}`;
}

/** What a call of a page reads (twice), and how to acknowledge. */
export function pageVoice({ code, severity, title, monitorName }: Omit<PageFacts, 'acknowledgeUrl'>): string {
  const incident = `A ${severity.toLowerCase()} severity incident on ${monitorName}: ${title}.`;
  const spokenCode = String(code).split('').join(' ');
  return [
    `This is an incident page. ${incident}`,
    `Again: ${incident}`,
    `To acknowledge, reply to the text message with ${spokenCode} A, or open the link in the e-mail.`,
    'Goodbye.',
  ].join(' ');
}

/** One incident of a combined message (issue 43 §4's throttles). */
export interface HeldFacts {
  code: number;
  severity: string;
  title: string;
  monitorName: string;
}

/** Below this, titles are dropped from a combined SMS: severities and codes only, then codes only. */
const MIN_COMBINED_TITLE_UNITS = 8;

const incidentsWord = (count: number) => `${count} new incident${count === 1 ? '' : 's'}`;

/**
 * The SMS of pages held past a method's throttle, sent as one when its window allows:
 * `3 new incidents: [12] CRITICAL Checkout 5xx...; [13] HIGH Disk full; [14] LOW Queue - reply <n>a to acknowledge`,
 * within one part where it fits — titles cut (each to the same share of the room), then left out
 * (`[12] CRITICAL; [13] HIGH`), then codes only (`[12] [13] [14]`); past that it goes as several parts.
 * One incident: `1 new incident: [12] HIGH … - reply 12a to acknowledge, 12r to resolve`. No link:
 * the e-mail carries one, the codes acknowledge.
 */
export function combinedSms(incidents: HeldFacts[]): string {
  const prefix = `${incidentsWord(incidents.length)}: `;
  const only = incidents.length === 1 ? incidents[0] : undefined;
  const suffix = only ? ` - reply ${only.code}a to acknowledge, ${only.code}r to resolve` : ' - reply <n>a to acknowledge';
  const full = incidents.map(({ code, severity, title }) => `[${code}] ${severity} ${title}`);
  const gsm7 = isGsm7(prefix + full.join('; ') + suffix);
  const limit = gsm7 ? SMS_GSM7_LIMIT : SMS_UCS2_LIMIT;
  const fits = (list: string[], separator: string) => smsUnits(prefix + list.join(separator) + suffix, gsm7) <= limit;
  if (fits(full, '; ')) return prefix + full.join('; ') + suffix;
  const heads = incidents.map(({ code, severity }) => `[${code}] ${severity} `);
  const room = Math.floor((limit - smsUnits(prefix + heads.join('') + suffix, gsm7) - 2 * (incidents.length - 1)) / incidents.length);
  if (room >= MIN_COMBINED_TITLE_UNITS) return prefix + incidents.map(({ title }, index) => `${heads[index]}${cut(title, room, gsm7)}`).join('; ') + suffix;
  const severities = incidents.map(({ code, severity }) => `[${code}] ${severity}`);
  if (fits(severities, '; ')) return prefix + severities.join('; ') + suffix;
  return prefix + incidents.map(({ code }) => `[${code}]`).join(' ') + suffix;
}

/** What a combined call reads: how many, each incident (its code, severity, monitor, title), twice, and how to acknowledge. */
export function combinedVoice(incidents: HeldFacts[]): string {
  const spoken = (code: number) => String(code).split('').join(' ');
  const list = incidents.map(({ code, severity, title, monitorName }) => `Incident ${spoken(code)}: ${severity.toLowerCase()} severity, on ${monitorName}: ${title}.`).join(' ');
  return [
    `This is an incident page. ${incidentsWord(incidents.length)}. ${list}`,
    `Again: ${list}`,
    'To acknowledge, reply to the text message with the incident\'s number followed by A, or open the link in the e-mail.',
    'Goodbye.',
  ].join(' ');
}

/** A shift notice (issue 45 §3): `You are on call for Platform from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)`. */
export const shiftNoticeSentence = (scheduleName: string, when: string) => `You are on call for ${scheduleName} ${when}`;

/** A name is cut no shorter than this for the SMS to keep one part; past that, it goes as several. */
const MIN_SCHEDULE_NAME_UNITS = 12;

/**
 * The SMS of a shift notice: the sentence in one part where it fits, the schedule's name cut (ending in
 * `...`) to make it fit; the times and the zone are never cut. A name whose characters need UCS-2 makes
 * the part 70 units, as a page's title does.
 */
export function shiftNoticeSms(scheduleName: string, when: string): string {
  const full = shiftNoticeSentence(scheduleName, when);
  const gsm7 = isGsm7(full);
  const limit = gsm7 ? SMS_GSM7_LIMIT : SMS_UCS2_LIMIT;
  if (smsUnits(full, gsm7) <= limit) return full;
  const room = limit - smsUnits(shiftNoticeSentence('', when), gsm7);
  return shiftNoticeSentence(cut(scheduleName, Math.max(room, MIN_SCHEDULE_NAME_UNITS), gsm7), when);
}

/** What a call of a shift notice reads (twice). */
export function shiftNoticeVoice(scheduleName: string, when: string): string {
  const sentence = `${shiftNoticeSentence(scheduleName, when)}.`;
  return ['This is a shift notice.', sentence, `Again: ${sentence}`, 'Goodbye.'].join(' ');
}
