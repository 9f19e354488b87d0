/**
 * PagerDuty Events API v2 (`POST /v2/enqueue`), byte-compatible, so that a tool's "PagerDuty" output
 * works by pointing its URL at us: the request body parsed into an event, or into PagerDuty's own
 * answer naming each bad field, and the answers PagerDuty gives.
 *
 * The parser takes the raw body text, not parsed JSON: a body that is not JSON gets PagerDuty's answer
 * too, never the API's own `400 Validation errors` (the route must not put the API's JSON parser in
 * front of it). The checks are written out rather than in zod: every message is PagerDuty's, in
 * PagerDuty's order (routing key, action, dedup key, then the payload), and zod's issues would have to
 * be translated one by one.
 *
 * Sources of the wording (PagerDuty publishes no list; these are its answers as quoted in the wild):
 * - `Length of 'routing_key' is incorrect (should be 32 characters)`: PagerDuty's Events API v2 docs
 *   (the example 400), envato/pagerduty#70.
 * - `'routing_key' cannot contain non-alphanumeric characters.`: blockpane/tenderduty#10 (with the
 *   length error in the same answer).
 * - `'routing_key' cannot be blank`, `'event_action' is missing or blank`: PagerDuty/go-pagerduty's
 *   tests and a recorded keyless POST to events.pagerduty.com.
 * - `'payload.source' is missing or blank`: louislam/uptime-kuma#7319, PagerDuty/go-pagerduty#476;
 *   `'payload.severity' is missing or blank`: SigNoz/signoz#9536;
 *   `'payload.severity' is invalid (must be one of the following: 'critical', 'warning', 'error' or 'info')`:
 *   prometheus-community/helm-charts#2309, robusta-dev/robusta#1153.
 * - `'summary' is too long (maiximum is 1024 characters)` — PagerDuty's typo included:
 *   dagster-io/dagster#19567, livepeer/stream-tester#354.
 * - `Event object format is unrecognized` / `JSON parse error`: prometheus/alertmanager#2082 (a real
 *   answer as Alertmanager logs it); its status `Unrecognized object` from mocks of the API.
 * - 429 body: PagerDuty/go-pagerduty's `event_v2_test.go`.
 * Messages modelled on those where no answer is on record (same templates): `'payload.summary' is
 * missing or blank`, `'dedup_key' is missing or blank`, `'dedup_key' is too long (maiximum is 255
 * characters)`, `'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or
 * 'resolve')`, `'<field>' is invalid (must be a string)`, `Invalid routing key` (an unknown or revoked
 * key; PagerDuty answers that text bare, the issue wants PagerDuty's JSON) and the 413's text.
 */
import { randomUUID } from 'node:crypto';
import type { AlertDetails, Severity } from '../incidents/model.js';
import { codePointLength, incidentTitle, wellFormed, type AlertEvent, type Json } from './model.js';

/** Events up to 512 KiB are taken (PagerDuty: "Events API payloads are limited to 512 KB"; Alertmanager strips details past 512,000 bytes). */
export const EVENTS_V2_MAX_BYTES = 512 * 1024;
export const SUMMARY_MAX_LENGTH = 1024;
export const DEDUP_KEY_MAX_LENGTH = 255;
const ROUTING_KEY_LENGTH = 32;

export const PAGERDUTY_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type PagerDutySeverity = (typeof PAGERDUTY_SEVERITIES)[number];

const isPagerDutySeverity = (value: string): value is PagerDutySeverity => (PAGERDUTY_SEVERITIES as readonly string[]).includes(value);

/** PagerDuty's severities as the contract's: critical→CRITICAL, error→HIGH, warning→MEDIUM, info→LOW. */
export const SEVERITY_FROM_PAGERDUTY: Readonly<Record<PagerDutySeverity, Severity>> = {
  critical: 'CRITICAL',
  error: 'HIGH',
  warning: 'MEDIUM',
  info: 'LOW',
};

