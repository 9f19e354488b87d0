/**
 * A real Alertmanager (Debian's `prometheus-alertmanager`) sends to a receiver on loopback through a
 * `webhook_configs` receiver and a `pagerduty_configs` receiver whose `url` is the receiver's
 * `/v2/enqueue`; what it sends must parse, with our parsers, into the events it stands for: a trigger
 * when the alert fires, a resolve when it ends. The receiver answers as the service will (202 with
 * PagerDuty's body, 200 for a webhook), so Alertmanager takes both deliveries as done.
 *
 * `WRITE_ALERTMANAGER_FIXTURES=1` rewrites test/fixtures/alertmanager-*.json from this run's payloads
 * (the parser tests read them).
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebhookNotification } from '../../shared/alerts/alertmanager.js';
import { acceptedAnswer, parseEventsV2 } from '../../shared/alerts/events-v2.js';
import { keyFromAuthorization, newIntegrationKey } from '../../shared/integrations/keys.js';
import { Alertmanager, alertmanagerInstalled } from '../support/alertmanager.js';
import { within } from '../support/deadlines.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP server standing in for the service's two routes; it keeps every request. */
class Receiver {
  readonly requests: Received[] = [];
  private readonly arrivals = new EventEmitter();
  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        if (received.path === '/v2/enqueue') {
          const parsed = parseEventsV2(received.body);
          const answer = parsed.ok ? acceptedAnswer(parsed.event.dedupKey) : parsed.answer;
          response.writeHead(answer.statusCode, answer.headers).end(answer.body);
        } else if (received.path === '/integrations/alertmanager') {
          const parsed = parseWebhookNotification(received.body);
          response.writeHead(parsed.ok ? 200 : 400, { 'content-type': 'application/json' }).end(parsed.ok ? '{"ok":true}' : '{"error":"Validation errors"}');
        } else {
          response.writeHead(404).end();
        }
        receiver!.requests.push(received);
        receiver!.arrivals.emit('request');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    receiver = new Receiver(server, `http://127.0.0.1:${address.port}`);
    return receiver;
  }

  /** The first request (received already or to come) that `matches`; fails after `timeoutMs`. */
  next(matches: (request: Received) => boolean, describeIt: string, timeoutMs = 30_000): Promise<Received> {
    const found = this.requests.find(matches);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onRequest = () => {
        const match = this.requests.find(matches);
        if (!match) return;
        clearTimeout(timer);
        this.arrivals.off('request', onRequest);
        resolve(match);
      };
      const timer = setTimeout(() => {
        this.arrivals.off('request', onRequest);
        reject(new Error(`no ${describeIt} within ${timeoutMs} ms; received: ${JSON.stringify(this.requests.map((r) => [r.path, r.body.slice(0, 300)]))}`));
      }, timeoutMs);
      this.arrivals.on('request', onRequest);
    });
  }

  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const json = (request: Received) => JSON.parse(request.body) as Record<string, any>;
const isWebhook = (status: string) => (request: Received) => request.path === '/integrations/alertmanager' && json(request).status === status;
const isEnqueue = (action: string) => (request: Received) => request.path === '/v2/enqueue' && json(request).event_action === action;

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url);

