/**
 * The local EventBridge Scheduler: one-time `at(...)` schedules that invoke a function with a
 * fixed input, deleted after they fire (ActionAfterCompletion DELETE). Schedules are kept in a
 * JSON file (under .data/), so a restart of the local runtime loses none. Time is the service
 * clock, so tests move it instead of waiting.
 */
import { existsSync, readFileSync } from 'node:fs';
import { clock } from '../../../shared/platform/clock.js';
import { periodicRules, type PeriodicRule } from '../../../shared/system.js';
import { remember } from './bus.js';
import type { LocalQueues } from './queue.js';
import { writePrivateFile } from './private-files.js';

export interface ScheduleRequest {
  ScheduleExpression?: string;
  ScheduleExpressionTimezone?: string;
  GroupName?: string;
  ActionAfterCompletion?: string;
  Target?: { Arn?: string; RoleArn?: string; Input?: string };
}

export interface Schedule {
  name: string;
  group: string;
  /** When it fires (ISO, UTC). */
  at: string;
  targetArn: string;
  input: string;
  deleteAfterCompletion: boolean;
  attempts: number;
}

export class ScheduleConflict extends Error {
  override name = 'ConflictException';
}
export class ScheduleInvalid extends Error {
  override name = 'ValidationException';
}
export class ScheduleNotFound extends Error {
  override name = 'ResourceNotFoundException';
}

export interface LocalSchedulerOptions {
  /** Where schedules are kept; omitted = in memory. */
  file?: string;
  invoke(targetArn: string, input: unknown): Promise<unknown>;
  pollMs?: number;
  maxAttempts?: number;
  log?: (line: string) => void;
  /** The system's periodic rules (default: all of them), fired by the service clock. */
  periodic?: readonly PeriodicRule[];
  /** The local queues: each tick also hands over their messages that are due (issue 46 §5). */
  queues?: LocalQueues;
}

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC (the only timezone the service uses). */
export function parseAt(expression: string | undefined, timezone = 'UTC'): string {
  const match = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression ?? '');
  if (!match || timezone !== 'UTC') throw new ScheduleInvalid(`Unsupported schedule expression: ${expression} (${timezone})`);
  return new Date(`${match[1]}Z`).toISOString();
}

const periodOf = (rule: PeriodicRule) => rule.everyMinutes * 60_000;

export class LocalScheduler {
  private schedules = new Map<string, Schedule>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** The most recent schedules fired (at most HISTORY_LIMIT). */
  readonly fired: Schedule[] = [];

  constructor(private readonly options: LocalSchedulerOptions) {
    const now = clock.now().getTime();
    for (const rule of options.periodic ?? periodicRules) this.periodicNext.set(rule.name, now + periodOf(rule));
    if (options.file && existsSync(options.file)) {
      const saved = JSON.parse(readFileSync(options.file, 'utf8')) as Schedule[];
      this.schedules = new Map(saved.map((schedule) => [schedule.name, schedule]));
    }
  }

  start() {
    this.timer ??= setInterval(() => void this.tick(), this.options.pollMs ?? 1000);
    this.timer.unref();
  }

  async stop() {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  list(): Schedule[] {
    return [...this.schedules.values()].sort((a, b) => a.at.localeCompare(b.at));
  }

  /** The CreateSchedule API. */
  create(name: string, request: ScheduleRequest): { ScheduleArn: string } {
    if (this.schedules.has(name)) throw new ScheduleConflict(`Schedule ${name} already exists.`);
    if (!request.Target?.Arn) throw new ScheduleInvalid('Target.Arn is required');
    this.schedules.set(name, {
      name,
      group: request.GroupName ?? 'default',
      at: parseAt(request.ScheduleExpression, request.ScheduleExpressionTimezone),
      targetArn: request.Target.Arn,
      input: request.Target.Input ?? '{}',
      deleteAfterCompletion: request.ActionAfterCompletion === 'DELETE',
      attempts: 0,
    });
    this.save();
    return { ScheduleArn: `arn:aws:scheduler:local:000000000000:schedule/${request.GroupName ?? 'default'}/${name}` };
  }

  /** The DeleteSchedule API. */
  delete(name: string) {
    if (!this.schedules.delete(name)) throw new ScheduleNotFound(`Schedule ${name} does not exist.`);
    this.save();
  }

  /** Fires every schedule that is due; one tick at a time, so each fires once. */
  tick(): Promise<void> {
    this.ticking ??= this.fireDue().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /**
   * When each periodic rule fires next (ms on the service clock): its first run a period after the
   * scheduler is created, so that a clock moved past it before the first tick runs it at that tick.
   */
  private readonly periodicNext = new Map<string, number>();

  /** Runs each periodic rule whose period has passed (EventBridge's `rate(n minutes)`); a failure waits for the next run. */
  private async firePeriodic() {
    for (const rule of this.options.periodic ?? periodicRules) {
      const now = clock.now().getTime();
      const next = this.periodicNext.get(rule.name)!;
      // The service clock moved back (a test putting it back after moving it on): the rule's next run is a
      // period from now, as a rate rule's is from any instant, never a moved-on clock's time ahead.
      if (next - now > periodOf(rule)) this.periodicNext.set(rule.name, now + periodOf(rule));
      if (now < this.periodicNext.get(rule.name)!) continue;
      this.periodicNext.set(rule.name, now + periodOf(rule));
      try {
        await this.options.invoke(rule.target, {});
      } catch (error) {
        this.options.log?.(`periodic rule ${rule.name}: failed (${error instanceof Error ? error.message : String(error)}); runs again in ${rule.everyMinutes} min`);
      }
    }
  }

  private async fireDue() {
    await this.firePeriodic();
    await this.options.queues?.deliverDue();
    const now = clock.now().toISOString();
    for (const schedule of this.list().filter((candidate) => candidate.at <= now)) {
      try {
        await this.options.invoke(schedule.targetArn, JSON.parse(schedule.input));
        remember(this.fired, schedule);
        if (schedule.deleteAfterCompletion) this.schedules.delete(schedule.name);
      } catch (error) {
        schedule.attempts += 1;
        const message = error instanceof Error ? error.message : String(error);
        if (schedule.attempts >= (this.options.maxAttempts ?? 10)) {
          this.schedules.delete(schedule.name);
          this.options.log?.(`schedule ${schedule.name}: dropped after ${schedule.attempts} failed attempts: ${message}`);
        } else {
          this.options.log?.(`schedule ${schedule.name}: attempt ${schedule.attempts} failed (${message}); retrying`);
        }
      }
      this.save();
    }
  }

  private save() {
    const { file } = this.options;
    if (!file) return;
    writePrivateFile(file, JSON.stringify(this.list(), null, 2));
  }
}
