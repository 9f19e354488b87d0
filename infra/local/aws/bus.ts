/**
 * The local EventBridge: answers PutEvents for the service's bus and delivers each event to the
 * targets of the matching rules of the system description, asynchronously, with retries — as
 * EventBridge does (there, exhausted deliveries land in a dead-letter queue; here they are kept
 * in `deadLetters` and logged).
 *
 * EventBridge loses no event it accepted. With a journal file (under `.data/`), neither does this
 * bus when the runtime dies: every delivery is appended and synced to disk before PutEvents answers,
 * marked done once delivered or dead-lettered, and the ones not done are delivered again by the next
 * runtime (`resume`), at least once, as EventBridge delivers (every consumer is idempotent per event).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { EventBridgeEvent } from 'aws-lambda';
import { eventBus, eventRules, sesEvents, type EventRule } from '../../../shared/system.js';
import { PRIVATE_FILE_MODE, writePrivateFile } from './private-files.js';

export interface PutEventsEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Time?: number | string;
}

export interface Delivery {
  rule: string;
  target: string;
  event: EventBridgeEvent<string, unknown>;
}

export interface LocalBusOptions {
  invoke(target: string, event: unknown): Promise<unknown>;
  rules?: readonly EventRule[];
  /** Delivery attempts before an event is dead-lettered (EventBridge's default is 185 over 24 h). */
  maxAttempts?: number;
  retryDelayMs?: (attempt: number) => number;
  /** Invocations of one target at once (default TARGET_CONCURRENCY); the others wait their turn. */
  concurrency?: number;
  /** Where deliveries not yet done are kept across restarts (a JSON-lines journal); omitted = in memory. */
  journalFile?: string;
  log?: (line: string) => void;
}

/** A journal line: a delivery accepted (`key`, with what to deliver), or one done. */
type JournalLine = { key: string; delivery: Delivery } | { done: string };

/** Past this many lines beyond the pending deliveries, the journal is rewritten with only those. */
const JOURNAL_SLACK_LINES = 1_000;

/**
 * On AWS each instance of a function takes one event at a time and a burst of asynchronous events
 * waits in Lambda's queue, each invocation's timeout starting when it runs. Locally every function
 * shares one thread: with no limit, a burst (an incident with 20 subscribers created every few
 * milliseconds) ran all its deliveries at once, each slowed by all the others until they passed
 * their timeout. So a target takes this many events at once, and the rest wait, untimed.
 */
export const TARGET_CONCURRENCY = 8;

/** How many of each kind of record the bus keeps in memory (the most recent); a long run stays flat. */
export const HISTORY_LIMIT = 1_000;

/** Appends, dropping the oldest beyond `HISTORY_LIMIT`. */
export function remember<T>(history: T[], item: T) {
  history.push(item);
  if (history.length > HISTORY_LIMIT) history.splice(0, history.length - HISTORY_LIMIT);
}

export class LocalEventBus {
  /** The most recent events, deliveries and dead letters (at most HISTORY_LIMIT each). */
  readonly published: EventBridgeEvent<string, unknown>[] = [];
  readonly delivered: Delivery[] = [];
  readonly deadLetters: (Delivery & { error: string })[] = [];
  /** Every event ever published, counted. */
  publishedCount = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failuresToInject = 0;
  /** Per target: invocations running, and deliveries waiting for one of them to end. */
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** The journal: its open file, the deliveries not done yet by key, and the lines it holds. */
  private journal: { fd: number; pending: Map<string, Delivery>; lines: number } | undefined;
  /** Deliveries a previous runtime accepted and never finished, until `resume` sends them. */
  private recovered: Delivery[] = [];

  constructor(private readonly options: LocalBusOptions) {
    const file = options.journalFile;
    if (!file) return;
    const pending = new Map<string, Delivery>();
    if (existsSync(file)) {
      for (const text of readFileSync(file, 'utf8').split('\n')) {
        let line: JournalLine;
        try {
          line = JSON.parse(text) as JournalLine;
        } catch {
          // Empty, or the last line of a write the runtime died in: its PutEvents never answered.
          continue;
        }
        if ('done' in line) pending.delete(line.done);
        else pending.set(line.key, line.delivery);
      }
    }
    this.recovered = [...pending.values()];
    // The journal starts again with only what is still to deliver.
    writePrivateFile(file, [...pending].map(([key, delivery]) => `${JSON.stringify({ key, delivery })}\n`).join(''));
    this.journal = { fd: openSync(file, 'a', PRIVATE_FILE_MODE), pending, lines: pending.size };
  }

  /**
   * Delivers again what a previous runtime accepted and did not finish (from the journal), once;
   * answers how many deliveries that is.
   */
  resume(): number {
    const recovered = this.recovered;
    this.recovered = [];
    for (const delivery of recovered) this.start(delivery, this.keyOf(delivery));
    if (recovered.length > 0) this.options.log?.(`event bus: delivering ${recovered.length} event(s) accepted before the last stop`);
    return recovered.length;
  }

  /** Closes the journal (what is not delivered stays in it for the next runtime). */
  close() {
    if (!this.journal) return;
    closeSync(this.journal.fd);
    this.journal = undefined;
  }

  private keyOf(delivery: Delivery) {
    return `${delivery.event.id}/${delivery.rule}`;
  }