/** The error texts of a 400, PagerDuty's words. */
export const EventsV2Errors = {
  routingKeyBlank: "'routing_key' cannot be blank",
  routingKeyLength: `Length of 'routing_key' is incorrect (should be ${ROUTING_KEY_LENGTH} characters)`,
  routingKeyCharacters: "'routing_key' cannot contain non-alphanumeric characters.",
  /** A key of the right shape that names no integration (unknown or revoked). */
  routingKeyUnknown: 'Invalid routing key',
  eventActionMissing: "'event_action' is missing or blank",
  eventActionInvalid: "'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')",
  dedupKeyMissing: "'dedup_key' is missing or blank",
  // "maiximum" is PagerDuty's spelling, kept: clients match on these texts.
  dedupKeyTooLong: `'dedup_key' is too long (maiximum is ${DEDUP_KEY_MAX_LENGTH} characters)`,
  summaryMissing: "'payload.summary' is missing or blank",
  summaryTooLong: `'summary' is too long (maiximum is ${SUMMARY_MAX_LENGTH} characters)`,
  sourceMissing: "'payload.source' is missing or blank",
  severityMissing: "'payload.severity' is missing or blank",
  severityInvalid: "'payload.severity' is invalid (must be one of the following: 'critical', 'warning', 'error' or 'info')",
  notAString: (field: string) => `'${field}' is invalid (must be a string)`,
  tooLarge: `Event object is too large (maximum is ${EVENTS_V2_MAX_BYTES} bytes)`,
} as const;

export interface EventsV2Link {
  href: string;
  text?: string;
}

export interface EventsV2Image {
  src: string;
  href?: string;
  alt?: string;
}

/** What a trigger carries beyond the incident's fields, as sent (for the timeline and the e-mail). */
export interface EventsV2Details {
  source: string;
  pagerdutySeverity: PagerDutySeverity;
  component: string | null;
  group: string | null;
  class: string | null;
  customDetails: unknown;
  links: EventsV2Link[];
  images: EventsV2Image[];
  client: string | null;
  clientUrl: string | null;
}

export type EventsV2Event = AlertEvent & {
  routingKey: string;
  /** True when a trigger came without a dedup key and got a generated one (answered back to the tool). */
  dedupKeyGenerated: boolean;
  /** A trigger's other fields; null for acknowledge and resolve. */
  details: EventsV2Details | null;
};

/** An answer of the endpoint: an API Gateway (payload 2.0) result. */
export interface EventsV2Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type EventsV2Parse = { ok: true; event: EventsV2Event } | { ok: false; answer: EventsV2Answer };

const JSON_HEADERS = { 'content-type': 'application/json' };

/** 202: the event is taken. The key order is PagerDuty's. */
export const acceptedAnswer = (dedupKey: string): EventsV2Answer => ({
  statusCode: 202,
  headers: JSON_HEADERS,
  body: JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: dedupKey }),
});

/** 400: the event is not valid; one text per bad field. */
export const invalidEventAnswer = (errors: readonly string[]): EventsV2Answer => ({
  statusCode: 400,
  headers: JSON_HEADERS,
  body: JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors }),
});

/** 400: a routing key of the right shape that names no integration (never created, or revoked). */
export const unknownRoutingKeyAnswer = (): EventsV2Answer => invalidEventAnswer([EventsV2Errors.routingKeyUnknown]);

/** 400: the body is not JSON, or not a JSON object. */
export const unrecognizedObjectAnswer = (): EventsV2Answer => ({
  statusCode: 400,
  headers: JSON_HEADERS,
  body: JSON.stringify({ status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: ['JSON parse error'] }),
});

/** 413: past 512 KiB. */
export const tooLargeAnswer = (): EventsV2Answer => ({
  statusCode: 413,
  headers: JSON_HEADERS,
  body: JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors: [EventsV2Errors.tooLarge] }),
});

