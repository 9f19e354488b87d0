/**
 * The bodies of outgoing webhook messages, in the two formats a webhook can have.
 *
 * `standard`: `{"type","timestamp","data"}` as the Standard Webhooks specification recommends;
 * `data.incident` is the incident as `GET /api/incidents/:id` returns it, beside what the event
 * adds (the changes, the note, the acknowledgement, the escalation step). A body never exceeds
 * 256 KB: past that, the longest texts in `data` are cut (each ends with `… [truncated]`) and
 * `data.truncated` lists their paths, so the body stays valid JSON under the cap.
 *
 * `slack`: a Slack incoming-webhook message: `text` (the whole message in plain words and bare
 * links, which Slack shows in notifications and Mattermost and Rocket.Chat incoming webhooks show
 * as the message) and Block Kit `blocks` (a header with the title; what happened; severity,
 * status and monitor; links to the incident and, where the event has one, to acknowledge it).
 * User text in mrkdwn has `&`, `<` and `>` escaped; Block Kit's length limits are kept.
 */
import type { AcknowledgementMethod, IncidentDetailView, Severity, Status } from '../incidents/model.js';

/** The largest body sent. */
export const MAX_BODY_BYTES = 256 * 1024;
export const TRUNCATION_MARKER = '… [truncated]';

export const INCIDENT_EVENT_TYPES = [
  'incident.created',
  'incident.updated',
  'incident.acknowledged',
  'incident.resolved',
  'incident.note_added',
  'incident.escalated',
] as const;
export type IncidentEventType = (typeof INCIDENT_EVENT_TYPES)[number];
export type WebhookEventType = IncidentEventType | 'ping';

export interface WebhookNote {
  id: string;
  message: string;
  user_id: string;
  user_name: string;
  created_at: string;
}
export interface Change<T> {
  from: T;
  to: T;
}
/** What an `incident.updated` changed: each changed field's value before and after. */
export interface IncidentChanges {
  status?: Change<Status>;
  severity?: Change<Severity>;
  title?: Change<string>;
}

type Incident = IncidentDetailView;
type Envelope<T extends WebhookEventType, D> = { type: T; timestamp: string; data: D };

export type WebhookEvent =
  | Envelope<'incident.created', { incident: Incident }>
  | Envelope<'incident.updated', { incident: Incident; changes: IncidentChanges; note?: WebhookNote }>
  | Envelope<
      'incident.acknowledged',
      { incident: Incident; acknowledgement: { user_id: string; user_name: string; method: AcknowledgementMethod; acknowledged_at: string } }
    >
  | Envelope<'incident.resolved', { incident: Incident; previous_status: Status; note?: WebhookNote }>
  | Envelope<'incident.note_added', { incident: Incident; note: WebhookNote }>
  | Envelope<'incident.escalated', { incident: Incident; step: { step_order: number; delay_minutes: number; emails: string[] } }>
  | Envelope<'ping', { webhook_id: string; message: string }>;

/** Links a chat message offers: the incident, and acknowledging it where the event has a link for that. */
export interface MessageLinks {
  incident_url?: string;
  acknowledge_url?: string;
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

/** The first `length` UTF-16 units of `text`, one fewer if that would split a surrogate pair. */
function cutAt(text: string, length: number): string {
  if (text.length <= length) return text;
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

// ---------------------------------------------------------------------------------------------
// Standard format

/** Keys whose values are identifiers, times or enums: never cut. */
const UNCUT_KEY = /^(id|type|timestamp|status|severity|method)$|_(id|at)$/;

interface TextLeaf {
  path: string[];
  value: string;
}

function textLeaves(value: unknown, path: string[], out: TextLeaf[]): TextLeaf[] {
  if (typeof value === 'string') {
    const key = path[path.length - 1] ?? '';
    if (!UNCUT_KEY.test(key)) out.push({ path, value });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => textLeaves(item, [...path, String(index)], out));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) textLeaves(item, [...path, key], out);
  }
  return out;
}