// Without the binary the test cannot run here; CI installs it (.ci/run) and sets CI, so there it never skips.
describe.skipIf(!alertmanagerInstalled() && !process.env.CI)('a real Alertmanager', () => {
  const key = newIntegrationKey();
  let receiver: Receiver;
  let alertmanager: Alertmanager;

  beforeAll(async () => {
    receiver = await Receiver.start();
    alertmanager = await Alertmanager.start({
      webhook: { url: `${receiver.url}/integrations/alertmanager`, bearer: key },
      pagerduty: { url: `${receiver.url}/v2/enqueue`, routingKey: key },
    });
  });

  afterAll(async () => {
    await alertmanager?.stop();
    await receiver?.close();
  });

  it('sends a firing alert as a trigger and its end as a resolve, through both receivers', { timeout: within(120_000) }, async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alert = {
      labels: { alertname: 'DiskAlmostFull', instance: 'db1:9100', job: 'node', severity: 'critical' },
      annotations: { summary: 'Disk almost full on db1', description: 'Less than 5% of / is free.' },
      startsAt,
      generatorURL: 'http://prometheus.example/graph?g0.expr=disk',
    };
    await alertmanager.postAlerts([alert]);

    const firing = await receiver.next(isWebhook('firing'), 'firing webhook');
    const trigger = await receiver.next(isEnqueue('trigger'), 'trigger event');

    // The webhook: the key as bearer credentials, one alert, keyed by its fingerprint.
    expect(keyFromAuthorization(firing.headers.authorization)).toEqual({ ok: true, key });
    const webhook = parseWebhookNotification(firing.body);
    if (!webhook.ok) throw new Error(JSON.stringify(webhook.error.details));
    const fingerprint = json(firing).alerts[0].fingerprint as string;
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(webhook.notification).toMatchObject({ sender: 'alertmanager', groupKey: json(firing).groupKey, externalUrl: alertmanager.url });
    expect(webhook.notification.events).toEqual([
      expect.objectContaining({
        action: 'trigger',
        dedupKey: fingerprint,
        title: 'Disk almost full on db1',
        summary: 'Disk almost full on db1',
        severity: 'CRITICAL',
        occurredAt: startsAt,
        description: 'Less than 5% of / is free.',
        generatorUrl: alert.generatorURL,
        endsAt: null,
      }),
    ]);

    // The Events API v2 event: our routing key, Alertmanager's dedup key (SHA-256 of the group key).
    const event = parseEventsV2(trigger.body);
    if (!event.ok) throw new Error(event.answer.body);
    expect(trigger.headers['content-type']).toMatch(/^application\/json/);
    expect(event.event).toMatchObject({
      action: 'trigger',
      routingKey: key,
      dedupKey: createHash('sha256').update(json(firing).groupKey).digest('hex'),
      dedupKeyGenerated: false,
      severity: 'CRITICAL',
      details: expect.objectContaining({ source: 'Alertmanager', pagerdutySeverity: 'critical', client: 'Alertmanager' }),
    });
    expect(event.event.action === 'trigger' && event.event.title).toMatch(/^\[FIRING:1\] DiskAlmostFull /);

    // The alert ends: both receivers say so, for the same keys.
    await alertmanager.postAlerts([{ ...alert, endsAt: new Date(Date.now() - 1_000).toISOString() }]);
    const resolved = await receiver.next(isWebhook('resolved'), 'resolved webhook');
    const resolve = await receiver.next(isEnqueue('resolve'), 'resolve event');

    const ended = parseWebhookNotification(resolved.body);
    if (!ended.ok) throw new Error(JSON.stringify(ended.error.details));
    expect(ended.notification.events).toEqual([expect.objectContaining({ action: 'resolve', dedupKey: fingerprint })]);
    expect(ended.notification.events[0]!.endsAt).not.toBeNull();
    const resolveEvent = parseEventsV2(resolve.body);
    if (!resolveEvent.ok) throw new Error(resolveEvent.answer.body);
    expect(resolveEvent.event).toMatchObject({ action: 'resolve', routingKey: key, dedupKey: event.event.dedupKey, details: null });

    if (process.env.WRITE_ALERTMANAGER_FIXTURES) {
      // The key of this run is replaced by a fixed one, so the fixtures do not change with every write.
      const write = (name: string, request: Received) => writeFileSync(fixture(name), request.body.replaceAll(key, 'k'.repeat(32)));
      write('alertmanager-webhook-firing.json', firing);
      write('alertmanager-webhook-resolved.json', resolved);
      write('alertmanager-pagerduty-trigger.json', trigger);
      write('alertmanager-pagerduty-resolve.json', resolve);
    }
  });
});
