/**
 * The delivery worker's domain: incident events become messages to the webhooks they reach, each
 * sent at least once, in order per (webhook, incident) while the receiver keeps up.
 *
 * - A message is a record in the webhook's collection (`MSG#<message id>`: the body, its state, every
 *   attempt) and, until it succeeds or fails, a queue entry `QUEUE#<incident>#<occurred_at>#<rank>#<id>`.
 *   Both are written in one transaction on `attribute_not_exists`, so an event the bus delivers twice
 *   makes one message (its id is derived from the webhook and the event).
 * - Only the head of a (webhook, incident) queue is sent. Sending takes a lease on the message (a
 *   conditional update), so two invocations never send it at once; the outcome is recorded on the
 *   condition that the lease is still the sender's.
 * - A retry is a one-time EventBridge Scheduler schedule at the backoff's next time (the machinery the
 *   escalation steps use), invoking this worker with `{webhook_id, incident_id}`; the pair's later
 *   messages wait behind it. Success or failure of the head sends the next one at once.
 */
import { incidentLink } from '../platform/console-links.js';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { env } from '../system.js';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, monitorIndex } from '../platform/db/keys.js';
import { conditionFailure, prefixCondition, prefixValues, transactOutcome, transactWrite, TransactionCancelled, type TransactItem } from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import { sendLater } from '../platform/delayed.js';
import { onNewSandbox } from '../platform/sandbox.js';
import { eventDetails, type EventDetail, type EventType, type IncidentSnapshot } from '../platform/events/model.js';
import { getIncidentCollection } from '../incidents/repository.js';
import { incidentDetailView, urgencyOf, type IncidentDetailView } from '../incidents/model.js';
import { getMonitor } from '../monitors/repository.js';
import * as z from '../platform/zod.js';
import { messageBody, type IncidentEventType, type WebhookEvent, type WebhookEventType } from './payloads.js';
import { classify, failedTooLong, failingSince, nextAttemptAt, type Verdict } from './retry.js';
import { messageId, newMessageId, signatureHeaders, signingSecrets } from './signing.js';
import { deliver, RESPONSE_EXCERPT_BYTES, type DeliveryResult } from './target.js';
import { getWebhook, webhooksFor } from './repository.js';
import { reviewCreatorAccess, targetOptions } from './service.js';
import type { Webhook } from './model.js';

/** Messages (and their queue entries) are kept 30 days. */
export const MESSAGE_RETENTION_SECONDS = 30 * 24 * 60 * 60;
/** How long a sender holds a message: the 10 s request and the writes around it, with room to spare. */
const LEASE_MS = 60_000;
/** Messages of one pair sent by one invocation at most; the rest go on in a continuation (see `drain`). */
const DRAIN_LIMIT = 20;
/** How soon a continuation invokes the worker again. */
const CONTINUE_AFTER_MS = 1_000;
/**
 * A message's first attempt waits until it has been queued this long, so that events of one
 * incident published together (the bus hands them to invocations side by side, and a busy target
 * starts them late) are all queued, in order, before the first of them is sent.
 */
export const FIRST_SEND_HOLD_MS = 2_000;

/** Which bus events reach webhooks, as which webhook event. */
export const WEBHOOK_EVENT_OF = {
  'incident.created': 'incident.created',
  'incident.updated': 'incident.updated',
  'incident.acknowledged': 'incident.acknowledged',
  'incident.resolved': 'incident.resolved',
  'incident.note_added': 'incident.note_added',
  'incident.escalation_step': 'incident.escalated',
} as const satisfies Partial<Record<EventType, IncidentEventType>>;
export type WebhookSourceEvent = keyof typeof WEBHOOK_EVENT_OF;
export const WEBHOOK_SOURCE_EVENTS = Object.keys(WEBHOOK_EVENT_OF) as WebhookSourceEvent[];

/**
 * Within one instant (one transaction's events), the order a receiver gets them in: an incident
 * created and its first step paged at once arrive created first.
 */
const RANK: Record<IncidentEventType, number> = {
  'incident.created': 0,
  'incident.updated': 1,
  'incident.note_added': 2,
  'incident.acknowledged': 3,
  'incident.escalated': 4,
  'incident.resolved': 5,
};

export const attemptRecord = z.object({
  at: z.string(),
  status: z.nullable(z.number()),
  duration_ms: z.number(),
  error: z.nullable(z.string()),
  response: z.string(),
});
export type AttemptRecord = z.output<typeof attemptRecord>;

