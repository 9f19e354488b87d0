/**
 * Throttles per phone contact method (issue 43 §4), GoAlert's: SMS 5 per 15 minutes and 11 per hour,
 * voice 3 per 15 minutes and 7 per hour, over sliding windows. Past them a page is held, never dropped,
 * and everything held on the method goes out as ONE combined message once the window allows
 * ("3 new incidents: …"), leaving out the incidents acknowledged or resolved meanwhile. E-mail is not
 * throttled (docs/decisions.md, "Issue 43: throttles").
 *
 * The table settles it, nothing is kept in a process:
 * - The method's ledger (`THROTTLE#<cmId>` / `LEDGER`): the instants of its sends of the last hour, a
 *   `version` every write conditions on (so of two pages racing for the last slot one wins, the other
 *   reads again), and, while pages are held, `flush_at` (when they go) and, while a flush sends,
 *   `flushing` (its id and lease).
 * - A page that may go takes its slot in the transaction that claims its delivery record
 *   (`delivery.ts`'s gate); one past the limit (or while pages are held, so that they stay in order)
 *   is written held instead: a `HELD#<eventId>#<recipientKey>` item, keyed by its delivery (a
 *   redelivery finds the record and holds nothing twice), with the ledger's update — and, the first
 *   one held, `flush_at` and a `person.messages_held` event, whose target (the escalation scheduler)
 *   makes one one-time schedule named by the method and `flush_at`, invoking person-notification.
 * - The flush (`flushHeld`) takes a slot and its lease on the ledger (conditional), sends one message
 *   for what is held and still wanted, writes a notification entry in each incident (same message id,
 *   one receipts' lookup item each), then removes exactly the held items it handled and clears
 *   `flush_at` on the condition that the ledger is as it read it — a page held meanwhile bumped the
 *   version, so the flush reads again and schedules the next flush for it: never lost, never twice.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../platform/zod.js';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, keys } from '../platform/db/keys.js';
import { batchGet, queryCollection, TransactionCancelled, transactWrite, updateExpression, type Item, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { outboxPut } from '../platform/events/outbox.js';
import { countMetric } from '../platform/observability/metrics.js';
import { channelFor, type ChannelType } from '../channels/index.js';
import { contactMethodsOf } from '../contacts/repository.js';
import { withMessage } from '../incidents/repository.js';
import type { Incident } from '../incidents/model.js';
import { replyCodeFor } from '../incidents/reply-codes.js';
import { usable, type PagedPerson, type PersonNotificationInput } from '../paging/notify-person.js';
import { DeliveryInProgress, type GateDecision } from './delivery.js';
import { recordNotifications } from './notified.js';
import { combinedSms, combinedVoice } from './texts.js';

const MINUTE = 60_000;

export interface ThrottleLimit {
  count: number;
  windowMs: number;
}

/** GoAlert's limits, per method type; e-mail has none. */
export const THROTTLES: Record<'sms' | 'voice', readonly ThrottleLimit[]> = {
  sms: [
    { count: 5, windowMs: 15 * MINUTE },
    { count: 11, windowMs: 60 * MINUTE },
  ],
  voice: [
    { count: 3, windowMs: 15 * MINUTE },
    { count: 7, windowMs: 60 * MINUTE },
  ],
};

/** Whether a method type is throttled. */
export const throttled = (type: ChannelType): type is 'sms' | 'voice' => type === 'sms' || type === 'voice';

/** The ledger keeps the sends of the longest window. */
const LEDGER_SPAN_MS = 60 * MINUTE;

/** A flush sends at most this many held pages in one message (the rest go in the next). */
export const MAX_HELD_PER_FLUSH = 25;

/** A `flush_at` this far past with pages still held means its flush was lost: the next page held schedules it again. */
const LOST_FLUSH_MS = 15 * MINUTE;

/**
 * The earliest instant (ms) at or after `now` when one more send keeps every sliding window within its
 * count: a window `(t - w, t]` holding `count` sends lets one more go once the oldest of its last `count`
 * sends leaves it.
 */
export function nextAllowed(sends: readonly string[], now: number, limits: readonly ThrottleLimit[]): number {
  const instants = sends.map((send) => Date.parse(send)).sort((a, b) => a - b);
  let next = now;
  for (const { count, windowMs } of limits) {
    const inWindow = instants.filter((instant) => instant > now - windowMs);
    if (inWindow.length >= count) next = Math.max(next, inWindow[inWindow.length - count]! + windowMs);
  }
  return next;
}

interface Ledger {
  exists: boolean;
  version: number;
  sends: string[];
  flush_at?: string;
  flushing?: { id: string; lease_until: string };
}

