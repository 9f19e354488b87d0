/**
 * A killed runtime loses no webhook delivery its bus had accepted: the runtime runs in a process of
 * its own (test/fixtures/runtime-child.mjs), a burst of incidents outruns its webhook target (a
 * receiver that never answers holds every invocation the bus runs at once, the rest wait in the bus),
 * the process is killed (SIGKILL), and the next runtime on the same data delivers the waiting ones.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TARGET_CONCURRENCY } from '../../infra/local/aws/bus.js';
import { eventually } from '../support/api.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const child = fileURLToPath(new URL('../fixtures/runtime-child.mjs', import.meta.url));
const stateDir = mkdtempSync(join(tmpdir(), 'bus-restart-'));
let hang = true;
const receiver: Receiver = await startReceiver((_request, response) => {
  if (!hang) response.writeHead(204).end();
});
const running = new Set<ChildProcess>();
afterAll(async () => {
  for (const process_ of running) process_.kill('SIGKILL');
  await receiver.close();
});

async function startChild(): Promise<{ url: string; process: ChildProcess }> {
  const process_ = spawn(process.execPath, [child], { env: { ...process.env, STATE_DIR: stateDir, WEBHOOK_PORT: String(receiver.port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(process_);
  let output = '';
  process_.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    process_.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve(output.split('\n')[0]!);
    });
    process_.once('exit', () => reject(new Error(`the runtime exited:\n${output}`)));
  });
  return { url: (JSON.parse(line) as { url: string }).url, process: process_ };
}

async function call(url: string, method: string, path: string, token: string | undefined, body: unknown) {
  const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

/** The incident titles the receiver got. */
const titles = () => new Set(receiver.requests.map((request) => (JSON.parse(request.body) as { data?: { incident?: { title?: string } } }).data?.incident?.title));

describe('the local bus across a kill', () => {
  it('delivers after a restart the webhook messages a killed runtime had accepted and not sent', async () => {
    const first = await startChild();
    const { token } = (await call(first.url, 'POST', '/local/users', undefined, { email: `bus-restart-${Date.now()}@example.com`, name: 'Kill' })).body;
    const monitor = (await call(first.url, 'POST', '/api/monitors', token, { name: 'Killed' })).body.monitor.id;
    expect((await call(first.url, 'POST', '/api/webhooks', token, { url: `${receiver.origin}/hooks`, events: ['incident.created'], monitor_id: monitor })).status).toBe(201);
    // More incidents than the bus hands its target at once: the rest wait in the bus.
    const all = Array.from({ length: TARGET_CONCURRENCY + 4 }, (_, index) => `Burst ${index}`);
    for (const title of all) expect((await call(first.url, 'POST', '/api/incidents', token, { monitorId: monitor, title })).status).toBe(201);
    // The target is full: every invocation it may run is held by the receiver.
    await eventually(async () => receiver.requests.length, (count) => count >= TARGET_CONCURRENCY);
    first.process.kill('SIGKILL');
    await new Promise((resolve) => first.process.once('exit', resolve));
    const before = titles();
    const waiting = all.filter((title) => !before.has(title));
    expect(waiting.length).toBeGreaterThan(0);

    hang = false;
    const second = await startChild();
    // Those the killed runtime had accepted but not sent reach the receiver.
    await eventually(async () => titles(), (got) => waiting.every((title) => got.has(title)));
    second.process.kill('SIGKILL');
  });
});