export const messageItem = z.object({
  message_id: z.string(),
  webhook_id: z.string(),
  incident_id: z.nullable(z.string()),
  event_type: z.string(),
  occurred_at: z.string(),
  queue_sk: z.nullable(z.string()),
  body: z.string(),
  state: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.array(attemptRecord),
  next_attempt_at: z.nullish(z.string()),
  lease: z.nullish(z.string()),
  lease_until: z.nullish(z.string()),
  created_at: z.string(),
});
export type Message = z.output<typeof messageItem>;

// ---------------------------------------------------------------------------------------------
// Test control: the request's limit (10 s), which a test shortens to see a timeout without waiting.

let timeoutMs: number | undefined;
/** Test control: webhook requests give up after `ms` (undefined: the 10 s limit). */
export function setDeliveryTimeout(ms: number | undefined) {
  timeoutMs = ms;
}

let drainLimit = DRAIN_LIMIT;
/** Test control: an invocation sends at most `n` messages of a pair (undefined: `DRAIN_LIMIT`). */
export function setDrainLimit(n: number | undefined) {
  drainLimit = n ?? DRAIN_LIMIT;
}

let holdMs = FIRST_SEND_HOLD_MS;
/** Test control: a first attempt waits `ms` after queueing (undefined: `FIRST_SEND_HOLD_MS`); a test that sends one event at a time need not wait. */
export function setFirstSendHold(ms: number | undefined) {
  holdMs = ms ?? FIRST_SEND_HOLD_MS;
}

onNewSandbox(() => {
  setDeliveryTimeout(undefined);
  setDrainLimit(undefined);
  setFirstSendHold(undefined);
});

// ---------------------------------------------------------------------------------------------
// Events in

/** The incident's page in the console (issue 44): what a person opens from a Slack or Teams message. */
const incidentUrl = incidentLink;

/** The incident as `GET /api/incidents/:id` returns it, in the state the event describes. */
async function incidentAsOf(snapshot: IncidentSnapshot): Promise<IncidentDetailView> {
  const collection = await getIncidentCollection(snapshot.id);
  const state = {
    title: snapshot.title,
    status: snapshot.status,
    severity: snapshot.severity,
    acknowledged: snapshot.acknowledged,
    resolved_at: snapshot.resolved_at,
    monitor_name: snapshot.monitor_name,
  };
  if (!collection) {
    return { ...state, urgency: urgencyOf(snapshot), in_maintenance: false, id: snapshot.id, monitor_id: snapshot.monitor_id, started_at: snapshot.started_at, created_at: snapshot.started_at, escalation_policy_id: snapshot.escalation_policy_id };
  }
  return { ...incidentDetailView(collection.incident, collection.acknowledgement, collection.escalationSteps), ...state };
}

/** The webhook event of a bus event. */
function webhookEvent(type: WebhookSourceEvent, detail: EventDetail<WebhookSourceEvent>, incident: IncidentDetailView): WebhookEvent {
  const timestamp = detail.occurred_at;
  switch (type) {
    case 'incident.created':
      return { type, timestamp, data: { incident } };
    case 'incident.updated': {
      const { changes, note } = detail as EventDetail<'incident.updated'>;
      return { type, timestamp, data: { incident, changes, ...(note ? { note } : {}) } };
    }
    case 'incident.acknowledged':
      return { type, timestamp, data: { incident, acknowledgement: (detail as EventDetail<'incident.acknowledged'>).acknowledgement } };
    case 'incident.resolved': {
      const { previous_status, note } = detail as EventDetail<'incident.resolved'>;
      return { type, timestamp, data: { incident, previous_status, ...(note ? { note } : {}) } };
    }
    case 'incident.note_added':
      return { type, timestamp, data: { incident, note: (detail as EventDetail<'incident.note_added'>).note } };
    case 'incident.escalation_step':
      return { type: 'incident.escalated', timestamp, data: { incident, step: (detail as EventDetail<'incident.escalation_step'>).step } };
  }
}

const messagePut = (message: Message): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...keys.webhookMessage(message.webhook_id, message.message_id),
      ...monitorIndex.delivery(message.webhook_id, message.created_at, message.message_id),
      type: 'webhook_message',
      ...message,
      [attributes.ttl]: Math.floor(Date.parse(message.created_at) / 1000) + MESSAGE_RETENTION_SECONDS,
    },
    ConditionExpression: itemAbsent,
  },
});

export interface EnqueueResult {
  webhooks: number;
  queued: number;
  duplicates: number;
  sent: number;
}

/**
 * Turns one incident event into a message per enabled webhook that covers the incident's monitor
 * and asked for the event's type, then sends what is at the head of each (webhook, incident) queue.
 */
