import { afterEach, describe, expect, it, vi } from 'vitest';
import { TABLE_NAME_ENV } from '../../shared/system.js';
import { advanceClock, clock } from '../../shared/platform/clock.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { newSandbox, perSandbox } from '../../shared/platform/sandbox.js';
import { sesClient } from '../../shared/channels/email.js';
import { workerHandler } from '../../functions/lib/observability.js';
import { lambdaContext } from '../../infra/local/aws/lambda-context.js';
import { captureLogs } from '../support/logs.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  newSandbox();
});

describe('a new sandbox (one process standing for several Lambda sandboxes in turn)', () => {
  it('keeps a per-sandbox value until a new sandbox, which disposes of it and creates the next on first use', () => {
    const disposed: number[] = [];
    let created = 0;
    const value = perSandbox(() => ++created, (old) => disposed.push(old));
    expect(created).toBe(0);
    expect([value(), value()]).toEqual([1, 1]);
    newSandbox();
    expect(disposed).toEqual([1]);
    expect(created).toBe(1);
    expect(value()).toBe(2);
    // Nothing created, nothing disposed.
    newSandbox();
    newSandbox();
    expect(disposed).toEqual([1, 2]);
  });

  it("gives the service new AWS clients and reads the table's name again; the old clients are destroyed", () => {
    vi.stubEnv(TABLE_NAME_ENV, 'first-table');
    newSandbox();
    const [firstDb, firstSes] = [db(), sesClient()];
    expect([db(), sesClient(), tableName()]).toEqual([firstDb, firstSes, 'first-table']);
    const destroyed = [vi.spyOn(firstDb, 'destroy'), vi.spyOn(firstSes, 'destroy')];

    vi.stubEnv(TABLE_NAME_ENV, 'second-table');
    expect(tableName()).toBe('first-table');
    newSandbox();
    expect(db()).not.toBe(firstDb);
    expect(sesClient()).not.toBe(firstSes);
    expect(tableName()).toBe('second-table');
    for (const destroy of destroyed) expect(destroy).toHaveBeenCalledOnce();
  });

  it('starts at the real time', () => {
    advanceClock(3_600_000);
    expect(clock.now().getTime() - Date.now()).toBeGreaterThan(3_000_000);
    newSandbox();
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(1_000);
  });

  it("counts a function's first invocation in a new sandbox as a cold start again", async () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    const { jsonLines } = captureLogs();
    const handler = workerHandler('sandbox-test-worker', async () => 'done');
    const invokeOnce = () => handler(undefined, lambdaContext('sandbox-test-worker', 'request', 3));
    await invokeOnce();
    await invokeOnce();
    newSandbox();
    await invokeOnce();
    const invocations = jsonLines().filter((line) => line.message === 'invocation' && line.function_name === 'sandbox-test-worker');
    expect(invocations.map((line) => line.cold_start)).toEqual([true, false, true]);
  });
});
