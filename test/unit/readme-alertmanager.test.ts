/**
 * The README's Alertmanager configuration ("Connecting Prometheus Alertmanager"), as a user copies it,
 * in a real Alertmanager: its PagerDuty receiver's `description` makes the alert's summary the event's
 * summary (not Alertmanager's "[FIRING:1] …"), its `severity` falls back to one Events API v2 takes,
 * what it sends parses with the service's own parser, and its route sends the Watchdog alert to the
 * heartbeat URL. Only the URLs (a receiver on loopback), the keys' placeholders and the route's
 * timings (not 30 s of `group_wait`) change.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';
import { parseEventsV2 } from '../../shared/alerts/events-v2.js';
import { newIntegrationKey } from '../../shared/integrations/keys.js';
import { Alertmanager, alertmanagerInstalled } from '../support/alertmanager.js';
import { eventually } from '../support/api.js';

/** The YAML block of the README's "Connecting Prometheus Alertmanager" section. */
function readmeAlertmanagerYaml(): string {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Connecting Prometheus Alertmanager\n');
  if (start < 0) throw new Error('The README has no "Connecting Prometheus Alertmanager" section');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const yaml = /^```yaml\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!yaml) throw new Error('The README\'s Alertmanager section has no yaml block');
  return yaml;
}

const received: { path: string; body: string }[] = [];
let server: Server;
let alertmanager: Alertmanager;

// Without the binary the test cannot run here; CI installs it (.ci/run) and sets CI, so there it never skips.
describe.skipIf(!alertmanagerInstalled() && !process.env.CI)("the README's Alertmanager configuration", () => {
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ path: request.url ?? '', body });
        response.writeHead(202, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    const yaml = readmeAlertmanagerYaml();
    // The route as the README says to switch it (`# or incident-service-pagerduty`), and timings of milliseconds.
    const config = yaml
      .replaceAll('https://api.example.com', `http://127.0.0.1:${address.port}`)
      .replaceAll(/<the (?:key of the )?[\w' ]*integration(?: key|'s integration)?>/g, newIntegrationKey())
      .replace(/^( {2}receiver: )incident-service\b(?!-)/m, '$1incident-service-pagerduty')
      .replace(/^( {2}group_by: .*)$/m, '$1\n  group_wait: 100ms\n  group_interval: 500ms');
    expect(config).toContain('receiver: incident-service-pagerduty');
    expect(config).not.toMatch(/<the /);
    alertmanager = await Alertmanager.start(config);
  });

  afterAll(async () => {
    await alertmanager?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('titles the PagerDuty event with the alert summary, with a severity the Events API takes, and pings the heartbeat with the Watchdog', { timeout: 120_000 }, async () => {
    await alertmanager.postAlerts([
      // No severity label: Alertmanager's template would render "", which the Events API refuses.
      { labels: { alertname: 'CheckoutErrors', job: 'checkout' }, annotations: { summary: 'Checkout 5xx above 2%' } },
      { labels: { alertname: 'DiskAlmostFull', job: 'node', severity: 'warning' }, annotations: { summary: 'Disk 91% full on db1' } },
      { labels: { alertname: 'Watchdog' } },
    ]);
    const enqueued = () => received.filter((request) => request.path === '/v2/enqueue');
    await eventually(async () => received, () => enqueued().length >= 2 && received.some((request) => request.path.startsWith('/heartbeats/')));
    const events = enqueued().map((request) => {
      const parsed = parseEventsV2(request.body);
      if (!parsed.ok) throw new Error(`${parsed.answer.body}: ${request.body}`);
      if (parsed.event.action !== 'trigger') throw new Error(`not a trigger: ${request.body}`);
      return { title: parsed.event.title, severity: parsed.event.severity, sent: parsed.event.details?.pagerdutySeverity };
    });
    expect(events.sort((a, b) => a.title.localeCompare(b.title))).toEqual([
      { title: 'Checkout 5xx above 2%', severity: 'HIGH', sent: 'error' },
      { title: 'Disk 91% full on db1', severity: 'MEDIUM', sent: 'warning' },
    ]);
    // The Watchdog goes to the heartbeat URL only, never to the PagerDuty receiver.
    expect(received.filter((request) => request.path.startsWith('/heartbeats/')).map((request) => JSON.parse(request.body).commonLabels)).toContainEqual({ alertname: 'Watchdog' });
    expect(enqueued().some((request) => request.body.includes('Watchdog'))).toBe(false);
  });
});
