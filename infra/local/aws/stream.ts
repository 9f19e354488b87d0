/**
 * Reads the table's stream from DynamoDB Local's real Streams API and hands each batch to a
 * function (the outbox publisher), as a Lambda stream event source mapping does: in order per
 * shard, a failed batch retried from the last checkpoint — and, after `maxAttempts`, given up and
 * described in an on-failure record (`DDBStreamBatchInfo`, as Lambda sends to the on-failure queue),
 * kept in `deadLetters` and written under `.data/dead-letters/` for `npm run replay -- --local`.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  TrimmedDataAccessException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { leanClient } from '../../../shared/platform/aws-client.js';
import type { StreamFilter } from '../../../shared/system.js';
import { remember } from './bus.js';
import { writePrivateFile } from './private-files.js';

const matches = (record: _Record, filter: StreamFilter | undefined) =>
  !filter ||
  (filter.eventNames.includes(record.eventName as StreamFilter['eventNames'][number]) &&
    filter.itemTypes.includes(record.dynamodb?.NewImage?.type?.S ?? ''));

export interface StreamPollerOptions {
  tableName: string;
  /** Only matching changes are handed over (as a Lambda event filter does); the rest are skipped. */
  filter?: StreamFilter;
  handle(event: DynamoDBStreamEvent): Promise<unknown>;
  pollMs?: number;
  /** Where the last processed sequence number per shard is kept; omitted = in memory. */
  checkpointFile?: string;
  /** Attempts of one batch before it is given up (Lambda's mapping: 20 retries); unset: retried forever. */
  maxAttempts?: number;
  /** Where on-failure records are written as JSON files; omitted = in memory only. */
  deadLetterDir?: string;
  log?: (line: string) => void;
}

/** What Lambda sends to a stream mapping's on-failure destination: which records, not the records. */
export interface StreamBatchFailure {
  requestContext: { requestId: string; condition: 'RetryAttemptsExhausted'; approximateInvokeCount: number };
  timestamp: string;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string;
    approximateArrivalOfLastRecord: string;
    batchSize: number;
    streamArn: string;
  };
}

const toLambdaRecord = (record: _Record, streamArn: string): DynamoDBRecord =>
  ({
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...record.dynamodb,
      ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime
        ? Math.floor(record.dynamodb.ApproximateCreationDateTime.getTime() / 1000)
        : undefined,
    },
  }) as DynamoDBRecord;

/** How often a quiet stream's shards are listed again. */
const SHARD_LISTING_MS = 5_000;

export class StreamPoller {
  // Without the SDK's logger middleware (it copies every GetRecords answer for a logger that discards it).
  private readonly streams = leanClient(new DynamoDBStreamsClient({}));
  private streamArn: string | undefined;
  private shards: Shard[] = [];
  private readonly closedShards = new Set<string>();
  private readonly iterators = new Map<string, string>();
  private checkpoints: Record<string, string> = {};
  private running = false;
  private loop: Promise<void> | undefined;
  /** When the shards were last listed, and whether one has closed since (its children are then to be found). */
  private shardsListedAt = 0;
  private shardClosed = false;
  failures = 0;
  /** The most recent batches given up (at most HISTORY_LIMIT). */
  readonly deadLetters: StreamBatchFailure[] = [];

  constructor(private readonly options: StreamPollerOptions) {
    if (options.checkpointFile && existsSync(options.checkpointFile)) {
      this.checkpoints = JSON.parse(readFileSync(options.checkpointFile, 'utf8')) as Record<string, string>;
    }
  }