export async function enqueueEvent(type: WebhookSourceEvent, rawDetail: unknown, context: SendContext): Promise<EnqueueResult> {
  const detail = eventDetails[type].parse(rawDetail) as EventDetail<WebhookSourceEvent>;
  const eventType = WEBHOOK_EVENT_OF[type];
  const snapshot = detail.incident;
  const monitor = await getMonitor(snapshot.monitor_id);
  const reached = await webhooksFor({ id: snapshot.monitor_id, owner_id: snapshot.owner_id, team_id: monitor?.team_id ?? null });
  const unique = [...new Map(reached.map((webhook) => [webhook.id, webhook])).values()];
  // A webhook gets what happened while it existed: an event the bus hands over late (a backlog, a
  // retry, a replay) is not sent to a webhook created after it occurred.
  const targets = unique.filter((webhook) => webhook.status === 'enabled' && webhook.events.includes(eventType) && webhook.created_at <= detail.occurred_at);
  const result: EnqueueResult = { webhooks: targets.length, queued: 0, duplicates: 0, sent: 0 };
  if (targets.length === 0) return result;

  const event = webhookEvent(type, detail, await incidentAsOf(snapshot));
  await Promise.all(
    targets.map(async (webhook) => {
      const id = messageId(webhook.id, detail.event_id);
      const queueKey = keys.webhookQueue(webhook.id, snapshot.id, `${detail.occurred_at}#${RANK[eventType]}`, id);
      const message: Message = {
        message_id: id,
        webhook_id: webhook.id,
        incident_id: snapshot.id,
        event_type: eventType,
        occurred_at: detail.occurred_at,
        queue_sk: queueKey[attributes.sk]!,
        body: messageBody(webhook.format, event, { incident_url: incidentUrl(snapshot.id) }),
        state: 'pending',
        attempts: [],
        created_at: clock.nowIso(),
      };
      const { outcome } = await transactOutcome([
        ['duplicate', messagePut(message)],
        [
          'duplicate',
          {
            Put: {
              TableName: tableName(),
              Item: { ...queueKey, type: 'webhook_queue_entry', message_id: id, [attributes.ttl]: Math.floor(clock.now().getTime() / 1000) + MESSAGE_RETENTION_SECONDS },
              ConditionExpression: itemAbsent,
            },
          },
        ],
      ]);
      if (outcome === 'ok') result.queued += 1;
      else result.duplicates += 1;
      // A duplicate still drains: the first delivery of the event may have stopped before sending.
      result.sent += await drain(webhook.id, snapshot.id, context);
    }),
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// Sending

export interface SendContext {
  /** This worker's own ARN: what a retry's schedule invokes. */
  selfArn: string;
  /** The invocation's remaining time; a drain stops while there is time for one more request. */
  remainingMs?: () => number;
}

export const retryInput = z.strictObject({ webhook_id: z.string(), incident_id: z.string() });
export type RetryInput = z.output<typeof retryInput>;

async function getMessage(webhookId: string, id: string): Promise<Message | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhookMessage(webhookId, id), ConsistentRead: true }));
  return Item ? messageItem.parse(Item) : undefined;
}

/** The oldest queued message of the pair (its queue entry), if any. */
async function queueHead(webhookId: string, incidentId: string): Promise<{ sk: string; message_id: string } | undefined> {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: `#pk = :pk AND ${prefixCondition('#sk', ':prefix')}`,
      ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk },
      ExpressionAttributeValues: { ':pk': keys.webhookPartition(webhookId), ...prefixValues(':prefix', keys.webhookQueuePrefix(incidentId)) },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  const head = Items?.[0];
  return head ? { sk: String(head[attributes.sk]), message_id: String(head.message_id) } : undefined;
}

/** Takes the message for one attempt: pending, not held by another sender, not waiting for its retry time. */
async function lease(message: Message, now: Date): Promise<string | undefined> {
  const token = randomUUID();
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookMessage(message.webhook_id, message.message_id),
        UpdateExpression: 'SET lease = :lease, lease_until = :until',
        ConditionExpression: '#state = :pending AND (attribute_not_exists(lease_until) OR lease_until < :now) AND size(attempts) = :count',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':lease': token,
          ':until': new Date(now.getTime() + LEASE_MS).toISOString(),
          ':pending': 'pending',
          ':now': now.toISOString(),
          ':count': message.attempts.length,
        },
      }),
    );
    return token;
  } catch (error) {
    if (conditionFailure(error)) return undefined;
    throw error;
  }
}