/** A deep copy of `data` with the listed texts replaced. */
function withTexts(data: unknown, cuts: Map<string, string>, path: string[] = []): unknown {
  if (typeof data === 'string') return cuts.get(path.join('.')) ?? data;
  if (Array.isArray(data)) return data.map((item, index) => withTexts(item, cuts, [...path, String(index)]));
  if (data !== null && typeof data === 'object') {
    return Object.fromEntries(Object.entries(data).map(([key, item]) => [key, withTexts(item, cuts, [...path, key])]));
  }
  return data;
}

/** The body with every text in `data` longer than `limit` (plus the marker) cut to `limit`, and the list of those cut. */
function cutTo(event: WebhookEvent, leaves: TextLeaf[], limit: number): string {
  const cuts = new Map<string, string>();
  for (const { path, value } of leaves) {
    if (value.length > limit + TRUNCATION_MARKER.length) cuts.set(path.join('.'), cutAt(value, limit) + TRUNCATION_MARKER);
  }
  if (cuts.size === 0) return JSON.stringify(event);
  const data = { ...(withTexts(event.data, cuts) as object), truncated: [...cuts.keys()] };
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data });
}

/**
 * A `standard` body: the event as JSON, at most `maxBytes` (256 KB). Over it, every text of
 * `data` longer than a common limit is cut to it — the largest limit that fits, so short texts
 * stay whole and the longest lose most — and `data.truncated` lists the cut texts' paths
 * (`"note.message"`, `"incident.title"`).
 */
export function standardBody(event: WebhookEvent, maxBytes = MAX_BODY_BYTES): string {
  const whole = JSON.stringify(event);
  if (byteLength(whole) <= maxBytes) return whole;
  const leaves = textLeaves(event.data, [], []);
  const fits = (limit: number) => byteLength(cutTo(event, leaves, limit)) <= maxBytes;
  let low = 0;
  let high = Math.max(0, ...leaves.map(({ value }) => value.length));
  if (!fits(low)) throw new Error(`A webhook body cannot be cut to ${maxBytes} bytes`);
  // The largest limit that fits (binary search; fitting is monotone in the limit but for a path or two).
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return cutTo(event, leaves, low);
}

// ---------------------------------------------------------------------------------------------
// Slack format

/** Block Kit's limits (characters). */
export const SLACK_LIMITS = { header: 150, sectionText: 3000, field: 2000, text: 3000 } as const;

const STATUS_LABEL: Record<Status, string> = { INVESTIGATING: 'Investigating', IDENTIFIED: 'Identified', MONITORING: 'Monitoring', RESOLVED: 'Resolved' };
const SEVERITY_LABEL: Record<Severity, string> = { CRITICAL: 'Critical', HIGH: 'High', MEDIUM: 'Medium', LOW: 'Low' };

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Slack's mrkdwn escaping of user text: `&`, `<`, `>`. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/[&<>]/g, (char) => ENTITIES[char]!);
}