  /** Finds the table's stream; `pollOnce` reads it from then on (a test may drive it so, without the loop). */
  async open() {
    const dynamodb = new DynamoDBClient({});
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: this.options.tableName }));
    dynamodb.destroy();
    if (!Table?.LatestStreamArn) throw new Error(`Table ${this.options.tableName} has no stream`);
    this.streamArn = Table.LatestStreamArn;
  }

  /** Opens the stream and reads it in a loop until `stop`. */
  async start() {
    await this.open();
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const found = await this.pollOnce().catch((error: unknown) => {
          this.options.log?.(`stream: ${error instanceof Error ? error.message : String(error)}`);
          return 0;
        });
        if (found > 0) continue;
        // Idle: wait for a write in this process (wake), or at most pollMs for any other writer.
        const woken = await this.idle();
        // A quiet stream's shards are listed again now and then, between polls, never before a read
        // a write woke (DescribeStream takes about 10 ms on DynamoDB Local).
        if (!woken && this.running && Date.now() - this.shardsListedAt >= SHARD_LISTING_MS) {
          await this.serialized(() => this.refreshShards()).catch((error: unknown) => {
            this.options.log?.(`stream: ${error instanceof Error ? error.message : String(error)}`);
          });
        }
      }
    })();
  }

  private waking: (() => void) | undefined;
  private woken = false;

  /** Waits for a wake or for pollMs; answers whether a wake ended it. */
  private idle(): Promise<boolean> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waking = undefined;
        resolve(false);
      }, this.options.pollMs ?? 250);
      this.waking = () => {
        this.waking = undefined;
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  /** A write just happened: read the stream now instead of after the idle wait. */
  wake() {
    if (this.waking) this.waking();
    else this.woken = true;
  }

  async stop() {
    this.running = false;
    this.wake();
    await this.loop;
    this.streams.destroy();
  }

  private queue: Promise<unknown> = Promise.resolve();

  /**
   * Reads each open shard once; answers how many records were handled. Calls are serialized
   * (the loop and a test may both poll), so no batch is handled twice.
   */
  pollOnce(): Promise<number> {
    return this.serialized(() => this.readShards());
  }

  /** Runs `work` after every poll or listing already queued, and before any queued later. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async readShards(): Promise<number> {
    if (!this.streamArn) return 0;
    // A shard's children appear when it closes: only then, or with none known, does a read wait for
    // a listing (the loop lists a quiet stream's shards again between polls).
    if (this.shards.length === 0 || this.shardClosed) await this.refreshShards();
    let handled = 0;
    for (const shard of this.shards) {
      const shardId = shard.ShardId!;
      if (this.closedShards.has(shardId)) continue;
      // A child waits until its parent is read to the end, so records stay in order across a split.
      const parent = shard.ParentShardId;
      if (parent && !this.closedShards.has(parent) && this.shards.some((candidate) => candidate.ShardId === parent)) continue;
      handled += await this.readShard(shardId);
    }
    return handled;
  }

  private async refreshShards() {
    const listedAt = Date.now();
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId: start }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    // Parents before children, so records stay in order across a shard split.
    const order = (shard: Shard): number => {
      const parent = shards.find((candidate) => candidate.ShardId === shard.ParentShardId);
      return parent ? order(parent) + 1 : 0;
    };
    this.shards = shards.sort((a, b) => order(a) - order(b));
    // Only a listing that succeeded answers a closed shard's question.
    this.shardClosed = false;
    this.shardsListedAt = listedAt;
  }

  private async iterator(shardId: string): Promise<string | undefined> {
    const known = this.iterators.get(shardId);
    if (known) return known;
    const checkpoint = this.checkpoints[shardId];
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shardId,
        ShardIteratorType: checkpoint ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        SequenceNumber: checkpoint,
      }),
    );
    return ShardIterator;
  }

  private async readShard(shardId: string, again = false): Promise<number> {
    const iterator = await this.iterator(shardId);
    if (!iterator) {
      this.closedShards.add(shardId);
      this.shardClosed = true;
      return 0;
    }
    let result;
    try {
      result = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
    } catch (error) {
      this.iterators.delete(shardId);
      if (error instanceof ExpiredIteratorException) return 0;
      // DynamoDB Local, on a loaded machine, now and then refuses a live iterator as past
      // the shard's oldest record. Read again with a fresh one from the checkpoint, once; refused again,
      // from the oldest record there is (what Lambda's event source mapping does with trimmed data:
      // whatever was before it is gone, and handlers take records at least once).
      if (error instanceof TrimmedDataAccessException && !again) return this.readShard(shardId, true);
      if (error instanceof TrimmedDataAccessException) {
        delete this.checkpoints[shardId];
        this.options.log?.(`stream shard ${shardId}: records past the checkpoint were trimmed; reading from the oldest there is`);
        return 0;
      }
      throw error;
    }
    const records = result.Records ?? [];
    const wanted = records.filter((record) => matches(record, this.options.filter));
    if (records.length > 0) {
      try {
        if (wanted.length > 0) await this.options.handle({ Records: wanted.map((record) => toLambdaRecord(record, this.streamArn!)) });
      } catch (error) {
        this.failures += 1;
        const reason = error instanceof Error ? error.message : String(error);
        if (this.options.maxAttempts === undefined || this.failures < this.options.maxAttempts) {
          // Retry this batch from the checkpoint on the next poll.
          this.iterators.delete(shardId);
          this.options.log?.(`stream batch of ${records.length} failed (${reason}); will retry`);
          await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 200 * this.failures)));
          return 0;
        }
        this.giveUp(shardId, records);
        this.options.log?.(`stream batch of ${records.length} failed ${this.failures} times (${reason}); given up, see npm run replay`);
      }
      this.failures = 0;
      this.checkpoints[shardId] = records[records.length - 1]!.dynamodb!.SequenceNumber!;
      this.saveCheckpoints();
    }
    if (result.NextShardIterator) this.iterators.set(shardId, result.NextShardIterator);
    else {
      this.iterators.delete(shardId);
      this.closedShards.add(shardId);
      this.shardClosed = true;
    }
    return records.length;
  }

  private giveUp(shardId: string, records: _Record[]) {
    const arrival = (record: _Record) => (record.dynamodb?.ApproximateCreationDateTime ?? new Date()).toISOString();
    const failure: StreamBatchFailure = {
      requestContext: { requestId: randomUUID(), condition: 'RetryAttemptsExhausted', approximateInvokeCount: this.failures },
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: records[0]!.dynamodb!.SequenceNumber!,
        endSequenceNumber: records[records.length - 1]!.dynamodb!.SequenceNumber!,
        approximateArrivalOfFirstRecord: arrival(records[0]!),
        approximateArrivalOfLastRecord: arrival(records[records.length - 1]!),
        batchSize: records.length,
        streamArn: this.streamArn!,
      },
    };
    remember(this.deadLetters, failure);
    if (this.options.deadLetterDir) {
      writePrivateFile(join(this.options.deadLetterDir, `stream-${failure.timestamp.replace(/[:.]/g, '-')}.json`), JSON.stringify(failure, null, 2));
    }
  }

  private saveCheckpoints() {
    const file = this.options.checkpointFile;
    if (!file) return;
    writePrivateFile(file, JSON.stringify(this.checkpoints));
  }
}