/** One request of the message to the webhook, signed with every secret that signs now. */
export async function attempt(webhook: Webhook, message: Message): Promise<DeliveryResult> {
  const headers = signatureHeaders({ id: message.message_id, body: message.body, secrets: signingSecrets({ secret: webhook.secret, previous: webhook.previous_secret }, clock.now()) });
  return deliver(webhook.url, headers, message.body, { ...targetOptions(), ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
}

export const attemptOf = (result: DeliveryResult, at: Date): AttemptRecord => ({
  at: at.toISOString(),
  status: result.status ?? null,
  duration_ms: result.duration_ms,
  error: result.error ?? null,
  response: result.response_excerpt.slice(0, RESPONSE_EXCERPT_BYTES),
});

/** What an attempt leads to: the message's next state, and when the next attempt is due (a retry). */
function outcomeOf(verdict: Verdict, attempts: number, at: Date, result: DeliveryResult): { state: Message['state']; next?: Date } {
  if (verdict === 'success') return { state: 'succeeded' };
  if (verdict !== 'retry') return { state: 'failed' };
  const next = nextAttemptAt({ attempts, at, result });
  return next ? { state: 'pending', next } : { state: 'failed' };
}

/** Records the attempt on the message (still leased by this sender), ending its queue entry when the message is done. */
async function recordAttempt(message: Message, token: string, record: AttemptRecord, state: Message['state'], next?: Date) {
  const done = state !== 'pending';
  const update: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: keys.webhookMessage(message.webhook_id, message.message_id),
      UpdateExpression: `SET attempts = list_append(attempts, :attempt), #state = :state${next ? ', next_attempt_at = :next' : ''} REMOVE lease, lease_until${next ? '' : ', next_attempt_at'}`,
      ConditionExpression: 'lease = :lease',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':attempt': [record], ':state': state, ':lease': token, ...(next ? { ':next': next.toISOString() } : {}) },
    },
  };
  const actions: (readonly ['lost', TransactItem])[] = [['lost', update]];
  if (done && message.queue_sk) actions.push(['lost', { Delete: { TableName: tableName(), Key: { [attributes.pk]: keys.webhookPartition(message.webhook_id), [attributes.sk]: message.queue_sk } } }]);
  return (await transactOutcome(actions)).outcome === 'ok';
}

/** Ends a queued message without sending it (its webhook was disabled or deleted). */
async function dropMessage(message: Message, reason: string) {
  const token = await lease(message, clock.now());
  if (!token) return;
  await recordAttempt(message, token, { at: clock.nowIso(), status: null, duration_ms: 0, error: reason, response: '' }, 'failed');
}

/** The webhook's failing streak after an attempt, disabling it on a 410 or after 3 days of failures. */
export async function recordOnWebhook(webhook: Webhook, verdict: Verdict, at: Date) {
  const since = failingSince(webhook.failing_since, verdict, at);
  const disable = verdict === 'disable' ? 'The receiver answered 410 Gone' : failedTooLong(since, at) ? 'Every delivery failed for 3 days' : undefined;
  if (since === webhook.failing_since && !disable) return;
  const sets = [
    // (Stored null until a streak starts, so not `if_not_exists`; an attempt that finds the streak going writes nothing.)
    ...(since !== null && since !== webhook.failing_since ? ['failing_since = :since'] : []),
    ...(disable ? ['#status = :disabled', 'disabled_reason = :reason'] : []),
  ];
  const update: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: keys.webhook(webhook.id),
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', since === null ? 'REMOVE failing_since' : ''].filter(Boolean).join(' '),
      ConditionExpression: disable ? `${itemPresent} AND #status = :enabled` : itemPresent,
      ExpressionAttributeNames: disable ? { '#status': 'status' } : undefined,
      ExpressionAttributeValues:
        since !== null || disable
          ? { ...(since !== null && since !== webhook.failing_since ? { ':since': since } : {}), ...(disable ? { ':disabled': 'disabled', ':enabled': 'enabled', ':reason': disable } : {}) }
          : undefined,
    },
  };
  // Disabling tells the owner, in the same transaction (the notifier e-mails their account's address).
  const disabled = disable
    ? [outboxPut('webhook.disabled', { webhook: { id: webhook.id, url: webhook.url, description: webhook.description, owner_id: webhook.owner_id }, reason: disable }, at.toISOString())]
    : [];
  try {
    await transactWrite([update, ...disabled]);
  } catch (error) {
    // Deleted meanwhile, or disabled by another attempt: nothing to record.
    if (!(error instanceof TransactionCancelled)) throw error;
  }
}