const ledgerOf = (item: Item | undefined, now: number): Ledger => ({
  exists: item !== undefined,
  version: Number(item?.version ?? 0),
  // Only the last hour's: the ledger stays small.
  sends: (Array.isArray(item?.sends) ? (item.sends as string[]) : []).filter((send) => Date.parse(send) > now - LEDGER_SPAN_MS),
  flush_at: typeof item?.flush_at === 'string' ? item.flush_at : undefined,
  flushing: item?.flushing && typeof item.flushing === 'object' ? (item.flushing as Ledger['flushing']) : undefined,
});

/** The ledger's write: `set` and `remove`, the version bumped, on the condition that it is still the one read. */
function ledgerWrite(contactMethodId: string, ledger: Ledger, set: Record<string, unknown>, remove: string[] = []): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.throttleLedger(contactMethodId),
      ...updateExpression({
        set: { type: 'throttle_ledger', contact_method_id: contactMethodId, ...set, version: ledger.version + 1 },
        remove,
        condition: ledger.exists
          ? { expression: '#version = :read', names: { '#version': 'version' }, values: { ':read': ledger.version } }
          : { expression: 'attribute_not_exists(#version)', names: { '#version': 'version' } },
      }),
    },
  };
}

/** A page held for a method: what its flush needs to tell it and to record it (a delayed rule's facts, but its rule). */
export interface HeldPage extends Omit<PersonNotificationInput, 'rule_id'> {
  contact_method_id: string;
  method_type: 'sms' | 'voice';
  /** The delivery it stands for, within the page's event: the recipient key (`rule:<ruleId>`). */
  recipient_key: string;
}

const heldEvent = (contactMethodId: string, person: { user_id: string; email: string }, flushAt: string, now: string) =>
  outboxPut('person.messages_held', { contact_method_id: contactMethodId, user_id: person.user_id, email: person.email, flush_at: flushAt }, now);

/**
 * The gate of one page to a phone method (`deliverAtLeastOnce`'s `gate`): reads the ledger, and answers
 * send (taking a slot) or hold (the held item, and the flush's scheduling if none is due).
 */
export function throttleGate(page: HeldPage): () => Promise<GateDecision> {
  return async () => {
    const now = clock.now().getTime();
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.throttleLedger(page.contact_method_id), ConsistentRead: true }));
    const ledger = ledgerOf(Item, now);
    const limits = THROTTLES[page.method_type];
    const next = nextAllowed(ledger.sends, now, limits);
    if (!ledger.flush_at && next <= now) {
      return { decision: 'send', items: [ledgerWrite(page.contact_method_id, ledger, { user_id: page.user_id, sends: [...ledger.sends, new Date(now).toISOString()] })] };
    }
    const nowIso = new Date(now).toISOString();
    const held: TransactItem = {
      Put: { TableName: tableName(), Item: { ...keys.heldPage(page.contact_method_id, page.event_id, page.recipient_key), type: 'held_page', ...page, held_at: nowIso }, ConditionExpression: itemAbsent },
    };
    const flushDue = ledger.flush_at !== undefined && Date.parse(ledger.flush_at) > now - LOST_FLUSH_MS;
    if (flushDue) return { decision: 'hold', items: [held, ledgerWrite(page.contact_method_id, ledger, {})] };
    // The first page held (or its flush lost): the flush at the instant the window allows.
    const flushAt = new Date(Math.max(next, now)).toISOString();
    return { decision: 'hold', items: [held, ledgerWrite(page.contact_method_id, ledger, { sends: ledger.sends, flush_at: flushAt }), heldEvent(page.contact_method_id, page, flushAt, nowIso)] };
  };
}

/**
 * The gate of a shift notice to a phone method (issue 45 §3): a notice takes a slot of the method's
 * window as a page does, when one is free and no pages are held; otherwise it is not sent on that method
 * (`hold` with nothing held: its delivery record says so, and no flush is asked for). Counted with the
 * pages, it never takes a method past GoAlert's limits; it is never held for a combined message, which
 * tells incidents.
 */
export function noticeGate(contactMethodId: string, methodType: 'sms' | 'voice', userId: string): () => Promise<GateDecision> {
  return async () => {
    const now = clock.now().getTime();
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.throttleLedger(contactMethodId), ConsistentRead: true }));
    const ledger = ledgerOf(Item, now);
    if (ledger.flush_at || nextAllowed(ledger.sends, now, THROTTLES[methodType]) > now) return { decision: 'hold', items: [] };
    return { decision: 'send', items: [ledgerWrite(contactMethodId, ledger, { user_id: userId, sends: [...ledger.sends, new Date(now).toISOString()] })] };
  };
}

/** What the `person-notification` worker is invoked with by a held pages' flush schedule (`paging/schedule-person.ts`). */
export const heldFlushInput = z.strictObject({
  held_for: z.string(),
  user_id: z.string(),
  email: z.string(),
  flush_at: z.string(),
});
export type HeldFlushInput = z.output<typeof heldFlushInput>;