/** 429: past the key's rate; the event is not taken. `Retry-After` in whole seconds, at least 1. */
export const rateLimitedAnswer = (retryAfterSeconds: number): EventsV2Answer => ({
  statusCode: 429,
  headers: { ...JSON_HEADERS, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  body: JSON.stringify({
    status: 'throttle exceeded',
    message: 'Requests for this service are arriving too quickly.  Please retry later.',
    errors: ['Enhance Your Calm.'],
  }),
});

/**
 * The most an incident keeps of a trigger's details (`alertDetails`), as UTF-8 JSON: 16 KiB, what
 * PagerDuty shows of an alert's body at a glance and far inside DynamoDB's 400 KB item. The event itself
 * may be 512 KiB (Alertmanager fills `custom_details` with every label and annotation of a group).
 */
export const ALERT_DETAILS_MAX_BYTES = 16 * 1024;
/** A text field's most characters as kept (`source`, `component`, … and each link's and image's texts). */
const DETAIL_TEXT_MAX_LENGTH = 1024;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** At most `max` characters (code points) of `text`. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

const cutText = (text: string | null) => (text === null ? null : cut(text, DETAIL_TEXT_MAX_LENGTH));

/**
 * A trigger's details as its incident keeps them (issue 42 §6): each text at most 1,024 characters, and
 * the whole at most `ALERT_DETAILS_MAX_BYTES` of JSON. Past that, `custom_details` becomes its JSON
 * text cut to what fits (images, then links, dropped first if even the rest does not fit), with
 * `truncated: true`: the alert is never refused for its size (PagerDuty takes up to 512 KiB), and
 * what is kept is what a person reads first.
 */
export function alertDetails(details: EventsV2Details): AlertDetails {
  const kept: AlertDetails = {
    source: cut(details.source, DETAIL_TEXT_MAX_LENGTH),
    severity: details.pagerdutySeverity,
    component: cutText(details.component),
    group: cutText(details.group),
    class: cutText(details.class),
    custom_details: details.customDetails ?? null,
    links: details.links.map((link) => ({ href: cut(link.href, DETAIL_TEXT_MAX_LENGTH), ...(link.text === undefined ? {} : { text: cut(link.text, DETAIL_TEXT_MAX_LENGTH) }) })),
    images: details.images.map((image) => ({
      src: cut(image.src, DETAIL_TEXT_MAX_LENGTH),
      ...(image.href === undefined ? {} : { href: cut(image.href, DETAIL_TEXT_MAX_LENGTH) }),
      ...(image.alt === undefined ? {} : { alt: cut(image.alt, DETAIL_TEXT_MAX_LENGTH) }),
    })),
    client: cutText(details.client),
    client_url: cutText(details.clientUrl),
    truncated: false,
  };
  if (jsonBytes(kept) <= ALERT_DETAILS_MAX_BYTES) return kept;
  const rest: AlertDetails = { ...kept, custom_details: '', truncated: true };
  while (jsonBytes(rest) > ALERT_DETAILS_MAX_BYTES && (rest.images.length > 0 || rest.links.length > 0)) {
    if (rest.images.length > 0) rest.images = rest.images.slice(0, -1);
    else rest.links = rest.links.slice(0, -1);
  }
  // The longest prefix of custom_details' JSON text (whole characters) that keeps the whole within the cap.
  const text = Array.from(JSON.stringify(kept.custom_details));
  let fits = 0;
  let over = text.length + 1;
  while (over - fits > 1) {
    const middle = Math.floor((fits + over) / 2);
    if (jsonBytes({ ...rest, custom_details: text.slice(0, middle).join('') }) <= ALERT_DETAILS_MAX_BYTES) fits = middle;
    else over = middle;
  }
  return { ...rest, custom_details: text.slice(0, fits).join('') };
}

type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A string field as PagerDuty's service takes it: absent or null is absent; a number or boolean is
 * taken as its JSON text (clients send `"source": 1`); an object or array is not a string.
 */
function stringField(value: Json | undefined): { value: string | null } | { invalid: true } {
  if (value === undefined || value === null) return { value: null };
  if (typeof value === 'string') return { value };
  if (typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
  return { invalid: true };
}

const isBlank = (value: string | null): value is null => value === null || value.trim() === '';

/** An optional string field: dropped when it is not one. */
function optionalString(value: Json | undefined): string | null {
  const field = stringField(value);
  return 'value' in field && !isBlank(field.value) ? field.value : null;
}

/** A timestamp the tool sent, as ISO 8601 UTC; one that does not parse is ignored (PagerDuty stamps the event itself then). */
function timestamp(value: Json | undefined): string | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function links(value: Json | undefined): EventsV2Link[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (!isObject(item) || typeof item.href !== 'string' || !item.href) return [];
    return [{ href: item.href, ...(typeof item.text === 'string' ? { text: item.text } : {}) }];
  });
}

/** Images must be served over HTTPS (PagerDuty's rule); others are dropped. */
function images(value: Json | undefined): EventsV2Image[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (!isObject(item) || typeof item.src !== 'string' || !/^https:\/\//i.test(item.src)) return [];
    return [
      {
        src: item.src,
        ...(typeof item.href === 'string' ? { href: item.href } : {}),
        ...(typeof item.alt === 'string' ? { alt: item.alt } : {}),
      },
    ];
  });
}

/**
 * The body of `POST /v2/enqueue` (its raw text): an event, or the answer to give. Unknown fields are
 * ignored. Whether the routing key names an integration is the caller's to find out (and then to
 * answer `unknownRoutingKeyAnswer()`); this checks only its shape.
 */
