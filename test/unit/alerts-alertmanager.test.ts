import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ALERT_SEVERITY,
  parseWebhookNotification,
  severityFromLabel,
  titleFromLabels,
  WEBHOOK_MAX_BYTES,
  type WebhookNotification,
} from '../../shared/alerts/alertmanager.js';
import { PayloadTooLargeError, ValidationError, type FieldError } from '../../shared/platform/errors.js';
import { IncidentTitle } from '../../shared/incidents/model.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

function notification(raw: string): WebhookNotification {
  const parsed = parseWebhookNotification(raw);
  if (!parsed.ok) throw new Error(`refused: ${JSON.stringify(parsed.error.details)}`);
  return parsed.notification;
}

/** The field errors of a refused body (and that it is the API's 400 Validation errors). */
function errorsOf(raw: string): FieldError[] {
  const parsed = parseWebhookNotification(raw);
  if (parsed.ok) throw new Error('accepted');
  expect(parsed.error).toBeInstanceOf(ValidationError);
  expect(parsed.error.message).toBe('Validation errors');
  return parsed.error.details!;
}

const alert = (overrides: Record<string, unknown> = {}) => ({
  status: 'firing',
  labels: { alertname: 'HighLatency', instance: 'api-1:9100', job: 'api', severity: 'warning' },
  annotations: {},
  startsAt: '2026-11-25T08:00:00.000Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus/graph',
  fingerprint: '0123456789abcdef',
  ...overrides,
});
const payload = (alerts: unknown[], overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ version: '4', groupKey: '{}:{alertname="HighLatency"}', status: 'firing', receiver: 'service', alerts, ...overrides });

describe('Alertmanager webhook payloads (captured from a real Alertmanager)', () => {
  it('a firing alert is a trigger keyed by its fingerprint, titled by its summary', () => {
    expect(notification(fixture('alertmanager-webhook-firing.json'))).toEqual({
      sender: 'alertmanager',
      groupKey: '{}:{alertname="DiskAlmostFull", instance="db1:9100", job="node", severity="critical"}',
      receiver: 'service',
      externalUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      events: [
        {
          action: 'trigger',
          dedupKey: '73820ef5ed2ec5b9',
          title: 'Disk almost full on db1',
          summary: 'Disk almost full on db1',
          severity: 'CRITICAL',
          occurredAt: '2026-11-25T08:57:11.573Z',
          labels: { alertname: 'DiskAlmostFull', instance: 'db1:9100', job: 'node', severity: 'critical' },
          annotations: { description: 'Less than 5% of / is free.', summary: 'Disk almost full on db1' },
          description: 'Less than 5% of / is free.',
          generatorUrl: 'http://prometheus.example/graph?g0.expr=disk',
          startsAt: '2026-11-25T08:57:11.573Z',
          // Alertmanager's zero time: no end known.
          endsAt: null,
        },
      ],
    });
  });

  it('a resolved alert is a resolve for the same fingerprint', () => {
    const { events } = notification(fixture('alertmanager-webhook-resolved.json'));
    expect(events).toEqual([expect.objectContaining({ action: 'resolve', dedupKey: '73820ef5ed2ec5b9', endsAt: '2026-11-25T08:58:10.617Z' })]);
    expect(events[0]).not.toHaveProperty('title');
  });
});

describe('Grafana webhook contact point payloads', () => {
  // Grafana's own expected message for its default webhook (grafana/alerting receivers/webhook/v1/webhook_test.go,
  // "Default config with one alert with custom message"), serialized as Grafana sends it.
  it('parse alike: version "1", its own fields ignored, the alert keyed by its fingerprint', () => {
    expect(notification(fixture('grafana-webhook-firing.json'))).toEqual({
      sender: 'grafana',
      groupKey: 'alertname',
      receiver: 'my_receiver',
      externalUrl: 'http://localhost',
      events: [
        expect.objectContaining({
          action: 'trigger',
          dedupKey: 'fac0861a85de433a',
          // No summary annotation: the title is made of the labels.
          title: 'alert1 (lbl1=val1)',
          severity: DEFAULT_ALERT_SEVERITY,
          occurredAt: null,
          generatorUrl: 'http://localhost/test?orgId=1',
        }),
      ],
    });
  });
});

describe('events of a notification', () => {
  it('one per alert, in order, firing and resolved mixed (a group is sent whole)', () => {
    const { events } = notification(
      payload([alert(), alert({ status: 'resolved', fingerprint: 'fedcba9876543210', endsAt: '2026-11-25T08:05:00Z' }), alert({ fingerprint: 'aaaaaaaaaaaaaaaa' })]),
    );
    expect(events.map((event) => [event.action, event.dedupKey])).toEqual([
      ['trigger', '0123456789abcdef'],
      ['resolve', 'fedcba9876543210'],
      ['trigger', 'aaaaaaaaaaaaaaaa'],
    ]);
  });

  it('none for an empty list', () => {
    expect(notification(payload([])).events).toEqual([]);
  });

  it('the title is the summary annotation when it has one, trimmed and cut as any title', () => {
    const [event] = notification(payload([alert({ annotations: { summary: `  p99 latency above 2 s\n on api-1 ${'x'.repeat(300)}` } })])).events;
    expect(event).toMatchObject({ title: `p99 latency above 2 s  on api-1 ${'x'.repeat(200 - 32)}` });
    expect(IncidentTitle.safeParse((event as { title: string }).title).success).toBe(true);
    expect((event as { summary: string }).summary).toContain('\n');
  });

  it('a blank summary annotation is no summary', () => {
    const [event] = notification(payload([alert({ annotations: { summary: ' ' } })])).events;
    expect(event).toMatchObject({ title: 'HighLatency (instance=api-1:9100, job=api)' });
  });

  it('a time that does not parse is none', () => {
    const [event] = notification(payload([alert({ startsAt: 'soon' })])).events;
    expect(event).toMatchObject({ occurredAt: null, startsAt: null });
  });
});

