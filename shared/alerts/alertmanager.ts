/**
 * Alertmanager's webhook payload (`webhook_configs`, version "4") and Grafana's webhook contact point
 * payload (the same shape with `version` "1" and fields of its own) as alert events: each alert is one
 * event whose dedup key is its `fingerprint` (a hash of its labels, the same in every notification
 * and from both members of an HA pair), firing → trigger, resolved → resolve. A notification carries
 * the group's whole current state, not a change, so a firing alert arrives again and again: what to do
 * with a trigger whose incident is open (count it) is the caller's.
 *
 * Sources: prometheus/alertmanager `notify/webhook/webhook.go` and `template/template.go` (v0.25 and
 * main); grafana/alerting `receivers/webhook/v1/webhook.go`. Unknown fields are ignored, so Grafana's
 * own (`orgId`, `title`, `state`, `message`, per alert `values`, `silenceURL`, `dashboardURL`, …) and
 * later additions of Alertmanager's (`notification_reason`, `routeLabels`) pass.
 */
import * as z from '../platform/zod.js';
import { PayloadTooLargeError, ValidationError, type ServiceError } from '../platform/errors.js';
import type { Severity } from '../incidents/model.js';
import { fieldErrors } from '../platform/validation.js';
import { incidentTitle, wellFormed, type AlertEvent, type Json } from './model.js';

/** Webhook bodies up to 1 MiB are taken (a large group's notification is big; PagerDuty's 512 KB is per event). */
export const WEBHOOK_MAX_BYTES = 1024 * 1024;

const LabelSet = z.record(z.string(), z.string(), { error: 'Must be an object of string values' });

const WebhookAlert = z.looseObject({
  status: z.enum(['firing', 'resolved'], { error: 'Must be "firing" or "resolved"' }),
  labels: LabelSet,
  annotations: z.optional(LabelSet),
  startsAt: z.optional(z.string()),
  endsAt: z.optional(z.string()),
  generatorURL: z.optional(z.string()),
  fingerprint: z.string({ error: 'Must be the alert\'s fingerprint (a string)' }).check(
    z.minLength(1, { error: 'Must not be empty' }),
    z.maxLength(255, { error: 'Must be at most 255 characters' }),
  ),
});

/** The payload, as the parser reads it and as OpenAPI documents it (`POST /alerts/alertmanager`). */
export const WebhookPayload = z.looseObject({
  version: z.enum(['4', '1'], { error: 'Must be "4" (Alertmanager) or "1" (Grafana)' }),
  groupKey: z.optional(z.string()),
  status: z.optional(z.enum(['firing', 'resolved'], { error: 'Must be "firing" or "resolved"' })),
  receiver: z.optional(z.string()),
  externalURL: z.optional(z.string()),
  alerts: z.array(WebhookAlert, { error: 'Must be a list of alerts' }),
});

type WebhookAlert = z.output<typeof WebhookAlert>;

/** One alert of a notification as an event, with what it was sent with. */
export type WebhookAlertEvent = AlertEvent & {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `annotations.description`, the longer text tools put beside the summary. */
  description: string | null;
  generatorUrl: string | null;
  startsAt: string | null;
  endsAt: string | null;
};

export interface WebhookNotification {
  sender: 'alertmanager' | 'grafana';
  groupKey: string | null;
  receiver: string | null;
  externalUrl: string | null;
  events: WebhookAlertEvent[];
}

export type WebhookParse = { ok: true; notification: WebhookNotification } | { ok: false; error: ServiceError };

/** Label values that name a severity, matched without regard to case or surrounding space; any other (or none) is HIGH. */
const SEVERITY_FROM_LABEL: ReadonlyMap<string, Severity> = new Map([
  ['critical', 'CRITICAL'],
  ['error', 'HIGH'],
  ['high', 'HIGH'],
  ['warning', 'MEDIUM'],
  ['info', 'LOW'],
  ['low', 'LOW'],
]);
export const DEFAULT_ALERT_SEVERITY: Severity = 'HIGH';

export function severityFromLabel(value: string | undefined): Severity {
  // A Map, not an object: a label value such as "constructor" must not find an inherited property.
  return (value !== undefined && SEVERITY_FROM_LABEL.get(value.trim().toLowerCase())) || DEFAULT_ALERT_SEVERITY;
}

/** Labels left out of a title made from labels: the name leads it, the severity is the incident's own field. */
const TITLE_SKIPPED_LABELS = new Set(['alertname', 'severity']);

/**
 * An alert's title when it has no `annotations.summary`: `alertname (name=value, …)` with every other
 * label but `severity`, by name (the labels are what tells two alerts of one rule apart, and which of
 * them do is the rule's: `instance`, `pod`, `queue`…). Cut to the title's length later.
 */
export function titleFromLabels(labels: Record<string, string>): string {
  const rest = Object.keys(labels)
    .filter((name) => !TITLE_SKIPPED_LABELS.has(name))
    .sort()
    .map((name) => `${name}=${labels[name]}`)
    .join(', ');
  const name = labels.alertname?.trim();
  if (name && rest) return `${name} (${rest})`;
  return name || rest || 'Alert';
}

/** Alertmanager writes the zero time for a time it does not know (`endsAt` of an alert without one). */
function time(value: string | undefined): string | null {
  if (!value || value.startsWith('0001-01-01')) return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
}

function alertEvent(alert: WebhookAlert): WebhookAlertEvent {
  const annotations = alert.annotations ?? {};
  const common = {
    labels: alert.labels,
    annotations,
    description: annotations.description?.trim() || null,
    generatorUrl: alert.generatorURL || null,
    startsAt: time(alert.startsAt),
    endsAt: time(alert.endsAt),
  };
  if (alert.status === 'resolved') return { action: 'resolve', dedupKey: alert.fingerprint, ...common };
  const fromLabels = titleFromLabels(alert.labels);
  const summary = annotations.summary?.trim() || fromLabels;
  return {
    action: 'trigger',
    dedupKey: alert.fingerprint,
    title: incidentTitle(summary, incidentTitle(fromLabels, 'Alert')),
    summary,
    severity: severityFromLabel(alert.labels.severity),
    occurredAt: common.startsAt,
    ...common,
  };
}

/**
 * The body of a webhook notification (its raw text) as events, in the order of its alerts; a body
 * that is not such a payload is a `400 Validation errors` naming each bad field (`body` when it is
 * not a JSON object), one past 1 MiB a 413.
 */
export function parseWebhookNotification(raw: string): WebhookParse {
  if (Buffer.byteLength(raw, 'utf8') > WEBHOOK_MAX_BYTES) return { ok: false, error: new PayloadTooLargeError(WEBHOOK_MAX_BYTES) };
  let body: Json;
  try {
    body = wellFormed(JSON.parse(raw) as Json);
  } catch {
    return { ok: false, error: new ValidationError([{ field: 'body', message: 'Malformed JSON' }]) };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: new ValidationError([{ field: 'body', message: 'Must be an Alertmanager or Grafana webhook payload (a JSON object)' }]) };
  }
  const parsed = WebhookPayload.safeParse(body);
  if (!parsed.success) return { ok: false, error: new ValidationError(fieldErrors(parsed.error, 'body')) };
  const payload = parsed.data;
  return {
    ok: true,
    notification: {
      sender: payload.version === '1' ? 'grafana' : 'alertmanager',
      groupKey: payload.groupKey ?? null,
      receiver: payload.receiver ?? null,
      externalUrl: payload.externalURL || null,
      events: payload.alerts.map(alertEvent),
    },
  };
}