export function parseEventsV2(raw: string): EventsV2Parse {
  if (Buffer.byteLength(raw, 'utf8') > EVENTS_V2_MAX_BYTES) return { ok: false, answer: tooLargeAnswer() };
  let body: Json;
  try {
    body = wellFormed(JSON.parse(raw) as Json);
  } catch {
    return { ok: false, answer: unrecognizedObjectAnswer() };
  }
  if (!isObject(body)) return { ok: false, answer: unrecognizedObjectAnswer() };

  const errors: string[] = [];

  const routingKeyField = stringField(body.routing_key);
  const routingKey = 'value' in routingKeyField ? routingKeyField.value : null;
  if (isBlank(routingKey)) {
    errors.push(EventsV2Errors.routingKeyBlank);
  } else {
    if (routingKey.length !== ROUTING_KEY_LENGTH) errors.push(EventsV2Errors.routingKeyLength);
    if (!/^[A-Za-z0-9]*$/.test(routingKey)) errors.push(EventsV2Errors.routingKeyCharacters);
  }

  const actionField = stringField(body.event_action);
  const action = 'value' in actionField ? actionField.value : null;
  if (isBlank(action)) errors.push(EventsV2Errors.eventActionMissing);
  else if (action !== 'trigger' && action !== 'acknowledge' && action !== 'resolve') errors.push(EventsV2Errors.eventActionInvalid);

  const dedupKeyField = stringField(body.dedup_key);
  let dedupKey: string | null = null;
  if ('invalid' in dedupKeyField) errors.push(EventsV2Errors.notAString('dedup_key'));
  else if (!isBlank(dedupKeyField.value)) {
    dedupKey = dedupKeyField.value;
    if (codePointLength(dedupKey) > DEDUP_KEY_MAX_LENGTH) errors.push(EventsV2Errors.dedupKeyTooLong);
  } else if (action === 'acknowledge' || action === 'resolve') {
    errors.push(EventsV2Errors.dedupKeyMissing);
  }

  if (action !== 'trigger') {
    if (errors.length) return { ok: false, answer: invalidEventAnswer(errors) };
    return {
      ok: true,
      event: { action: action as 'acknowledge' | 'resolve', dedupKey: dedupKey!, routingKey: routingKey!, dedupKeyGenerated: false, details: null },
    };
  }

  // A trigger's payload; one that is absent or not an object lacks each required field.
  const payload: JsonObject = isObject(body.payload) ? body.payload : {};

  const summaryField = stringField(payload.summary);
  let summary: string | null = null;
  if ('invalid' in summaryField) errors.push(EventsV2Errors.notAString('payload.summary'));
  else if (isBlank(summaryField.value)) errors.push(EventsV2Errors.summaryMissing);
  else if (codePointLength(summaryField.value) > SUMMARY_MAX_LENGTH) errors.push(EventsV2Errors.summaryTooLong);
  else summary = summaryField.value;

  const sourceField = stringField(payload.source);
  let source: string | null = null;
  if ('invalid' in sourceField) errors.push(EventsV2Errors.notAString('payload.source'));
  else if (isBlank(sourceField.value)) errors.push(EventsV2Errors.sourceMissing);
  else source = sourceField.value;

  const severityField = stringField(payload.severity);
  const severityText = 'value' in severityField ? severityField.value : '(not a string)';
  let severity: PagerDutySeverity | null = null;
  if (isBlank(severityText)) errors.push(EventsV2Errors.severityMissing);
  else if (isPagerDutySeverity(severityText)) severity = severityText;
  else errors.push(EventsV2Errors.severityInvalid);

  if (errors.length) return { ok: false, answer: invalidEventAnswer(errors) };

  return {
    ok: true,
    event: {
      action: 'trigger',
      dedupKey: dedupKey ?? randomUUID(),
      dedupKeyGenerated: dedupKey === null,
      routingKey: routingKey!,
      title: incidentTitle(summary!, incidentTitle(source!, 'Alert')),
      summary: summary!,
      severity: SEVERITY_FROM_PAGERDUTY[severity!],
      occurredAt: timestamp(payload.timestamp),
      details: {
        source: source!,
        pagerdutySeverity: severity!,
        component: optionalString(payload.component),
        group: optionalString(payload.group),
        class: optionalString(payload.class),
        customDetails: payload.custom_details ?? null,
        links: links(body.links),
        images: images(body.images),
        client: optionalString(body.client),
        clientUrl: optionalString(body.client_url),
      },
    },
  };
}
