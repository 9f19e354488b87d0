import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  acceptedAnswer,
  ALERT_DETAILS_MAX_BYTES,
  alertDetails,
  EVENTS_V2_MAX_BYTES,
  EventsV2Errors,
  invalidEventAnswer,
  parseEventsV2,
  rateLimitedAnswer,
  SEVERITY_FROM_PAGERDUTY,
  tooLargeAnswer,
  unknownRoutingKeyAnswer,
  unrecognizedObjectAnswer,
  type EventsV2Event,
} from '../../shared/alerts/events-v2.js';
import { IncidentTitle } from '../../shared/incidents/model.js';

const KEY = 'a'.repeat(16) + '0123456789abcdef';
const trigger = (overrides: Record<string, unknown> = {}, payload: Record<string, unknown> = {}) =>
  JSON.stringify({
    routing_key: KEY,
    event_action: 'trigger',
    payload: { summary: 'Disk almost full on db1', source: 'db1.example.com', severity: 'critical', ...payload },
    ...overrides,
  });

function accepted(raw: string): EventsV2Event {
  const parsed = parseEventsV2(raw);
  if (!parsed.ok) throw new Error(`refused: ${parsed.answer.body}`);
  return parsed.event;
}

/** The `errors` of a 400 answer (and that it is PagerDuty's 400 exactly). */
function errorsOf(raw: string): string[] {
  const parsed = parseEventsV2(raw);
  if (parsed.ok) throw new Error('accepted');
  expect(parsed.answer.statusCode).toBe(400);
  const body = JSON.parse(parsed.answer.body);
  expect(Object.keys(body)).toEqual(['status', 'message', 'errors']);
  expect(body).toMatchObject({ status: 'invalid event', message: 'Event object is invalid' });
  return body.errors;
}

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

describe("PagerDuty's answers, byte for byte", () => {
  it('202 with the dedup key', () => {
    expect(acceptedAnswer('srv01/HTTP')).toEqual({
      statusCode: 202,
      headers: { 'content-type': 'application/json' },
      body: '{"status":"success","message":"Event processed","dedup_key":"srv01/HTTP"}',
    });
  });

  it('400 naming each bad field', () => {
    expect(invalidEventAnswer(["Length of 'routing_key' is incorrect (should be 32 characters)"]).body).toBe(
      `{"status":"invalid event","message":"Event object is invalid","errors":["Length of 'routing_key' is incorrect (should be 32 characters)"]}`,
    );
    expect(unknownRoutingKeyAnswer()).toMatchObject({ statusCode: 400, body: '{"status":"invalid event","message":"Event object is invalid","errors":["Invalid routing key"]}' });
  });

  it('400 for a body that is not a JSON object', () => {
    const answer = '{"status":"Unrecognized object","message":"Event object format is unrecognized","errors":["JSON parse error"]}';
    expect(unrecognizedObjectAnswer()).toMatchObject({ statusCode: 400, body: answer });
    for (const raw of ['', 'not json', '{"routing_key":', '[]', '[{"routing_key":"x"}]', '"trigger"', '42', 'null', 'true']) {
      const parsed = parseEventsV2(raw);
      expect(parsed.ok, raw).toBe(false);
      if (!parsed.ok) expect(parsed.answer).toEqual(unrecognizedObjectAnswer());
    }
  });

  it('413 past 512 KiB, and an event of exactly 512 KiB is taken', () => {
    expect(tooLargeAnswer()).toMatchObject({
      statusCode: 413,
      body: `{"status":"invalid event","message":"Event object is invalid","errors":["Event object is too large (maximum is 524288 bytes)"]}`,
    });
    const base = trigger({}, { custom_details: { blob: '' } });
    const exact = base.replace('"blob":""', `"blob":"${'x'.repeat(EVENTS_V2_MAX_BYTES - Buffer.byteLength(base))}"`);
    expect(Buffer.byteLength(exact)).toBe(EVENTS_V2_MAX_BYTES);
    expect(parseEventsV2(exact).ok).toBe(true);
    const over = exact.replace('"blob":"', '"blob":"é');
    expect(parseEventsV2(over)).toEqual({ ok: false, answer: tooLargeAnswer() });
  });

  it('429 with Retry-After in whole seconds, at least 1', () => {
    expect(rateLimitedAnswer(29.2)).toEqual({
      statusCode: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '30' },
      body: '{"status":"throttle exceeded","message":"Requests for this service are arriving too quickly.  Please retry later.","errors":["Enhance Your Calm."]}',
    });
    expect(rateLimitedAnswer(0).headers['retry-after']).toBe('1');
  });
});