  /** Appends lines to the journal; with `sync`, on disk before this returns. */
  private record(lines: JournalLine[], sync: boolean) {
    const journal = this.journal;
    if (!journal || lines.length === 0) return;
    writeSync(journal.fd, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    if (sync) fdatasyncSync(journal.fd);
    journal.lines += lines.length;
  }

  /** A delivery is done (delivered or dead-lettered): off the journal, which is kept short. */
  private finished(key: string) {
    const journal = this.journal;
    if (!journal) return;
    journal.pending.delete(key);
    if (journal.pending.size === 0) {
      ftruncateSync(journal.fd, 0);
      journal.lines = 0;
    } else if (journal.lines > journal.pending.size + JOURNAL_SLACK_LINES) {
      const file = this.options.journalFile!;
      closeSync(journal.fd);
      writePrivateFile(file, [...journal.pending].map(([pendingKey, delivery]) => `${JSON.stringify({ key: pendingKey, delivery })}\n`).join(''));
      journal.fd = openSync(file, 'a', PRIVATE_FILE_MODE);
      journal.lines = journal.pending.size;
    } else {
      this.record([{ done: key }], false);
    }
  }

  /** Test control: the next `count` PutEvents calls fail as if EventBridge were unavailable. */
  failPutEvents(count: number) {
    this.failuresToInject = count;
  }

  /** The PutEvents API. Throws (a 500 to the SDK) while failures are injected. */
  putEvents(entries: PutEventsEntry[]): { FailedEntryCount: number; Entries: { EventId?: string; ErrorCode?: string }[] } {
    if (this.failuresToInject > 0) {
      this.failuresToInject -= 1;
      throw new Error('InternalException: the local event bus is failing on purpose');
    }
    const deliveries: Delivery[] = [];
    const results = entries.map((entry) => {
      // The service's bus, and the default bus on which SES (here: the local SES) reports on e-mails.
      if (entry.EventBusName && entry.EventBusName !== eventBus.name && entry.EventBusName !== sesEvents.bus) {
        return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${entry.EventBusName} does not exist.` };
      }
      const event: EventBridgeEvent<string, unknown> = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType ?? '',
        source: entry.Source ?? '',
        account: '000000000000',
        time: new Date(typeof entry.Time === 'number' ? entry.Time * 1000 : (entry.Time ?? Date.now())).toISOString(),
        region: 'local',
        resources: [],
        detail: JSON.parse(entry.Detail ?? '{}'),
      };
      remember(this.published, event);
      this.publishedCount += 1;
      deliveries.push(...this.route(event, entry.EventBusName ?? eventBus.name));
      return { EventId: event.id };
    });
    // On disk before PutEvents answers: an accepted event survives the runtime's death.
    const keyed = deliveries.map((delivery) => ({ key: this.keyOf(delivery), delivery }));
    this.record(keyed, true);
    for (const { key, delivery } of keyed) {
      this.journal?.pending.set(key, delivery);
      this.start(delivery, key);
    }
    return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
  }

  /** Resolves when every delivery under way has finished (delivered or dead-lettered). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** The deliveries of an event: one per matching rule. */
  private route(event: EventBridgeEvent<string, unknown>, busName: string): Delivery[] {
    const rules = this.options.rules ?? eventRules;
    const deliveries: Delivery[] = [];
    for (const rule of rules) {
      const [bus, source] = rule.from === 'ses' ? [sesEvents.bus, sesEvents.source] : [eventBus.name, eventBus.source];
      if (busName !== bus || event.source !== source || !rule.detailTypes.includes(event['detail-type'])) continue;
      deliveries.push({ rule: rule.name, target: rule.target, event });
    }
    return deliveries;
  }

  private start(delivery: Delivery, key: string) {
    const running = this.deliver(delivery).finally(() => this.finished(key));
    this.inFlight.add(running);
    void running.finally(() => this.inFlight.delete(running));
  }

  /** Resolves when `target` may take one more event now. */
  private turn(target: string): Promise<void> {
    const running = this.running.get(target) ?? 0;
    if (running < (this.options.concurrency ?? TARGET_CONCURRENCY)) {
      this.running.set(target, running + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(target) ?? [];
      queue.push(resolve);
      this.waiting.set(target, queue);
    });
  }

  /** An invocation of `target` ended: its place goes to the longest waiting delivery, if any. */
  private done(target: string) {
    const next = this.waiting.get(target)?.shift();
    if (next) next();
    else this.running.set(target, (this.running.get(target) ?? 1) - 1);
  }

  private async deliver(delivery: Delivery): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 8;
    const delay = this.options.retryDelayMs ?? ((attempt: number) => Math.min(5_000, 100 * 2 ** attempt));
    for (let attempt = 1; ; attempt++) {
      try {
        await this.turn(delivery.target);
        try {
          await this.options.invoke(delivery.target, delivery.event);
        } finally {
          this.done(delivery.target);
        }
        remember(this.delivered, delivery);
        return;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (attempt >= maxAttempts) {
          remember(this.deadLetters, { ...delivery, error: message });
          this.options.log?.(`event ${delivery.event['detail-type']} → ${delivery.target}: dead-lettered after ${attempt} attempts: ${message}`);
          return;
        }
        this.options.log?.(`event ${delivery.event['detail-type']} → ${delivery.target}: attempt ${attempt} failed (${message}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, delay(attempt)));
      }
    }
  }
}
