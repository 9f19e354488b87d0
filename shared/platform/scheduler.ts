/**
 * EventBridge Scheduler, as the service uses it: one-time schedules (an escalation step's page, a
 * webhook delivery's retry), each created once per cold start's client and named deterministically.
 */
import { ConflictException, CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { env } from '../system.js';
import { sandboxClient } from './aws-client.js';
import { clock } from './clock.js';
import { requireEnv } from './config.js';

/** The Scheduler client, created once per cold start. */
export const scheduler = sandboxClient(() => new SchedulerClient({}));

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the second: a schedule never fires early. */
export function atExpression(iso: string) {
  const ms = Date.parse(iso);
  return `at(${new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19)})`;
}

/** How far ahead of now a one-time schedule is created at the earliest (its request's way to Scheduler, clocks' skew). */
export const SCHEDULE_LEAD_MS = 1_000;

/**
 * When a one-time schedule is created for: `at`, or, when that is less than `SCHEDULE_LEAD_MS` ahead of
 * `now` (a worker running late, a retried invocation, a step due at once), `now` plus the lead: never an
 * `at()` in the past, which Scheduler would refuse or never fire (issue 46 §10). Never earlier than `at`.
 */
export function scheduledAt(at: string, now: Date): string {
  const earliest = now.getTime() + SCHEDULE_LEAD_MS;
  return Date.parse(at) >= earliest ? at : new Date(earliest).toISOString();
}

/** A one-time schedule: it invokes the function `target` once with `input` at `at`. */
export interface OneTimeSchedule {
  /** Deterministic, so that a repeat of the same request is a conflict. */
  name: string;
  at: string;
  target: string;
  input: unknown;
  /** Where a schedule whose invocation keeps failing goes (set on AWS; the local scheduler keeps its own dead letters). */
  deadLetterArn: string | undefined;
}

/**
 * Creates the schedule in the service's group, at `at` in UTC (never early, never in the past: `scheduledAt`), retried up to 10 times
 * within an hour and deleted once it fired. it answers `exists` when a schedule of that name exists
 * already: however many invocations ask, there is one schedule.
 */
export async function scheduleOnce(schedule: OneTimeSchedule): Promise<'created' | 'exists'> {
  try {
    await scheduler().send(
      new CreateScheduleCommand({
        Name: schedule.name,
        GroupName: requireEnv(env.schedulerGroup),
        ScheduleExpression: atExpression(scheduledAt(schedule.at, clock.now())),
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: {
          Arn: schedule.target,
          RoleArn: requireEnv(env.schedulerRoleArn),
          Input: JSON.stringify(schedule.input),
          RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
          ...(schedule.deadLetterArn ? { DeadLetterConfig: { Arn: schedule.deadLetterArn } } : {}),
        },
      }),
    );
    return 'created';
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
    return 'exists';
  }
}
