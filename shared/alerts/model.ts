/**
 * What an alert from a monitoring tool comes down to, whichever protocol it arrived by: open (or
 * count on) the incident of a dedup key, acknowledge it, or resolve it. The Events API v2 parser
 * (`events-v2.ts`) and the Alertmanager/Grafana webhook parser (`alertmanager.ts`) both produce these.
 */
import { BIDI_CONTROL as BIDI_CHARACTER, CONTROL as CONTROL_CHARACTER, INVISIBLE_EDGES, LONE_SURROGATE as LONE_SURROGATE_CHARACTER } from '../platform/api/common.js';
import type { Severity } from '../incidents/model.js';

export type AlertAction = 'trigger' | 'acknowledge' | 'resolve';

export interface TriggerEvent {
  action: 'trigger';
  /** The incident it opens or adds to: the open incident of the monitor with this key. */
  dedupKey: string;
  /** The incident's title: the summary made a valid title (see `incidentTitle`). */
  title: string;
  /** The full text the title came from, for the timeline's `created` entry. */
  summary: string;
  severity: Severity;
  /** When the tool says the problem started (ISO 8601 UTC), if it says so. */
  occurredAt: string | null;
}

export interface FollowUpEvent {
  action: 'acknowledge' | 'resolve';
  dedupKey: string;
}

export type AlertEvent = TriggerEvent | FollowUpEvent;

/** The contract's limit of an incident title. */
export const TITLE_MAX_LENGTH = 200;

/** The title's own rules (`Text` in shared/platform/api/common.ts), as patterns that replace every match. */
const CONTROL = new RegExp(CONTROL_CHARACTER.source, 'g');
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_CHARACTER.source, 'g');
const BIDI = new RegExp(BIDI_CHARACTER.source, 'g');

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * A valid incident title from a tool's text: control characters (a multi-line summary's line breaks)
 * become spaces, bidirectional controls go (the API refuses them in a title), a lone surrogate becomes U+FFFD, the ends are trimmed, and what is left is cut to 200
 * UTF-16 code units (the contract's characters, as the title's schema counts them) — one fewer when
 * the 200th would be the first half of a surrogate pair, so a character is never cut in two. A text
 * with nothing visible left gives `fallback`.
 */
export function incidentTitle(text: string, fallback: string): string {
  const clean = text.replace(CONTROL, ' ').replace(BIDI, '').replace(LONE_SURROGATE, '\uFFFD').replace(INVISIBLE_EDGES, '');
  if (!clean) return fallback;
  if (clean.length <= TITLE_MAX_LENGTH) return clean;
  const end = isHighSurrogate(clean.charCodeAt(TITLE_MAX_LENGTH - 1)) ? TITLE_MAX_LENGTH - 1 : TITLE_MAX_LENGTH;
  return clean.slice(0, end).replace(INVISIBLE_EDGES, '') || fallback;
}

/** The number of characters (Unicode code points) of a text, as PagerDuty and Alertmanager count them. */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Parsed JSON with every lone surrogate (`"\ud800"` is valid JSON) made U+FFFD, in values and keys
 * alike: DynamoDB refuses strings that are not valid UTF-8, and a tool's text ends up in items.
 */
export function wellFormed(value: Json): Json {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value === null || typeof value !== 'object') return value;
  const copy: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a `"__proto__"` key stays a key (an assignment would set the copy's prototype).
    Object.defineProperty(copy, key.replace(LONE_SURROGATE, '\uFFFD'), { value: wellFormed(item), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
