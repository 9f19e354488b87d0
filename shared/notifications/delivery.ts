/**
 * Sends a message through a channel (`../channels/`: e-mail, SMS, voice) once per (event, recipient),
 * with one of two guarantees:
 * - `deliverOnce` (subscribers, invitees, confirmations): at most once. A conditional write of a
 *   delivery record comes first; if sending fails the record is removed so a retry sends again. A
 *   crash between the record and the send loses that e-mail.
 * - `deliverAtLeastOnce` (escalation pages): the record is written `pending` with a lease (the
 *   calling worker's timeout), the e-mail is sent, the record is marked `sent`. A record left pending past
 *   its lease (the invocation died) or marked failed is taken over by the event's retry, which sends
 *   again: a page is never lost, and a duplicate is possible only when the first send's fate was
 *   unknown (a crash after the provider accepted it, an ambiguous answer); those are counted.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, keys } from '../platform/db/keys.js';
import { backoff, conditionFailure, TransactionCancelled, transactWrite, updateExpression, type Item, type TransactItem } from '../platform/db/ops.js';
import { countMetric } from '../platform/observability/metrics.js';
import type { Channel, OutgoingMessage } from '../channels/model.js';

/**
 * Whom a delivery record is for, within its event: the e-mail address for `email` (as before channels
 * existed, so records in flight still match), `<type>:<address>` for the others. A person's
 * rule-driven message names its rule instead (`rule:<ruleId>`, given as `recipientKey`).
 */
export const recipientKeyOf = (channel: Channel, message: OutgoingMessage) => (channel.type === 'email' ? message.to : `${channel.type}:${message.to}`);

/** What a delivery was: the provider's message id when this call sent it. */
export interface DeliveryOptions {
  /** The delivery record's recipient key (default `recipientKeyOf`). */
  recipientKey?: string;
  /** Told the provider's message id once the message went out (not on a duplicate): for the timeline's notification entry. */
  onSent?: (messageId: string) => Promise<void> | void;
}

const keyOf = (item: Record<string, unknown> | undefined) => ({ [attributes.pk]: item?.[attributes.pk], [attributes.sk]: item?.[attributes.sk] });

/** Delivery records outlive any redelivery of the event. */
const DELIVERY_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/**
 * `records` are written with the delivery record, in one transaction (the acknowledge link an
 * escalation e-mail carries): a duplicate writes none, and a failed send removes them again.
 */