/**
 * Invokes this worker again for the pair at `at` (issue 46 §5, `sendLater`): through the retry queue,
 * to the second, when it is due within 15 minutes (a 5 s retry, a continuation; a time already past
 * goes at once), else a one-time schedule. The schedule is named after the message it goes on from:
 * with its attempt for a retry (`whk-<message>-<attempt>`), `c` for a continuation (`whk-<message>-c`),
 * so that a repeat is a conflict, ignored. A queue message sent twice is two invocations, which the
 * message's lease makes one attempt.
 */
async function schedulePair(input: RetryInput, messageId: string, suffix: string, at: Date, context: SendContext) {
  await sendLater({
    queueUrlEnv: env.webhookRetryQueueUrl,
    schedule: { name: `whk-${messageId.replace(/^msg_/, '')}-${suffix}`, target: context.selfArn, input, deadLetterArn: process.env[env.webhookRetryDlqArn] },
    at,
    now: clock.now(),
  });
}

/**
 * Sends the pair's queued messages in order, one at a time, until the queue is empty, its head
 * waits for a retry (its schedule goes on), or another sender holds it (that sender goes on).
 * An invocation that stops with messages still queued, having sent its `DRAIN_LIMIT` or running
 * out of time, schedules a continuation, so nothing waits for an event that may never come.
 * Answers how many messages were sent (attempted).
 */
export async function drain(webhookId: string, incidentId: string, context: SendContext): Promise<number> {
  let sent = 0;
  let held = false;
  let recheck = 0;
  while (sent < drainLimit) {
    if (context.remainingMs && context.remainingMs() < 15_000) break;
    const head = await queueHead(webhookId, incidentId);
    if (!head) return sent;
    const [message, webhook] = await Promise.all([getMessage(webhookId, head.message_id), getWebhook(webhookId)]);
    if (!message) return sent;
    if (!webhook || webhook.status !== 'enabled') {
      await dropMessage(message, webhook ? 'Webhook disabled' : 'Webhook deleted');
      continue;
    }
    // Only while its creator may still read what it sends (settled by the database now, before each message).
    const access = await reviewCreatorAccess(webhook);
    if (access !== 'may_read') {
      // Disabled on the condition that they still cannot; otherwise something changed meanwhile: read it all again.
      if (access === 'changed' && ++recheck > 3) return sent;
      continue;
    }
    const now = clock.now();
    if (message.next_attempt_at && Date.parse(message.next_attempt_at) > now.getTime()) return sent;
    const age = now.getTime() - Date.parse(message.created_at);
    if (!held && message.attempts.length === 0 && age < holdMs) {
      // Once per drain (real time: a frozen service clock must not hold it forever), then the head again.
      held = true;
      await new Promise((resolve) => setTimeout(resolve, holdMs - Math.max(0, age)));
      continue;
    }
    const token = await lease(message, now);
    if (!token) return sent;
    const result = await attempt(webhook, message);
    const verdict = classify(result);
    const outcome = outcomeOf(verdict, message.attempts.length + 1, now, result);
    sent += 1;
    if (!(await recordAttempt(message, token, attemptOf(result, now), outcome.state, outcome.next))) return sent;
    await recordOnWebhook(webhook, verdict, now);
    if (outcome.next) {
      await schedulePair({ webhook_id: webhookId, incident_id: incidentId }, message.message_id, String(message.attempts.length + 1), outcome.next, context);
      return sent;
    }
  }
  // Stopped with time or the limit spent: whatever is still queued goes on in a new invocation.
  const rest = await queueHead(webhookId, incidentId);
  if (rest) await schedulePair({ webhook_id: webhookId, incident_id: incidentId }, rest.message_id, 'c', new Date(clock.now().getTime() + CONTINUE_AFTER_MS), context);
  return sent;
}

/** A message sent now, outside any queue (a `ping`), recorded with its one attempt: answers the record. */
export async function sendNow(webhook: Webhook, type: WebhookEventType, event: WebhookEvent): Promise<Message> {
  const now = clock.now();
  const message: Message = {
    message_id: newMessageId(),
    webhook_id: webhook.id,
    incident_id: null,
    event_type: type,
    occurred_at: now.toISOString(),
    queue_sk: null,
    body: messageBody(webhook.format, event),
    state: 'pending',
    attempts: [],
    created_at: now.toISOString(),
  };
  const result = await attempt(webhook, message);
  const record = attemptOf(result, now);
  const verdict = classify(result);
  const sent: Message = { ...message, state: verdict === 'success' ? 'succeeded' : 'failed', attempts: [record] };
  await transactOutcome([['conflict', messagePut(sent)]]);
  await recordOnWebhook(webhook, verdict, now);
  return sent;
}

export { getMessage, type DeliveryResult };