describe('a trigger', () => {
  it('becomes an event: title from the summary, severity mapped, optional fields kept', () => {
    const event = accepted(
      trigger(
        {
          dedup_key: 'db1/disk',
          client: 'Sample Monitoring Service',
          client_url: 'https://monitoring.example.com',
          links: [{ href: 'https://example.com/runbook', text: 'Runbook' }, { text: 'no href' }, 'junk'],
          images: [{ src: 'https://example.com/graph.png', href: 'https://example.com/', alt: 'Graph' }, { src: 'http://example.com/insecure.png' }],
          unknown_top_level: true,
        },
        {
          timestamp: '2015-07-17T08:42:58.315+0000',
          component: 'mysql',
          group: 'app-stack',
          class: 'disk',
          custom_details: { 'free space': '1%', nested: { a: [1, 2] } },
          unknown_in_payload: 'ignored',
        },
      ),
    );
    expect(event).toEqual({
      action: 'trigger',
      routingKey: KEY,
      dedupKey: 'db1/disk',
      dedupKeyGenerated: false,
      title: 'Disk almost full on db1',
      summary: 'Disk almost full on db1',
      severity: 'CRITICAL',
      occurredAt: '2015-07-17T08:42:58.315Z',
      details: {
        source: 'db1.example.com',
        pagerdutySeverity: 'critical',
        component: 'mysql',
        group: 'app-stack',
        class: 'disk',
        customDetails: { 'free space': '1%', nested: { a: [1, 2] } },
        links: [{ href: 'https://example.com/runbook', text: 'Runbook' }],
        images: [{ src: 'https://example.com/graph.png', href: 'https://example.com/', alt: 'Graph' }],
        client: 'Sample Monitoring Service',
        clientUrl: 'https://monitoring.example.com',
      },
    });
  });

  it('maps each severity: critical→CRITICAL, error→HIGH, warning→MEDIUM, info→LOW', () => {
    expect(SEVERITY_FROM_PAGERDUTY).toEqual({ critical: 'CRITICAL', error: 'HIGH', warning: 'MEDIUM', info: 'LOW' });
    for (const [given, expected] of Object.entries(SEVERITY_FROM_PAGERDUTY)) {
      expect(accepted(trigger({}, { severity: given }))).toMatchObject({ severity: expected });
    }
  });

  it('without a dedup key (absent, null or blank) gets a fresh UUID, marked as generated', () => {
    const keys = [trigger(), trigger({ dedup_key: null }), trigger({ dedup_key: '  ' })].map((raw) => accepted(raw));
    for (const event of keys) {
      expect(event.dedupKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(event.dedupKeyGenerated).toBe(true);
    }
    expect(new Set(keys.map((event) => event.dedupKey)).size).toBe(3);
  });

  it('takes a number or boolean where text is expected as its JSON text', () => {
    expect(accepted(trigger({ dedup_key: 42 }, { source: 1 }))).toMatchObject({ dedupKey: '42', details: { source: '1' } });
  });

  it('ignores a timestamp that does not parse, and keeps none when absent', () => {
    expect(accepted(trigger({}, { timestamp: 'yesterday' }))).toMatchObject({ occurredAt: null });
    expect(accepted(trigger())).toMatchObject({ occurredAt: null });
  });

  it('takes a summary of 1,024 characters counted as code points (astral ones too), not 1,025', () => {
    expect(accepted(trigger({}, { summary: '😀'.repeat(1024) })).action).toBe('trigger');
    expect(errorsOf(trigger({}, { summary: 'x'.repeat(1025) }))).toEqual([EventsV2Errors.summaryTooLong]);
  });

  it('takes a dedup key of 255 characters, not 256', () => {
    expect(accepted(trigger({ dedup_key: 'k'.repeat(255) })).dedupKey).toHaveLength(255);
    expect(errorsOf(trigger({ dedup_key: 'k'.repeat(256) }))).toEqual([EventsV2Errors.dedupKeyTooLong]);
  });

  it('makes lone surrogates U+FFFD everywhere (DynamoDB refuses them), keys of custom details included', () => {
    const event = accepted(String.raw`{"routing_key":"${KEY}","event_action":"trigger","dedup_key":"a\ud800","payload":{"summary":"s\udc00","source":"h","severity":"info","custom_details":{"\ud801k":"v"}}}`);
    expect(event).toMatchObject({ dedupKey: 'a\uFFFD', summary: 's\uFFFD', details: { customDetails: { '\uFFFDk': 'v' } } });
  });

  it('keeps a "__proto__" key of custom details as a key', () => {
    const event = accepted(trigger({}, { custom_details: JSON.parse('{"__proto__":{"polluted":1}}') }));
    const details = event.details!.customDetails as Record<string, unknown>;
    expect(Object.keys(details)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(details)).toBe(Object.prototype);
  });
});

describe('the title', () => {
  const titleOf = (summary: string) => (accepted(trigger({}, { summary })) as { title: string }).title;

  it('is the summary, trimmed, its line breaks and other control characters made spaces', () => {
    expect(titleOf('  Disk full\non db1\t(/var)  ')).toBe('Disk full on db1 (/var)');
  });

  it('is cut to 200 characters, never inside a surrogate pair', () => {
    expect(titleOf('x'.repeat(1024))).toBe('x'.repeat(200));
    // 199 ASCII characters, then an emoji whose first half would be the 200th unit: the emoji goes whole.
    expect(titleOf(`${'x'.repeat(199)}😀 and more`)).toBe('x'.repeat(199));
    expect(titleOf(`${'x'.repeat(198)}😀 and more`)).toBe(`${'x'.repeat(198)}😀`);
  });

  it('drops bidirectional controls, which the API refuses in a title', () => {
    expect(titleOf('Invoice \u202Egnp.exe \u2067ok\u2069')).toBe('Invoice gnp.exe ok');
  });

  it('falls back to the source when the summary has nothing visible', () => {
    expect(titleOf('\u0007\u200B')).toBe('db1.example.com');
  });

  it('is always a valid incident title', () => {
    for (const summary of ['a', ' \u00A0a\u200B', `${'é'.repeat(150)}\n${'😀'.repeat(100)}`, '\u0000\u001F\u007F\u0085x', 'y'.repeat(1024), '\u200Bz\u2060', 'Invoice \u202Egnp.exe']) {
      const title = titleOf(summary);
      expect(IncidentTitle.safeParse(title).success, JSON.stringify(title)).toBe(true);
      expect(IncidentTitle.parse(title)).toBe(title);
    }
  });
});

describe('acknowledge and resolve', () => {
  it('need only the routing key, the action and the dedup key; a payload is ignored', () => {
    for (const action of ['acknowledge', 'resolve'] as const) {
      expect(accepted(JSON.stringify({ routing_key: KEY, event_action: action, dedup_key: 'db1/disk' }))).toEqual({
        action,
        routingKey: KEY,
        dedupKey: 'db1/disk',
        dedupKeyGenerated: false,
        details: null,
      });
      expect(accepted(JSON.stringify({ routing_key: KEY, event_action: action, dedup_key: 'k', payload: { severity: 'nonsense' } })).action).toBe(action);
    }
  });

  it('without a dedup key are refused', () => {
    expect(errorsOf(JSON.stringify({ routing_key: KEY, event_action: 'resolve' }))).toEqual(["'dedup_key' is missing or blank"]);
    expect(errorsOf(JSON.stringify({ routing_key: KEY, event_action: 'acknowledge', dedup_key: ' ' }))).toEqual(["'dedup_key' is missing or blank"]);
  });
});

describe('every error text, in PagerDuty words and order', () => {
  it('routing key', () => {
    expect(errorsOf(trigger({ routing_key: undefined }))).toEqual(["'routing_key' cannot be blank"]);
    expect(errorsOf(trigger({ routing_key: '' }))).toEqual(["'routing_key' cannot be blank"]);
    expect(errorsOf(trigger({ routing_key: { key: KEY } }))).toEqual(["'routing_key' cannot be blank"]);
    expect(errorsOf(trigger({ routing_key: 'abc123' }))).toEqual(["Length of 'routing_key' is incorrect (should be 32 characters)"]);
    expect(errorsOf(trigger({ routing_key: `${KEY.slice(1)}-` }))).toEqual(["'routing_key' cannot contain non-alphanumeric characters."]);
    // Both, as PagerDuty answered blockpane/tenderduty#10.
    expect(errorsOf(trigger({ routing_key: 'e+23rschqsESqk9Q6_-g' }))).toEqual([
      "Length of 'routing_key' is incorrect (should be 32 characters)",
      "'routing_key' cannot contain non-alphanumeric characters.",
    ]);
  });

  it('event action', () => {
    expect(errorsOf(trigger({ event_action: undefined }))).toEqual(["'event_action' is missing or blank"]);
    expect(errorsOf(trigger({ event_action: ' ' }))).toEqual(["'event_action' is missing or blank"]);
    expect(errorsOf(trigger({ event_action: 'TRIGGER' }))).toEqual([
      "'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')",
    ]);
    expect(errorsOf(trigger({ event_action: ['trigger'] }))).toEqual(["'event_action' is missing or blank"]);
  });

  it('dedup key', () => {
    expect(errorsOf(trigger({ dedup_key: { a: 1 } }))).toEqual(["'dedup_key' is invalid (must be a string)"]);
    expect(errorsOf(trigger({ dedup_key: 'x'.repeat(256) }))).toEqual(["'dedup_key' is too long (maiximum is 255 characters)"]);
  });

  it('payload of a trigger', () => {
    expect(errorsOf(trigger({ payload: undefined }))).toEqual([
      "'payload.summary' is missing or blank",
      "'payload.source' is missing or blank",
      "'payload.severity' is missing or blank",
    ]);
    expect(errorsOf(trigger({ payload: 'text' }))).toHaveLength(3);
    expect(errorsOf(trigger({}, { summary: ' \n' }))).toEqual(["'payload.summary' is missing or blank"]);
    expect(errorsOf(trigger({}, { summary: 'x'.repeat(1025) }))).toEqual(["'summary' is too long (maiximum is 1024 characters)"]);
    expect(errorsOf(trigger({}, { summary: ['a'] }))).toEqual(["'payload.summary' is invalid (must be a string)"]);
    expect(errorsOf(trigger({}, { source: null }))).toEqual(["'payload.source' is missing or blank"]);
    expect(errorsOf(trigger({}, { source: {} }))).toEqual(["'payload.source' is invalid (must be a string)"]);
    expect(errorsOf(trigger({}, { severity: '' }))).toEqual(["'payload.severity' is missing or blank"]);
    for (const severity of ['none', 'CRITICAL', 'high', 1, {}]) {
      expect(errorsOf(trigger({}, { severity }))).toEqual([
        "'payload.severity' is invalid (must be one of the following: 'critical', 'warning', 'error' or 'info')",
      ]);
    }
  });

  it('all of them at once, each named', () => {
    expect(errorsOf(JSON.stringify({ routing_key: 'short!', event_action: 'trigger', dedup_key: 'd'.repeat(300), payload: { severity: 'page' } }))).toEqual([
      EventsV2Errors.routingKeyLength,
      EventsV2Errors.routingKeyCharacters,
      EventsV2Errors.dedupKeyTooLong,
      EventsV2Errors.summaryMissing,
      EventsV2Errors.sourceMissing,
      EventsV2Errors.severityInvalid,
    ]);
    expect(errorsOf('{}')).toEqual([EventsV2Errors.routingKeyBlank, EventsV2Errors.eventActionMissing]);
  });
});

describe("Alertmanager's own pagerduty_configs events (captured from a real Alertmanager)", () => {
  it('a trigger: severity from the template, dedup key the SHA-256 of the group key, no timestamp', () => {
    const event = accepted(fixture('alertmanager-pagerduty-trigger.json'));
    expect(event).toMatchObject({
      action: 'trigger',
      routingKey: 'k'.repeat(32),
      dedupKey: '0546a13d5fff63f73890dfbedabd255261a2741e78227b872cfb0eb623cf3c08',
      dedupKeyGenerated: false,
      title: '[FIRING:1] DiskAlmostFull db1:9100 node critical',
      severity: 'CRITICAL',
      occurredAt: null,
      details: { source: 'Alertmanager', client: 'Alertmanager', customDetails: expect.objectContaining({ num_firing: '1' }) },
    });
  });

  it('a resolve for the same key (it carries a payload, which is ignored)', () => {
    expect(accepted(fixture('alertmanager-pagerduty-resolve.json'))).toEqual({
      action: 'resolve',
      routingKey: 'k'.repeat(32),
      dedupKey: '0546a13d5fff63f73890dfbedabd255261a2741e78227b872cfb0eb623cf3c08',
      dedupKeyGenerated: false,
      details: null,
    });
  });
});

describe('alertDetails (what an incident keeps of a trigger, issue 42 §6)', () => {
  const details = (custom: unknown, links = 0, images = 0) => ({
    source: 'db-7',
    pagerdutySeverity: 'error' as const,
    component: null,
    group: null,
    class: null,
    customDetails: custom,
    links: Array.from({ length: links }, (_, index) => ({ href: `https://example.com/${index}/${'l'.repeat(2000)}`, text: 't'.repeat(2000) })),
    images: Array.from({ length: images }, (_, index) => ({ src: `https://example.com/${index}.png`, alt: 'a'.repeat(2000) })),
    client: null,
    clientUrl: null,
  });
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

  it('keeps what fits as sent, each text cut to 1,024 characters', () => {
    const kept = alertDetails({ ...details({ a: [1, { b: null }] }), component: '🙂'.repeat(2000) });
    expect(kept).toMatchObject({ source: 'db-7', severity: 'error', custom_details: { a: [1, { b: null }] }, links: [], images: [], truncated: false });
    expect(Array.from(kept.component!)).toHaveLength(1024);
    expect(alertDetails(details(undefined)).custom_details).toBeNull();
  });

  it('past 16 KiB: custom_details becomes the longest prefix of its JSON text that fits; images, then links, go first when the rest alone does not fit', () => {
    const large = alertDetails(details({ text: '"\\'.repeat(20_000) }, 2));
    expect(large.truncated).toBe(true);
    expect(large.links).toHaveLength(2);
    expect(bytes(large)).toBeLessThanOrEqual(ALERT_DETAILS_MAX_BYTES);
    expect(bytes({ ...large, custom_details: `${large.custom_details}x` })).toBeGreaterThan(ALERT_DETAILS_MAX_BYTES);
    expect(JSON.stringify({ text: '"\\'.repeat(20_000) }).startsWith(large.custom_details as string)).toBe(true);

    const crowded = alertDetails(details({ small: 1 }, 10, 10));
    expect(crowded).toMatchObject({ truncated: true, images: [] });
    expect(crowded.links.length).toBeLessThan(10);
    expect(bytes(crowded)).toBeLessThanOrEqual(ALERT_DETAILS_MAX_BYTES);
  });
});
