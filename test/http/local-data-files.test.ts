/**
 * What the local runtime keeps on disk (the signing key, schedules, stream checkpoints, the bus's
 * journal, dead letters, runtime.json) is for its user's eyes only: files 0600, folders 0700,
 * whatever the umask, and what an older version left readable is tightened on start.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordRunning } from '../../infra/local/cli/running.js';
import { Api, eventually, uniqueEmail } from '../support/api.js';

/** Every file and folder under `root`, with its permission bits. */
const modes = (root: string): Record<string, string> => {
  const found: Record<string, string> = { '.': (statSync(root).mode & 0o777).toString(8) };
  for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) found[entry] = (statSync(join(root, entry)).mode & 0o777).toString(8);
  return found;
};

let api: Api | undefined;
afterAll(() => api?.close());

describe('local data files', () => {
  it('are written 0600 in 0700 folders, and a folder an older version left readable is tightened on start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-data-'));
    // As an older version left it: readable by everyone.
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'dead-letters'), { mode: 0o755 });
    chmodSync(join(dir, 'dead-letters'), 0o755);
    writeFileSync(join(dir, 'dead-letters', 'stream-old.json'), '{}', { mode: 0o644 });
    chmodSync(join(dir, 'dead-letters', 'stream-old.json'), 0o644);

    api = await Api.start({ stateDir: dir, keyFile: join(dir, 'jwt-signing-key.json') });
    const alice = await api.signUp(uniqueEmail('files'), 'Alice');
    const monitor = await api.request('POST', '/api/monitors', { token: alice.token, body: { name: 'Files' } });
    expect((await api.request('POST', '/api/incidents', { token: alice.token, body: { monitorId: monitor.body.monitor.id, title: 'On disk' } })).status).toBe(201);
    // A schedule as an escalation step creates one (CreateSchedule); the stream's checkpoint is written as it is read.
    api.runtime.scheduler.create('files-step', {
      ScheduleExpression: 'at(2099-01-01T00:00:00)',
      ScheduleExpressionTimezone: 'UTC',
      Target: { Arn: 'arn:aws:lambda:local:000000000000:function:escalation-step', Input: '{}' },
    });
    await eventually(async () => readdirSync(dir), (files) => files.some((file) => file.startsWith('stream-checkpoints-')));
    await api.runtime.idle();

    const found = modes(dir);
    expect(Object.keys(found)).toEqual(
      expect.arrayContaining(['jwt-signing-key.json', 'schedules.json', 'event-bus-journal.jsonl', 'dead-letters', 'dead-letters/stream-old.json']),
    );
    expect(Object.keys(found).some((file) => file.startsWith('stream-checkpoints-'))).toBe(true);
    const loose = Object.entries(found).filter(([path, mode]) => mode !== (statSync(join(dir, path)).isDirectory() ? '700' : '600'));
    expect(loose).toEqual([]);
  });

  it("writes runtime.json (which tells npm run token where the runtime runs) 0600, in a folder it makes 0700", () => {
    const saved = process.env.LOCAL_DATA_DIR;
    const dir = join(mkdtempSync(join(tmpdir(), 'local-data-')), 'data');
    process.env.LOCAL_DATA_DIR = dir;
    try {
      recordRunning({ url: 'http://localhost:1', pid: 1, dynamodb: { endpoint: 'http://127.0.0.1:2', pid: 2 } });
    } finally {
      if (saved === undefined) delete process.env.LOCAL_DATA_DIR;
      else process.env.LOCAL_DATA_DIR = saved;
    }
    expect(modes(dir)).toEqual({ '.': '700', 'runtime.json': '600' });
  });
});