export async function deliverOnce(
  eventId: string,
  channel: Channel,
  email: OutgoingMessage,
  records: TransactItem[] = [],
  options: DeliveryOptions = {},
): Promise<'sent' | 'duplicate'> {
  const key = keys.delivery(eventId, options.recipientKey ?? recipientKeyOf(channel, email));
  const now = clock.now();
  const delivery = {
    TableName: tableName(),
    Item: {
      ...key,
      type: 'delivery',
      recipient: email.to,
      ...(channel.type === 'email' ? { subject: email.subject } : { channel: channel.type }),
      sent_at: now.toISOString(),
      [attributes.ttl]: Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS,
    },
    ConditionExpression: itemAbsent,
  };
  try {
    if (records.length === 0) await db().send(new PutCommand(delivery));
    else await transactWrite([{ Put: delivery }, ...records]);
  } catch (error) {
    if (conditionFailure(error) || (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed')) return 'duplicate';
    throw error;
  }
  let messageId: string;
  try {
    ({ messageId } = await channel.send(email));
  } catch (error) {
    // The delivery record goes (so a retry sends), with what was written beside it, at once.
    const doomed = [key, ...records.flatMap((record) => (record.Put ? [keyOf(record.Put.Item)] : []))];
    try {
      if (doomed.length === 1) await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
      else await transactWrite(doomed.map((Key) => ({ Delete: { TableName: tableName(), Key } })));
    } catch (cleanup) {
      throw new AggregateError([error, cleanup], `Sending to ${email.to} failed, and so did removing its delivery record: a retry will not send it`);
    }
    throw error;
  }
  await options.onSent?.(messageId);
  return 'sent';
}

/** A retry waiting for another invocation's pending delivery stops this long before its own timeout. */
const WAIT_MARGIN_MS = 30_000;

/** The state of an at-least-once delivery record (a record without one is an at-most-once delivery: sent). */
type DeliveryState = 'pending' | 'sent' | 'failed' | 'held';

/**
 * Another invocation holds this delivery, pending, and its lease outlives what this invocation may
 * wait: thrown so that the event is retried later (by then the lease has passed).
 */
export class DeliveryInProgress extends Error {
  constructor(recipient: string, leaseUntil: string) {
    super(`The delivery to ${recipient} is pending in another invocation until ${leaseUntil}; retry after that`);
    this.name = 'DeliveryInProgress';
  }
}

/**
 * Whether the provider (SES, End User Messaging) may have accepted the message although the call failed: anything but its own answer
 * refusing it (a 4xx: rejected, throttled, not verified) may have sent it (a timeout, a connection
 * reset, a 5xx, an error of our own).
 */
export function mayHaveSent(error: unknown): boolean {
  const metadata = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  const status = metadata?.httpStatusCode;
  return !(typeof status === 'number' && status >= 400 && status < 500);
}

/**
 * What a throttled channel's gate (`throttle.ts`) answers for a first claim: send now (its items, taking
 * a slot of the method's window, written with the delivery record), or hold the page (its items: the
 * held page and the ledger's update; the delivery record is written `held`, its own records are not).
 * The items' conditions are the gate's optimistic read: a failed one reads again.
 */
export type GateDecision = { decision: 'send' | 'hold'; items: TransactItem[] };

export interface AtLeastOnceOptions extends DeliveryOptions {
  /**
   * How long a pending delivery belongs to the invocation that wrote it: the calling worker's timeout
   * (shared/system.ts). Past it, Lambda has ended that invocation, so whatever it did not mark sent is
   * taken over and sent again.
   */
  leaseMs: number;
  /** The invocation's remaining time (Lambda's context); without it a held delivery is not waited for. */
  remainingMs?: () => number;
  /** A throttle (issue 43 §4): asked at the first claim only (a take-over of a page once claimed takes no new slot). */
  gate?: () => Promise<GateDecision>;
}

/** `held`: past the method's throttle, the page waits for its combined message (`throttle.ts`). */
export type AtLeastOnceOutcome = 'sent' | 'duplicate' | 'resent' | 'held';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends an escalation page at least once per (event, recipient). Answers `resent` when it took over
 * a delivery whose first send may have gone out (a possible duplicate: counted and logged), `duplicate`
 * when the page was sent already.
 */
export async function deliverAtLeastOnce(
  eventId: string,
  channel: Channel,
  email: OutgoingMessage,
  records: TransactItem[] = [],
  options: AtLeastOnceOptions,
): Promise<AtLeastOnceOutcome> {
  const key = keys.delivery(eventId, options.recipientKey ?? recipientKeyOf(channel, email));
  const attempt = randomUUID();
  let possibleDuplicate = false;
  for (let wait = 100, races = 0; ; wait = Math.min(5_000, wait * 2)) {
    const claimed = await claim(key, channel, email, attempt, records, options.leaseMs, options.gate);
    if (claimed.outcome === 'claimed') {
      possibleDuplicate = claimed.possibleDuplicate;
      break;
    }
    if (claimed.outcome === 'throttled') return 'held';
    if (claimed.outcome === 'sent') return 'duplicate';
    if (claimed.outcome === 'raced') {
      // (Of pages racing for one method's last slot, the losers read its ledger again.)
      if (++races > 1) await backoff(Math.min(races, 6));
      continue;
    }
    // Held by another invocation: wait for it to finish, or for its lease to pass, while this invocation may.
    if ((options.remainingMs?.() ?? 0) - wait < WAIT_MARGIN_MS) throw new DeliveryInProgress(email.to, claimed.leaseUntil);
    await sleep(wait);
  }
  if (possibleDuplicate) countMetric('EscalationPagePossibleDuplicate');
  let messageId: string;
  try {
    ({ messageId } = await channel.send(email));
  } catch (error) {
    // Refused by the provider: nothing went out, so the record and its links go and the retry starts afresh.
    // Of unknown fate: marked failed (the links kept: the e-mail may be out), the retry takes it over.
    // If even that write fails, the record stays pending and is taken over once its lease has passed.
    const release = mayHaveSent(error) ? settle(key, attempt, 'failed') : forget(key, attempt, records);
    await release.catch((cleanup) => {
      throw new AggregateError([error, cleanup], `Sending to ${email.to} failed, and so did releasing its delivery record: a retry sends it once its lease has passed`);
    });
    throw error;
  }
  // Sent: marking it is best effort (a record left pending is sent again after its lease: a counted duplicate, never a loss).
  await settle(key, attempt, 'sent').catch(() => undefined);
  await options.onSent?.(messageId);
  return possibleDuplicate ? 'resent' : 'sent';
}

type Claim =
  | { outcome: 'claimed'; possibleDuplicate: boolean }
  /** Written held past the method's throttle: the throttle's flush sends it. */
  | { outcome: 'throttled' }
  | { outcome: 'sent' }
  | { outcome: 'held'; leaseUntil: string }
  /** The record changed between the write and its answer (another attempt took it over, or released it): read again. */
  | { outcome: 'raced' };

/**
 * Writes the delivery `pending` for this attempt (with `records`, in one transaction): when there is
 * none yet, or taking over one that failed or whose lease has passed, on the condition that it is
 * still the one read (so of two retries only one takes it over).
 */
async function claim(key: Record<string, string>, channel: Channel, email: OutgoingMessage, attempt: string, records: TransactItem[], leaseMs: number, gate?: () => Promise<GateDecision>): Promise<Claim> {
  const now = clock.now();
  const item = (previous?: Item) => ({
    ...key,
    type: 'delivery',
    recipient: email.to,
    ...(channel.type === 'email' ? { subject: email.subject } : { channel: channel.type }),
    state: 'pending' satisfies DeliveryState,
    attempt,
    attempts: Number(previous?.attempts ?? 0) + 1,
    created_at: String(previous?.created_at ?? now.toISOString()),
    lease_until: new Date(now.getTime() + leaseMs).toISOString(),
    [attributes.ttl]: Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS,
  });
  const write = async (Item: Item, condition: { ConditionExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }, extra: TransactItem[] = records) => {
    const put = { TableName: tableName(), Item, ...condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
    try {
      if (extra.length === 0) await db().send(new PutCommand(put));
      else await transactWrite([{ Put: put }, ...extra]);
      return { ok: true as const };
    } catch (error) {
      const single = conditionFailure(error);
      if (single) return { ok: false as const, current: single.item };
      if (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed') return { ok: false as const, current: error.reasons[0].item };
      // Another condition of the transaction (the gate's: its ledger changed since it was read): read again.
      if (error instanceof TransactionCancelled && error.reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) return { ok: false as const, raced: true };
      throw error;
    }
  };
  // A first claim asks the gate (a throttled channel) whether this page may go now: a held page's
  // record says `held` (a redelivery finds it: a duplicate), and its message waits for the flush.
  const gated = gate ? await gate() : undefined;
  const first =
    gated?.decision === 'hold'
      ? await write({ ...item(), state: 'held' satisfies DeliveryState, held_at: now.toISOString() }, { ConditionExpression: itemAbsent }, gated.items)
      : await write(item(), { ConditionExpression: itemAbsent }, [...records, ...(gated?.items ?? [])]);
  if (first.ok) return gated?.decision === 'hold' ? { outcome: 'throttled' } : { outcome: 'claimed', possibleDuplicate: false };
  if ('raced' in first) return { outcome: 'raced' };
  const current = first.current;
  if (!current) return { outcome: 'raced' };
  const state = current.state as DeliveryState | undefined;
  if (state === undefined || state === 'sent' || state === 'held') return { outcome: 'sent' };
  const leaseUntil = String(current.lease_until);
  if (state === 'pending' && Date.parse(leaseUntil) > now.getTime()) return { outcome: 'held', leaseUntil };
  // Failed (a send of unknown fate: a refused one leaves no record) or pending past its lease: the
  // first send may have gone out, so this one is a possible duplicate.
  const taken = await write(
    { ...item(current), possible_duplicates: Number(current.possible_duplicates ?? 0) + 1 },
    { ConditionExpression: '#attempt = :attempt', ExpressionAttributeNames: { '#attempt': 'attempt' }, ExpressionAttributeValues: { ':attempt': current.attempt } },
  );
  return taken.ok ? { outcome: 'claimed', possibleDuplicate: true } : { outcome: 'raced' };
}

/** Deletes this attempt's delivery record (on the condition that it is still this attempt's) and the records written with it. */
async function forget(key: Record<string, string>, attempt: string, records: TransactItem[]) {
  await transactWrite([
    { Delete: { TableName: tableName(), Key: key, ConditionExpression: '#attempt = :attempt', ExpressionAttributeNames: { '#attempt': 'attempt' }, ExpressionAttributeValues: { ':attempt': attempt } } },
    ...records.flatMap((record) => (record.Put ? [{ Delete: { TableName: tableName(), Key: keyOf(record.Put.Item) } }] : [])),
  ]);
}

/** Marks this attempt's delivery sent or failed, on the condition that no other attempt took it over. */
async function settle(key: Record<string, string>, attempt: string, state: Exclude<DeliveryState, 'pending'>) {
  const now = clock.nowIso();
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      ...updateExpression({
        set: { state, ...(state === 'sent' ? { sent_at: now } : { failed_at: now }) },
        remove: ['lease_until'],
        condition: { expression: '#attempt = :attempt', names: { '#attempt': 'attempt' }, values: { ':attempt': attempt } },
      }),
    }),
  );
}