const heldPageOf = (item: Item): HeldPage & { sk: string } => ({
  sk: String(item[attributes.sk]),
  contact_method_id: String(item.contact_method_id),
  method_type: item.method_type === 'voice' ? 'voice' : 'sms',
  event_id: String(item.event_id),
  recipient_key: String(item.recipient_key),
  incident_id: String(item.incident_id),
  step_order: Number(item.step_order),
  paged_at: String(item.paged_at),
  user_id: String(item.user_id),
  user_name: String(item.user_name),
  email: String(item.email),
});

/** The method's ledger and held pages (oldest first): one Query of its partition. */
async function readMethod(contactMethodId: string, now: number) {
  const items = await queryCollection(keys.throttlePartition(contactMethodId));
  const ledgerItem = items.find((item) => item[attributes.sk] === 'LEDGER');
  const held = items
    .filter((item) => item.type === 'held_page')
    .sort((a, b) => String(a.held_at).localeCompare(String(b.held_at)) || String(a[attributes.sk]).localeCompare(String(b[attributes.sk])))
    .map(heldPageOf);
  return { ledger: ledgerOf(ledgerItem, now), held };
}

/** Whether a held page is still wanted: its incident open, not acknowledged, not resolved since the page. */
const wanted = (incident: Incident | undefined, pagedAt: string) =>
  Boolean(incident && !incident.acknowledged && incident.status !== 'RESOLVED' && (incident.last_resolved_at ?? '') < pagedAt);

const deleteHeld = (contactMethodId: string, sk: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: { [attributes.pk]: keys.throttlePartition(contactMethodId), [attributes.sk]: sk } },
});

/** A transaction whose condition lost to a concurrent writer: `undefined` (read again); anything else throws. */
async function attempt<T>(items: TransactItem[], result: T): Promise<T | undefined> {
  try {
    await transactWrite(items);
    return result;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) return undefined;
    throw error;
  }
}

/**
 * Ends a flush (or a look that found nothing to send): removes the held pages `handled`, and clears
 * `flush_at` — or, pages still held (held meanwhile, or beyond one message), sets it to when the
 * window next allows, with its event. On the condition that the ledger is as read (and, after a send,
 * still this flush's): a page held meanwhile makes it read again.
 */
async function finish(input: HeldFlushInput, handled: Set<string>, flushId: string | undefined): Promise<'done' | 'taken_over'> {
  const contactMethodId = input.held_for;
  return retryOnConflict(
    async () => {
      const now = clock.now().getTime();
      const { ledger, held } = await readMethod(contactMethodId, now);
      if (flushId && ledger.flushing?.id !== flushId) return 'taken_over';
      const remaining = held.filter((page) => !handled.has(page.sk));
      const deletes = held.filter((page) => handled.has(page.sk)).map((page) => deleteHeld(contactMethodId, page.sk));
      if (remaining.length === 0) return attempt([...deletes, ledgerWrite(contactMethodId, ledger, { sends: ledger.sends }, ['flush_at', 'flushing'])], 'done' as const);
      // Never the instant just flushed (a schedule's name is the method's and the instant's).
      const limits = THROTTLES[remaining[0]!.method_type];
      const flushAt = new Date(Math.max(nextAllowed(ledger.sends, now, limits), now + 1000, Date.parse(input.flush_at) + 1000)).toISOString();
      return attempt(
        [...deletes, ledgerWrite(contactMethodId, ledger, { sends: ledger.sends, flush_at: flushAt }, ['flushing']), heldEvent(contactMethodId, input, flushAt, new Date(now).toISOString())],
        'done' as const,
      );
    },
    (attempts) => `Held pages of contact method ${contactMethodId}: kept changing; gave up after ${attempts} attempts`,
    { budgetMs: 10_000, backoff: true },
  );
}

export type FlushOutcome = 'sent' | 'nothing_wanted' | 'rescheduled' | 'stale' | 'taken_over';

/** What a flush sends: the held pages still wanted, their incidents, the method. */
interface FlushClaim {
  flushId: string;
  live: (HeldPage & { sk: string; incident: Incident })[];
  handled: Set<string>;
  method: { type: 'sms' | 'voice'; address: string };
  possibleDuplicate: boolean;
}

/**
 * A held pages' flush, at its schedule: one combined message for what is held on the method and still
 * wanted (see the module's comment). A redelivered or stale schedule (the ledger's `flush_at` moved on)
 * does nothing; a flush whose lease another invocation holds is retried later (`DeliveryInProgress`).
 * `leaseMs`: the flush's lease, the calling worker's timeout (as a delivery's, `AtLeastOnceOptions`).
 */
