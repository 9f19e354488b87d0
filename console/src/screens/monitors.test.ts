import { describe, expect, it } from 'vitest';
import { formatSeconds, heartbeatState } from './heartbeat.js';
import { changesOf, createBody, emptyMonitor, valuesOf, type MonitorFields } from './monitor-form.js';
import { alertmanagerSnippet, eventsV2Snippet, grafanaSnippet, heartbeatSnippet, snippetsFor } from './integration-snippets.js';

const API = 'https://api.example.com/';
const KEY = '3xw8e1vz0c6ty5bu4nj7mr9sa2hdk2m9';

describe('integration snippets', () => {
  it('gives Alertmanager a webhook receiver at /integrations/alertmanager with the key as its Bearer credentials', () => {
    const { text } = alertmanagerSnippet(API, KEY);
    expect(text).toContain('webhook_configs:\n      - url: "https://api.example.com/integrations/alertmanager"\n');
    expect(text).toContain('        http_config:\n          authorization:\n            type: Bearer\n            credentials: "3xw8e1vz0c6ty5bu4nj7mr9sa2hdk2m9"\n');
    expect(text).toContain('send_resolved: true');
  });

  it('gives Grafana a webhook contact point with an Authorization header of the key', () => {
    const { text } = grafanaSnippet(API, KEY);
    expect(text).toContain('type: webhook');
    expect(text).toContain('url: "https://api.example.com/integrations/alertmanager"');
    expect(text).toContain('authorization_scheme: Bearer\n');
    expect(text).toContain(`authorization_credentials: "${KEY}"\n`);
  });

  it('gives an Events API v2 client a trigger to /v2/enqueue whose routing_key is the key', () => {
    const { text } = eventsV2Snippet(API, KEY);
    expect(text.startsWith("curl -X POST 'https://api.example.com/v2/enqueue'")).toBe(true);
    const body = JSON.parse(/-d '(.*)'\n$/.exec(text)![1]!);
    expect(body).toMatchObject({ routing_key: KEY, event_action: 'trigger', payload: { severity: 'critical' } });
    expect(body.payload.summary).toBeTruthy();
  });

  it('quotes a key of digits alone, so YAML keeps it a string', () => {
    expect(alertmanagerSnippet(API, '12345678901234567890123456789012').text).toContain('credentials: "12345678901234567890123456789012"');
  });

  it('pings the heartbeat at /heartbeats/<key>, only for a monitor that expects pings', () => {
    expect(heartbeatSnippet(API, KEY).text).toContain(`curl -fsS -X POST 'https://api.example.com/heartbeats/${KEY}'`);
    expect(snippetsFor(API, KEY, false).map((snippet) => snippet.title)).toEqual(['Prometheus Alertmanager', 'Grafana', 'Events API v2']);
    expect(snippetsFor(API, KEY, true).map((snippet) => snippet.title)).toContain('Heartbeat');
  });
});

describe('heartbeat state', () => {
  const heartbeat = { interval_seconds: 300, grace_seconds: 60 };
  it('is off without a heartbeat, waiting before the first ping, missed after interval plus grace', () => {
    expect(heartbeatState({ heartbeat: null, last_ping_at: null }, new Date())).toEqual({ kind: 'off' });
    expect(heartbeatState({ heartbeat, last_ping_at: null }, new Date())).toEqual({ kind: 'waiting' });
    const ping = '2026-11-21T10:00:00.000Z';
    expect(heartbeatState({ heartbeat, last_ping_at: ping }, new Date('2026-11-21T10:06:00.000Z'))).toEqual({ kind: 'ok', dueAt: new Date('2026-11-21T10:06:00.000Z') });
    expect(heartbeatState({ heartbeat, last_ping_at: ping }, new Date('2026-11-21T10:06:00.001Z')).kind).toBe('missed');
  });

  it('names spans in the largest whole unit', () => {
    expect([formatSeconds(60), formatSeconds(90), formatSeconds(3600), formatSeconds(7200), formatSeconds(86_400)]).toEqual(['1 minute', '90 seconds', '1 hour', '2 hours', '1 day']);
  });
});

describe('the monitor form', () => {
  const monitor: MonitorFields = { name: 'Checkout', failure_threshold: 3, escalation_policy_id: null, team_id: 't1', urgency: null, heartbeat: { interval_seconds: 600, grace_seconds: 300 } };

  it('creates with minutes turned into seconds and blanks into null', () => {
    expect(createBody({ ...emptyMonitor, name: 'Cron', heartbeat: true, interval_minutes: '10', grace_minutes: '' })).toEqual({
      name: 'Cron',
      failure_threshold: 3,
      escalation_policy_id: null,
      team_id: null,
      urgency: null,
      heartbeat: { interval_seconds: 600, grace_seconds: 0 },
      ack_timeout_minutes: null,
    });
    expect(createBody({ ...emptyMonitor, name: 'Cron', ack_timeout_minutes: '30' }).ack_timeout_minutes).toBe(30);
  });

  it('edits only what changed: the same values send nothing, so the heartbeat and team stay as they were', () => {
    expect(changesOf(monitor, valuesOf(monitor))).toEqual({});
    expect(changesOf(monitor, { ...valuesOf(monitor), escalation_policy_id: 'p1', urgency: 'high' })).toEqual({ escalation_policy_id: 'p1', urgency: 'high' });
    expect(changesOf(monitor, { ...valuesOf(monitor), heartbeat: false })).toEqual({ heartbeat: null });
    expect(changesOf(monitor, { ...valuesOf(monitor), grace_minutes: '1' })).toEqual({ heartbeat: { interval_seconds: 600, grace_seconds: 60 } });
    expect(changesOf(monitor, { ...valuesOf(monitor), ack_timeout_minutes: '15' })).toEqual({ ack_timeout_minutes: 15 });
  });
});
