/**
 * A real Prometheus Alertmanager for tests: Debian's `prometheus-alertmanager` binary (CI installs it
 * with apt, `.ci/run`), started on a free loopback port with clustering off, a temporary storage
 * directory and a generated configuration whose timings are short, so that a notification follows an
 * alert within about a second. Tests post alerts to its v2 API and receive what it sends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { within } from './deadlines.js';

/** `ALERTMANAGER_BIN` overrides where the binary is. */
export const ALERTMANAGER_BIN = process.env.ALERTMANAGER_BIN ?? '/usr/bin/prometheus-alertmanager';
export const alertmanagerInstalled = () => existsSync(ALERTMANAGER_BIN);

export interface ReceiverConfig {
  /** A `webhook_configs` receiver: its URL and the bearer credentials it sends. */
  webhook?: { url: string; bearer: string };
  /** A `pagerduty_configs` receiver (Events API v2): its `url` and `routing_key`. */
  pagerduty?: { url: string; routingKey: string };
}

/** An alert as the v2 API takes it (`POST /api/v2/alerts`). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick; released at once for the process to take). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/**
 * The configuration: one route to one receiver with both kinds of configs, every alert its own group
 * (`group_by: ['...']`, so each alert's notification is its own), and timings in the hundreds of
 * milliseconds. PagerDuty's severity comes from the alert's `severity` label, as users configure it.
 */
export function alertmanagerConfig(receivers: ReceiverConfig): string {
  const lines = [
    'route:',
    '  receiver: service',
    "  group_by: ['...']",
    '  group_wait: 100ms',
    '  group_interval: 500ms',
    '  repeat_interval: 1h',
    'receivers:',
    '  - name: service',
  ];
  if (receivers.webhook) {
    lines.push(
      '    webhook_configs:',
      `      - url: ${JSON.stringify(receivers.webhook.url)}`,
      '        send_resolved: true',
      '        http_config:',
      '          authorization:',
      '            type: Bearer',
      `            credentials: ${JSON.stringify(receivers.webhook.bearer)}`,
    );
  }
  if (receivers.pagerduty) {
    lines.push(
      '    pagerduty_configs:',
      `      - url: ${JSON.stringify(receivers.pagerduty.url)}`,
      `        routing_key: ${JSON.stringify(receivers.pagerduty.routingKey)}`,
      "        severity: '{{ .CommonLabels.severity }}'",
      '        send_resolved: true',
    );
  }
  return `${lines.join('\n')}\n`;
}

export class Alertmanager {
  private exited: Promise<number | null>;
  private output = '';

  private constructor(
    private readonly process: ChildProcess,
    private readonly directory: string,
    readonly url: string,
  ) {
    this.exited = new Promise((resolve) => process.once('exit', (code) => resolve(code)));
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    process.stdout?.on('data', keep);
    process.stderr?.on('data', keep);
  }

  /**
   * Starts one and waits (up to `readyBaseMs` × the run's deadline factor) until it answers `/-/ready`:
   * with the generated configuration for `receivers`, or with a whole `alertmanager.yml` of the caller's (the README's).
   */
  static async start(receivers: ReceiverConfig | string, readyBaseMs = 30_000): Promise<Alertmanager> {
    const directory = await mkdtemp(join(tmpdir(), 'alertmanager-'));
    const configFile = join(directory, 'alertmanager.yml');
    await writeFile(configFile, typeof receivers === 'string' ? receivers : alertmanagerConfig(receivers));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(
      ALERTMANAGER_BIN,
      [
        `--config.file=${configFile}`,
        `--storage.path=${join(directory, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        // Links in notifications point here, not at this machine's host name.
        `--web.external-url=${url}`,
        // No cluster: no gossip port, no peer-settle wait before the first notification.
        '--cluster.listen-address=',
        '--log.level=debug',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const alertmanager = new Alertmanager(child, directory, url);
    try {
      await alertmanager.waitReady(within(readyBaseMs));
    } catch (error) {
      await alertmanager.stop();
      throw error;
    }
    return alertmanager;
  }

  /** What it logged lately (for a failing test's message). */
  get log() {
    return this.output;
  }

  private async waitReady(timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    let stopped = false;
    void this.exited.then(() => (stopped = true));
    for (;;) {
      if (stopped) throw new Error(`alertmanager exited before it was ready:\n${this.output}`);
      try {
        const response = await fetch(`${this.url}/-/ready`, { signal: AbortSignal.timeout(within(2_000)) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`alertmanager not ready within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Posts alerts to its v2 API. */
  async postAlerts(alerts: PostableAlert[]): Promise<void> {
    const response = await fetch(`${this.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts),
    });
    if (!response.ok) throw new Error(`POST /api/v2/alerts: ${response.status} ${await response.text()}`);
  }

  /** Stops it (SIGTERM, then SIGKILL after 10 s) and removes its directory. */
  async stop(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      this.process.kill('SIGTERM');
      const timer = setTimeout(() => this.process.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    await rm(this.directory, { recursive: true, force: true });
  }
}
