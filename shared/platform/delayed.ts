/**
 * Work sent on later, at the precision it claims (issue 46 §5): EventBridge Scheduler fires to the
 * minute, so "in 5 s" through it is about a minute; SQS delays a message to the second, but by at most
 * 15 minutes. `sendLater` picks: a queue message with `DelaySeconds` for what is due within
 * MAX_QUEUE_DELAY_SECONDS, a one-time schedule beyond. A due time already past is sent at once (delay
 * 0), never scheduled in the past.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { MAX_QUEUE_DELAY_SECONDS } from '../system.js';
import { sandboxClient } from './aws-client.js';
import { requireEnv } from './config.js';
import { scheduleOnce, type OneTimeSchedule } from './scheduler.js';

/** The SQS client, created once per cold start. */
export const sqs = sandboxClient(() => new SQSClient({}));

/** How a piece of work is sent on: through the queue (with its delay in whole seconds), or a schedule. */
export type LaterRoute = { via: 'queue'; delaySeconds: number } | { via: 'schedule'; at: Date };

/**
 * The route of work due at `at` seen at `now`: the queue, delayed by the seconds up to `at` rounded up
 * (never early; 0 for a time already past), when that is at most SQS's 15 minutes; else a schedule.
 */
export function routeOf(at: Date, now: Date): LaterRoute {
  const delaySeconds = Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000));
  return delaySeconds <= MAX_QUEUE_DELAY_SECONDS ? { via: 'queue', delaySeconds } : { via: 'schedule', at };
}

export interface Later {
  /** The queue's URL environment variable (`queues.*.urlEnv`): what a short delay goes through. */
  queueUrlEnv: string;
  /** The schedule a long delay becomes (its `at` is the due time). */
  schedule: Omit<OneTimeSchedule, 'at'>;
  at: Date;
  now: Date;
}

/**
 * Sends `schedule.input` on at `at`: a queue message (its body the input) or a one-time schedule. A
 * schedule's name makes a repeat one schedule; a queue message may be delivered more than once, so its
 * consumer must be idempotent (the webhook worker leases each message). Answers the route taken.
 */
export async function sendLater(later: Later): Promise<LaterRoute> {
  const route = routeOf(later.at, later.now);
  if (route.via === 'queue') {
    await sqs().send(new SendMessageCommand({ QueueUrl: requireEnv(later.queueUrlEnv), MessageBody: JSON.stringify(later.schedule.input), DelaySeconds: route.delaySeconds }));
  } else {
    await scheduleOnce({ ...later.schedule, at: later.at.toISOString() });
  }
  return route;
}