describe('the title from labels', () => {
  it('is the alert name, then every other label but severity, by name', () => {
    expect(titleFromLabels({ severity: 'page', job: 'api', alertname: 'HighLatency', instance: 'api-1:9100' })).toBe('HighLatency (instance=api-1:9100, job=api)');
    expect(titleFromLabels({ alertname: 'Watchdog' })).toBe('Watchdog');
    expect(titleFromLabels({ alertname: 'Watchdog', severity: 'none' })).toBe('Watchdog');
    expect(titleFromLabels({ job: 'cron', instance: 'h' })).toBe('instance=h, job=cron');
    expect(titleFromLabels({})).toBe('Alert');
  });
});

describe('the severity from the severity label', () => {
  it('maps critical, error/high, warning, info/low without regard to case; anything else is HIGH', () => {
    const cases: Array<[string | undefined, string]> = [
      ['critical', 'CRITICAL'],
      ['Critical', 'CRITICAL'],
      [' CRITICAL ', 'CRITICAL'],
      ['error', 'HIGH'],
      ['high', 'HIGH'],
      ['warning', 'MEDIUM'],
      ['info', 'LOW'],
      ['low', 'LOW'],
      ['page', 'HIGH'],
      ['none', 'HIGH'],
      ['', 'HIGH'],
      ['constructor', 'HIGH'],
      [undefined, 'HIGH'],
    ];
    for (const [label, severity] of cases) expect(severityFromLabel(label), String(label)).toBe(severity);
    expect(DEFAULT_ALERT_SEVERITY).toBe('HIGH');
  });
});

describe('a body that is not such a payload', () => {
  it('is not JSON, or not an object', () => {
    expect(errorsOf('{"version":')).toEqual([{ field: 'body', message: 'Malformed JSON' }]);
    for (const raw of ['[]', '"x"', 'null', '4']) {
      expect(errorsOf(raw)).toEqual([{ field: 'body', message: 'Must be an Alertmanager or Grafana webhook payload (a JSON object)' }]);
    }
  });

  it('has another version, or none', () => {
    expect(errorsOf(payload([], { version: '5' }))).toEqual([{ field: 'version', message: 'Must be "4" (Alertmanager) or "1" (Grafana)' }]);
    expect(errorsOf(payload([], { version: undefined }))).toEqual([{ field: 'version', message: 'Must be "4" (Alertmanager) or "1" (Grafana)' }]);
    expect(errorsOf(payload([], { version: 4 }))).toEqual([{ field: 'version', message: 'Must be "4" (Alertmanager) or "1" (Grafana)' }]);
  });

  it('has no list of alerts', () => {
    expect(errorsOf(payload([], { alerts: undefined }))).toEqual([{ field: 'alerts', message: 'Must be a list of alerts' }]);
    expect(errorsOf(payload([], { alerts: { 0: alert() } }))).toEqual([{ field: 'alerts', message: 'Must be a list of alerts' }]);
  });

  it('has a bad top-level status', () => {
    expect(errorsOf(payload([], { status: 'pending' }))).toEqual([{ field: 'status', message: 'Must be "firing" or "resolved"' }]);
  });

  it('has an alert that is not one, each bad field named with its index', () => {
    expect(errorsOf(payload([alert(), alert({ status: 'pending', labels: 'x', fingerprint: undefined })]))).toEqual([
      { field: 'alerts.1.status', message: 'Must be "firing" or "resolved"' },
      { field: 'alerts.1.labels', message: 'Must be an object of string values' },
      { field: 'alerts.1.fingerprint', message: "Must be the alert's fingerprint (a string)" },
    ]);
    expect(errorsOf(payload([alert({ fingerprint: '' })]))).toEqual([{ field: 'alerts.0.fingerprint', message: 'Must not be empty' }]);
    expect(errorsOf(payload([alert({ fingerprint: 'f'.repeat(256) })]))).toEqual([{ field: 'alerts.0.fingerprint', message: 'Must be at most 255 characters' }]);
    expect(errorsOf(payload([alert({ labels: { alertname: 1 } })]))).toEqual([{ field: 'alerts.0.labels.alertname', message: 'Invalid input: expected string, received number' }]);
    expect(errorsOf(payload([alert({ annotations: ['a'] })]))).toEqual([{ field: 'alerts.0.annotations', message: 'Must be an object of string values' }]);
    expect(errorsOf(payload(['alert']))).toEqual([{ field: 'alerts.0', message: 'Invalid input: expected object, received string' }]);
  });
});

describe('size', () => {
  it('takes 1 MiB, refuses a byte more with a 413', () => {
    const base = payload([alert({ annotations: { blob: '' } })]);
    const exact = base.replace('"blob":""', `"blob":"${'x'.repeat(WEBHOOK_MAX_BYTES - Buffer.byteLength(base))}"`);
    expect(Buffer.byteLength(exact)).toBe(WEBHOOK_MAX_BYTES);
    expect(parseWebhookNotification(exact).ok).toBe(true);
    const parsed = parseWebhookNotification(exact.replace('"blob":"', '"blob":"x'));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toBeInstanceOf(PayloadTooLargeError);
      expect(parsed.error.statusCode).toBe(413);
      expect(parsed.error.message).toBe('Request body too large (limit 1048576 bytes)');
    }
  });
});