export async function flushHeld(input: HeldFlushInput, leaseMs: number): Promise<FlushOutcome> {
  const contactMethodId = input.held_for;
  const flushId = randomUUID();
  const claimed = await retryOnConflict<FlushClaim | Exclude<FlushOutcome, 'sent'>>(
    async () => {
      const now = clock.now().getTime();
      const { ledger, held } = await readMethod(contactMethodId, now);
      if (ledger.flush_at !== input.flush_at) return 'stale';
      const takeOver = ledger.flushing !== undefined;
      if (ledger.flushing && Date.parse(ledger.flushing.lease_until) > now) throw new DeliveryInProgress(`the held pages of ${contactMethodId}`, ledger.flushing.lease_until);
      const method = (await contactMethodsOf(input.user_id, input.email)).find((candidate) => candidate.id === contactMethodId);
      const batch = held.slice(0, MAX_HELD_PER_FLUSH);
      const incidents = new Map(
        (await batchGet([...new Set(batch.map((page) => page.incident_id))].map((id) => keys.incident(id)))).map((item) => {
          const incident = withMessage(item, undefined)!;
          return [incident.id, incident] as const;
        }),
      );
      const handled = new Set(batch.map((page) => page.sk));
      // A method no longer usable (deleted, disabled, STOP) is sent nothing, as a delayed rule's is not.
      const live = usable(method) && throttled(method.method_type) ? batch.flatMap((page) => (wanted(incidents.get(page.incident_id), page.paged_at) ? [{ ...page, incident: incidents.get(page.incident_id)! }] : [])) : [];
      if (live.length === 0) {
        await finish(input, handled, undefined);
        return 'nothing_wanted';
      }
      const limits = THROTTLES[method!.method_type as 'sms' | 'voice'];
      const next = nextAllowed(ledger.sends, now, limits);
      if (!takeOver && next > now) {
        // Early (the window moved: a clock ahead, a slot taken meanwhile): at the instant it allows.
        const flushAt = new Date(Math.max(next, Date.parse(input.flush_at) + 1000)).toISOString();
        return attempt([ledgerWrite(contactMethodId, ledger, { sends: ledger.sends, flush_at: flushAt }), heldEvent(contactMethodId, input, flushAt, new Date(now).toISOString())], 'rescheduled' as const);
      }
      // The slot (a take-over's was taken by the flush it takes over) and the lease, on the condition that the ledger is as read.
      const sends = takeOver ? ledger.sends : [...ledger.sends, new Date(now).toISOString()];
      const flushing = { id: flushId, lease_until: new Date(now + leaseMs).toISOString() };
      return attempt([ledgerWrite(contactMethodId, ledger, { sends, flushing })], {
        flushId,
        live,
        handled,
        method: { type: method!.method_type as 'sms' | 'voice', address: method!.address },
        possibleDuplicate: takeOver,
      });
    },
    (attempts) => `Held pages of contact method ${contactMethodId}: kept changing; gave up after ${attempts} attempts`,
    { budgetMs: 10_000, backoff: true },
  );
  if (typeof claimed === 'string') return claimed;
  if (claimed.possibleDuplicate) countMetric('EscalationPagePossibleDuplicate');
  const { live, method } = claimed;
  const channel = channelFor(method.type);
  const facts = [];
  for (const page of live) {
    facts.push({ code: await replyCodeFor(page.user_id, page.incident_id), severity: page.incident.severity, title: page.incident.title, monitorName: page.incident.monitor_name });
  }
  const person: PagedPerson = { user_id: input.user_id, name: live[0]!.user_name, email: input.email };
  const notified = live.map((page) => ({ incident: page.incident, step_order: page.step_order }));
  let messageId: string;
  try {
    ({ messageId } = await channel.send({
      to: method.address,
      text: method.type === 'sms' ? combinedSms(facts) : combinedVoice(facts),
      tags: { kind: 'escalation', combined: String(live.length) },
    }));
  } catch (error) {
    // The lease goes (the slot stays taken: the provider may have sent it), so the schedule's retry sends again.
    await transactWrite([
      {
        Update: {
          TableName: tableName(),
          Key: keys.throttleLedger(contactMethodId),
          UpdateExpression: 'REMOVE flushing',
          ConditionExpression: 'flushing.id = :id',
          ExpressionAttributeValues: { ':id': claimed.flushId },
        },
      },
    ]).catch(() => undefined);
    await recordNotifications(notified, person, channel, method.address, 'failed');
    countMetric('NotificationFailed', { kind: 'escalation' });
    throw error;
  }
  await recordNotifications(notified, person, channel, method.address, 'sent', messageId || undefined);
  countMetric('NotificationSent', { kind: 'escalation' });
  countMetric('CombinedMessageSent', { channel: method.type });
  const ended = await finish(input, claimed.handled, claimed.flushId);
  return ended === 'taken_over' ? 'taken_over' : 'sent';
}
