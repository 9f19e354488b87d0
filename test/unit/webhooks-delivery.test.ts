/**
 * The core's parts together, as the delivery worker will use them: one message sent to a real
 * receiver attempt after attempt, each attempt signed and judged, the next one scheduled on a
 * controllable clock.
 */
import { createRequire } from 'node:module';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { advanceClock, clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { standardBody, type WebhookEvent } from '../../shared/webhooks/payloads.js';
import { classify, failedTooLong, failingSince, nextAttemptAt, type Verdict } from '../../shared/webhooks/retry.js';
import { generateSecret, messageId, signatureHeaders } from '../../shared/webhooks/signing.js';
import { deliver } from '../../shared/webhooks/target.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const { Webhook } = createRequire(import.meta.url)('standardwebhooks') as typeof import('standardwebhooks');

const event: WebhookEvent = { type: 'ping', timestamp: '2026-11-21T10:00:00.000Z', data: { webhook_id: 'w-1', message: 'Hello' } };

let receiver: Receiver | undefined;
afterEach(async () => {
  resetClock();
  await receiver?.close();
  receiver = undefined;
});

/** A receiver answering with the scripted answers in turn (`hang`: never answer). */
async function scripted(answers: Array<((response: ServerResponse) => void) | 'hang'>) {
  let next = 0;
  return startReceiver((_request, response) => {
    const answer = answers[next++];
    if (answer !== 'hang') (answer ?? ((r: ServerResponse) => r.writeHead(204).end()))(response);
  });
}

/** Attempts one message until its verdict is final, as the worker would; the clock jumps to each due time. */
async function attemptUntilFinal(url: string, secret: string) {
  const id = messageId('w-1', 'e-1');
  const body = standardBody(event);
  const log: Array<{ verdict: Verdict; status?: number; error?: string; waitedMs?: number }> = [];
  let streak: string | null = null;
  for (let attempts = 1; ; attempts++) {
    // Signed with real time, as the receiver's library checks it against its own clock.
    const result = await deliver(url, signatureHeaders({ id, body, secrets: [secret], at: new Date() }), body, { loopbackPorts: [Number(new URL(url).port)], timeoutMs: 300 });
    const verdict = classify(result);
    streak = failingSince(streak, verdict, clock.now());
    log.push({ verdict, ...(result.status ? { status: result.status } : {}), ...(result.error ? { error: result.error } : {}) });
    if (verdict !== 'retry') return { log, streak };
    const due = nextAttemptAt({ attempts, at: clock.now(), result, random: () => 0 });
    if (!due) return { log, streak };
    log[log.length - 1]!.waitedMs = due.getTime() - clock.now().getTime();
    advanceClock(due.getTime() - clock.now().getTime());
  }
}

describe('one message, attempt after attempt', () => {
  it('500, 429 with Retry-After, a timeout, then success: retried on the schedule, the same webhook-id, each attempt verifying', async () => {
    freezeClock(new Date('2026-11-21T10:00:00.000Z'));
    receiver = await scripted([
      (r) => r.writeHead(500).end('down'),
      (r) => r.writeHead(429, { 'retry-after': '600' }).end(),
      'hang',
    ]);
    const secret = generateSecret();
    const { log, streak } = await attemptUntilFinal(`${receiver.origin}/in`, secret);
    expect(log).toEqual([
      { verdict: 'retry', status: 500, waitedMs: 5_000 },
      // Retry-After 10 min lengthens the 5-minute step.
      { verdict: 'retry', status: 429, waitedMs: 600_000 },
      { verdict: 'retry', error: 'Timed out after 300 ms', waitedMs: 30 * 60_000 },
      { verdict: 'success', status: 204 },
    ]);
    expect(streak).toBeNull();
    expect(receiver.requests).toHaveLength(4);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([messageId('w-1', 'e-1')]));
    for (const request of receiver.requests) {
      expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual(event);
    }
  });

  it('410 ends the message at once and disables the webhook', async () => {
    freezeClock(new Date('2026-11-21T10:00:00.000Z'));
    receiver = await scripted([(r) => r.writeHead(503).end(), (r) => r.writeHead(410).end('gone')]);
    const { log, streak } = await attemptUntilFinal(`${receiver.origin}/in`, generateSecret());
    expect(log.map(({ verdict }) => verdict)).toEqual(['retry', 'disable']);
    expect(streak).toBe('2026-11-21T10:00:00.000Z');
    expect(receiver.requests).toHaveLength(2);
  });

  it('a 400 fails the message without retries; a receiver down through the whole schedule fails it after 8 attempts', async () => {
    freezeClock(new Date('2026-11-21T10:00:00.000Z'));
    receiver = await scripted([(r) => r.writeHead(400).end('bad')]);
    expect((await attemptUntilFinal(`${receiver.origin}/in`, generateSecret())).log).toEqual([{ verdict: 'fail', status: 400 }]);
    await receiver.close();

    receiver = await startReceiver((_request, response) => response.writeHead(502).end());
    const { log, streak } = await attemptUntilFinal(`${receiver.origin}/in`, generateSecret());
    expect(log).toHaveLength(8);
    expect(log.every(({ verdict }) => verdict === 'retry')).toBe(true);
    // 31 h 35 min of failures: not yet the 3 days that disable a webhook.
    expect(failedTooLong(streak, clock.now())).toBe(false);
    expect(failedTooLong(streak, new Date(Date.parse(streak!) + 3 * 24 * 60 * 60_000))).toBe(true);
  });
});
