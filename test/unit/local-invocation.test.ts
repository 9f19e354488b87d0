/** The local Lambda service gives each invocation the timeout its function is deployed with, and tells a profile where each starts and ends. */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { invocationChannel, invocationScope, invoke } from '../../infra/local/aws/functions.js';
import { functionDefaults, workers } from '../../shared/system.js';

const remaining = async (functionName: string) =>
  (await invoke((async (_event: never, context: Context) => context.getRemainingTimeInMillis()) as never, functionName, {})) as number;

describe('local invocations', () => {
  it("count down from the function's own timeout, not the default", async () => {
    // The notifier sends at SES's pace and is deployed with 5 minutes; with the default 10 s, a slow
    // machine timed out a 500-subscriber fan-out and the bus redelivered the event.
    expect(workers.notifier.timeoutSeconds).toBeGreaterThan(functionDefaults.timeoutSeconds);
    const notifier = await remaining(workers.notifier.name);
    expect(notifier).toBeGreaterThan((workers.notifier.timeoutSeconds! - 5) * 1000);
    expect(notifier).toBeLessThanOrEqual(workers.notifier.timeoutSeconds! * 1000);
    const route = await remaining('incidents-get');
    expect(route).toBeGreaterThan(0);
    expect(route).toBeLessThanOrEqual(functionDefaults.timeoutSeconds * 1000);
  });

  it('publishes its start and end on the local:invocation channel while a profile subscribes, its scope intact', async () => {
    const seen: string[] = [];
    const ignore = () => undefined;
    const handlers = {
      start: (message: { functionName: string }) => seen.push(`start ${message.functionName}`),
      end: ignore,
      asyncStart: ignore,
      asyncEnd: (message: { functionName: string }) => seen.push(`end ${message.functionName}`),
      error: ignore,
    };
    const handler = (async () => {
      seen.push(`run ${invocationScope.getStore()?.functionName}`);
      await Promise.resolve();
      return 'done';
    }) as never;
    invocationChannel.subscribe(handlers as never);
    try {
      expect(await invoke(handler, 'incidents-list', {})).toBe('done');
    } finally {
      invocationChannel.unsubscribe(handlers as never);
    }
    expect(seen).toEqual(['start incidents-list', 'run incidents-list', 'end incidents-list']);
    // Unsubscribed, an invocation goes straight through.
    expect(await invoke(handler, 'incidents-list', {})).toBe('done');
    expect(seen).toHaveLength(4);
  });
});
