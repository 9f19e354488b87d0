/**
 * The local bus loses no event it accepted when the runtime dies: a bus in a process of its own
 * (test/fixtures/bus-journal-child.mjs) accepts events and is killed (SIGKILL) before it delivers
 * some; the next bus on the same journal delivers exactly those, once, and keeps the journal private.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalEventBus } from '../../infra/local/aws/bus.js';
import { eventBus } from '../../shared/system.js';

const rules = [{ name: 'hooks', detailTypes: ['incident.created'], target: 'webhook-delivery' as const }];
const child = fileURLToPath(new URL('../fixtures/bus-journal-child.mjs', import.meta.url));

/** Runs the child bus until it has accepted its events, kills it, and answers the events' ids. */
async function acceptAndDie(journalFile: string): Promise<{ delivered: string; target: string; retrying: string }> {
  const process_ = spawn(process.execPath, [child, journalFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  process_.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  process_.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => process_.once('exit', (_code, signal) => resolve(signal)));
  await Promise.race([
    new Promise<void>((resolve) => process_.stdout.on('data', () => output.includes('\n') && resolve())),
    exited.then(() => {
      throw new Error(`the child bus exited before accepting its events:\n${output}`);
    }),
  ]);
  process_.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return JSON.parse(output.split('\n')[0]!);
}

describe('local event bus journal', () => {
  it('delivers after a restart what a killed runtime accepted and had not delivered, once, and only that', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'bus-journal-')), 'data');
    const journalFile = join(directory, 'event-bus-journal.jsonl');
    const ids = await acceptAndDie(journalFile);

    const received: EventBridgeEvent<string, { title: string }>[] = [];
    const next = new LocalEventBus({ journalFile, rules, invoke: async (_target, event) => void received.push(event as (typeof received)[number]) });
    expect(next.resume()).toBe(2);
    await next.idle();
    expect(received.map((event) => [event.id, event.detail.title]).sort()).toEqual(
      [
        [ids.target, 'in the target'],
        [ids.retrying, 'retrying'],
      ].sort(),
    );
    // Resumed once: a second call sends nothing again.
    expect(next.resume()).toBe(0);
    next.close();
    // Delivered is done: a third runtime has nothing to send.
    const third = new LocalEventBus({ journalFile, rules, invoke: async () => undefined });
    expect(third.resume()).toBe(0);
    third.close();
    // The journal (event bodies: incidents, e-mail addresses) is for this user only.
    expect(statSync(journalFile).mode & 0o777).toBe(0o600);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
  });

  it('keeps the journal short: emptied when nothing is pending, rewritten with only the pending past its slack', async () => {
    const journalFile = join(mkdtempSync(join(tmpdir(), 'bus-journal-')), 'event-bus-journal.jsonl');
    let release!: () => void;
    const bus = new LocalEventBus({
      journalFile,
      rules,
      concurrency: 2_000,
      invoke: (_target, event) => ((event as { detail: { index: number } }).detail.index === 0 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()),
    });
    const put = (index: number) => bus.putEvents([{ EventBusName: eventBus.name, Source: eventBus.source, DetailType: 'incident.created', Detail: JSON.stringify({ index }) }]);
    // One delivery stays pending while 1,500 others come and go (each ends within this turn's microtasks).
    const first = put(0).Entries[0]!.EventId;
    for (let index = 1; index < 1_500; index++) put(index);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const lines = readFileSync(journalFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { key?: string; done?: string });
    // Rewritten past its slack of 1,000 lines, instead of holding 2,999.
    expect(lines.length).toBeLessThan(1_100);
    const pending = new Set<string>();
    for (const line of lines) if (line.done) pending.delete(line.done); else pending.add(line.key!);
    expect([...pending]).toEqual([`${first}/hooks`]);
    release();
    await bus.idle();
    expect(readFileSync(journalFile, 'utf8')).toBe('');
    bus.close();
  });

  it('keeps nothing without a journal file (--in-memory)', async () => {
    const bus = new LocalEventBus({ rules, invoke: () => new Promise(() => undefined) });
    bus.putEvents([{ EventBusName: eventBus.name, Source: eventBus.source, DetailType: 'incident.created', Detail: '{}' }]);
    expect(bus.resume()).toBe(0);
  });
});
