/**
 * The local SQS (issue 46 §5): the system's queues (`queues` in shared/system.ts), each message
 * delayed by its `DelaySeconds` on the service clock (so tests move the clock instead of waiting) and
 * handed to the queue's consumer as an SQS event of one record, as the event source mapping does on
 * AWS. A failed message comes back after the queue's visibility timeout, and after `maxReceiveCount`
 * receives goes to the queue's dead letters (kept, and logged). Messages are kept in a JSON file
 * (under .data/) when given one, so a restart loses none. The local scheduler's tick delivers what is due.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { clock } from '../../../shared/platform/clock.js';
import { MAX_QUEUE_DELAY_SECONDS, queues as systemQueues, type QueueDescription } from '../../../shared/system.js';
import { remember } from './bus.js';
import { writePrivateFile } from './private-files.js';

export interface QueuedMessage {
  id: string;
  queue: string;
  body: string;
  /** When it is next handed over (ISO, service clock). */
  visibleAt: string;
  sentAt: string;
  receives: number;
}

export class QueueInvalid extends Error {
  override name = 'InvalidParameterValue';
}
export class QueueNotFound extends Error {
  override name = 'AWS.SimpleQueueService.NonExistentQueue';
}

export interface LocalQueuesOptions {
  invoke(functionName: string, event: unknown): Promise<unknown>;
  /** Where messages are kept; omitted = in memory. */
  file?: string;
  queues?: readonly QueueDescription[];
  log?: (line: string) => void;
}

/** The queue a URL names: its last path segment (`http://host/000000000000/<name>`). */
export const queueNameOf = (url: string) => url.replace(/\/+$/, '').split('/').at(-1) ?? '';

export class LocalQueues {
  private messages: QueuedMessage[] = [];
  private readonly byName: Map<string, QueueDescription>;
  /** The most recent messages handed over successfully, and those given up (dead letters). */
  readonly delivered: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];

  constructor(private readonly options: LocalQueuesOptions) {
    this.byName = new Map((options.queues ?? Object.values(systemQueues)).map((queue) => [queue.name, queue]));
    if (options.file && existsSync(options.file)) this.messages = JSON.parse(readFileSync(options.file, 'utf8')) as QueuedMessage[];
  }

  /** The SendMessage API: the message becomes visible `delaySeconds` (0 to 900) from now on the service clock. */
  send(queueUrl: string, body: string, delaySeconds = 0): { MessageId: string; MD5OfMessageBody: string } {
    const queue = queueNameOf(queueUrl);
    if (!this.byName.has(queue)) throw new QueueNotFound(`The specified queue does not exist: ${queueUrl}`);
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_QUEUE_DELAY_SECONDS) {
      throw new QueueInvalid(`Value ${delaySeconds} for parameter DelaySeconds is invalid. Reason: must be between 0 and ${MAX_QUEUE_DELAY_SECONDS}.`);
    }
    const now = clock.now();
    const message: QueuedMessage = { id: randomUUID(), queue, body, sentAt: now.toISOString(), visibleAt: new Date(now.getTime() + delaySeconds * 1000).toISOString(), receives: 0 };
    this.messages.push(message);
    this.save();
    return { MessageId: message.id, MD5OfMessageBody: createHash('md5').update(body, 'utf8').digest('hex') };
  }

  /** The messages not yet handed over (or waiting to come back), soonest first. */
  list(queue?: string): QueuedMessage[] {
    return this.messages.filter((message) => !queue || message.queue === queue).sort((a, b) => a.visibleAt.localeCompare(b.visibleAt));
  }

  /** Hands every visible message to its queue's consumer, one invocation each (the scheduler's tick calls this). */
  async deliverDue(): Promise<void> {
    const now = clock.now();
    for (const message of this.list().filter((candidate) => candidate.visibleAt <= now.toISOString())) {
      const queue = this.byName.get(message.queue)!;
      message.receives += 1;
      try {
        await this.options.invoke(queue.consumer, { Records: [sqsRecord(message, queue)] });
        this.messages = this.messages.filter((candidate) => candidate !== message);
        remember(this.delivered, message);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (message.receives >= queue.maxReceiveCount) {
          this.messages = this.messages.filter((candidate) => candidate !== message);
          remember(this.deadLetters, message);
          this.options.log?.(`queue ${queue.name}: message ${message.id} dead-lettered after ${message.receives} receives: ${reason}`);
        } else {
          message.visibleAt = new Date(clock.now().getTime() + queue.visibilityTimeoutSeconds * 1000).toISOString();
          this.options.log?.(`queue ${queue.name}: message ${message.id} failed (${reason}); back in ${queue.visibilityTimeoutSeconds} s`);
        }
      }
      this.save();
    }
  }

  private save() {
    if (this.options.file) writePrivateFile(this.options.file, JSON.stringify(this.messages, null, 2));
  }
}

/** The record an SQS event source mapping hands over. */
const sqsRecord = (message: QueuedMessage, queue: QueueDescription) => ({
  messageId: message.id,
  receiptHandle: message.id,
  body: message.body,
  attributes: {
    ApproximateReceiveCount: String(message.receives),
    SentTimestamp: String(Date.parse(message.sentAt)),
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: String(clock.now().getTime()),
  },
  messageAttributes: {},
  md5OfBody: createHash('md5').update(message.body, 'utf8').digest('hex'),
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:local:000000000000:${queue.name}`,
  awsRegion: 'local',
});