/** `text` escaped for mrkdwn in at most `max` characters: cut (never inside an entity or a surrogate pair) and ended with `…`. */
export function mrkdwnWithin(text: string, max: number): string {
  const escaped = escapeMrkdwn(text);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const char of text) {
    const piece = ENTITIES[char] ?? char;
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

/** Plain text (header, fallback) in at most `max` characters, ended with `…` when cut. */
export function plainWithin(text: string, max: number): string {
  return text.length <= max ? text : `${cutAt(text, max - 1)}…`;
}

/** A link in mrkdwn: `<url|label>`, the URL's own `&`, `<`, `>` escaped and `|` encoded. */
const mrkdwnLink = (url: string, label: string) => `<${escapeMrkdwn(url).replace(/\|/g, '%7C')}|${label}>`;

interface Summary {
  /** What happened, one line of plain text. */
  headline: string;
  /** Details in plain text (a note, the changes, who was paged), or nothing. */
  detail?: string;
}

function summary(event: WebhookEvent): Summary {
  switch (event.type) {
    case 'incident.created':
      return { headline: 'New incident' };
    case 'incident.updated': {
      const { status, severity, title } = event.data.changes;
      const changes = [
        status && `status ${STATUS_LABEL[status.from]} → ${STATUS_LABEL[status.to]}`,
        severity && `severity ${SEVERITY_LABEL[severity.from]} → ${SEVERITY_LABEL[severity.to]}`,
        title && `title was "${title.from}"`,
      ].filter((change): change is string => Boolean(change));
      const note = event.data.note ? `\nNote from ${event.data.note.user_name}: ${event.data.note.message}` : '';
      return { headline: 'Incident updated', detail: `Changed: ${changes.join('; ')}${note}` };
    }
    case 'incident.acknowledged': {
      const { user_name, method } = event.data.acknowledgement;
      return { headline: `Acknowledged by ${user_name} (${method})` };
    }
    case 'incident.resolved':
      return { headline: 'Incident resolved', ...(event.data.note ? { detail: `Note from ${event.data.note.user_name}: ${event.data.note.message}` } : {}) };
    case 'incident.note_added':
      return { headline: `Note from ${event.data.note.user_name}`, detail: event.data.note.message };
    case 'incident.escalated':
      return { headline: `Escalated: step ${event.data.step.step_order} paged`, detail: `Paged: ${event.data.step.emails.join(', ')}` };
    case 'ping':
      return { headline: 'Webhook test', detail: event.data.message };
  }
}

/**
 * A `slack` body for `event`. `links` are the service's own URLs (the incident's, and an
 * acknowledge link when the event carries one).
 */
export function slackBody(event: WebhookEvent, links: MessageLinks = {}): string {
  const { headline, detail } = summary(event);
  const incident = event.type === 'ping' ? undefined : event.data.incident;
  const blocks: unknown[] = [];
  const lines: string[] = [];

  const linkParts = [
    links.incident_url && mrkdwnLink(links.incident_url, 'View incident'),
    links.acknowledge_url && mrkdwnLink(links.acknowledge_url, 'Acknowledge'),
  ].filter((part): part is string => Boolean(part));
  const linkLines = [
    ...(links.incident_url ? [`View incident: ${links.incident_url}`] : []),
    ...(links.acknowledge_url ? [`Acknowledge: ${links.acknowledge_url}`] : []),
  ];

  if (incident) {
    blocks.push({ type: 'header', text: { type: 'plain_text', text: plainWithin(incident.title, SLACK_LIMITS.header), emoji: false } });
    const head = `*${mrkdwnWithin(headline, 500)}*`;
    const section = detail === undefined ? head : `${head}\n${mrkdwnWithin(detail, SLACK_LIMITS.sectionText - head.length - 1)}`;
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: section } });
    blocks.push({
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Severity*\n${SEVERITY_LABEL[incident.severity]}` },
        { type: 'mrkdwn', text: `*Status*\n${STATUS_LABEL[incident.status]}${incident.acknowledged ? ' (acknowledged)' : ''}` },
        { type: 'mrkdwn', text: `*Monitor*\n${mrkdwnWithin(incident.monitor_name, SLACK_LIMITS.field - 10)}` },
      ],
    });
    // The fallback text in plain words, the links before the detail so a cut never loses them.
    lines.push(`${headline}: ${incident.title}`);
    lines.push(`Severity: ${SEVERITY_LABEL[incident.severity]} · Status: ${STATUS_LABEL[incident.status]} · Monitor: ${incident.monitor_name}`);
    lines.push(...linkLines);
    if (detail !== undefined) lines.push(detail);
  } else {
    blocks.push({ type: 'header', text: { type: 'plain_text', text: headline, emoji: false } });
    if (detail !== undefined) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mrkdwnWithin(detail, SLACK_LIMITS.sectionText) } });
    lines.push(headline, ...linkLines);
    if (detail !== undefined) lines.push(detail);
  }
  if (linkParts.length > 0) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: linkParts.join('  ·  ') } });

  return JSON.stringify({ text: mrkdwnWithin(lines.join('\n'), SLACK_LIMITS.text), blocks });
}

/** The body of `event` in a webhook's format. */
export function messageBody(format: 'standard' | 'slack', event: WebhookEvent, links: MessageLinks = {}): string {
  return format === 'slack' ? slackBody(event, links) : standardBody(event);
}
