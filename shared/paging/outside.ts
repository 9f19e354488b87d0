/**
 * Paging, stage 4b — outside addresses (issue 41): a page goes without asking only to a person, a
 * recipient reached through a `user` target or on call in a `schedule` target (the event's `people`):
 * an account holder, named by id under the rules for naming people (issue 41, finding 5). Every other
 * address a step names (an `email` target, or a step's `emails`) is an outside address, whoever's it is:
 * an account's own address named as an `email` target too, or knowing someone's address would be enough
 * to page them without limit. An outside address is paged on behalf of the sending account (the
 * incident's owner account, whose monitor raised it), and so:
 * - its e-mail carries a "stop paging this address" link (`newStopPagingLink`): opening it only shows
 *   what it does; its page's button suppresses the address for that account, for good;
 * - each page to it is admitted by `admitOutsidePage` before it is sent, once per (event, address), in
 *   one transaction on the conditions that the address has not stopped the account, and that the
 *   account's daily quotas of distinct outside addresses and of pages to them are not reached. A page
 *   withheld (stopped, or over the quota) is recorded on the incident's timeline (`page_withheld`, with
 *   the reason) in the transaction that decides it: it never reaches nobody silently, and the
 *   account holders of the same step are paged all the same.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys } from '../platform/db/keys.js';
import { conditionFailure, transactOutcome, type TransactItem } from '../platform/db/ops.js';
import type { EventDetail } from '../platform/events/model.js';
import { countMetric } from '../platform/observability/metrics.js';
import { dayItemTtl, quotaCharge, utcDay } from '../platform/quotas/daily.js';
import { newEmailedLink, readEmailedLink } from '../platform/emailed-link.js';
import { timelinePut } from '../incidents/timeline.js';

type PageEvent = EventDetail<'incident.escalation_step'>;

/** A stop link works for 90 days (each page carries a fresh one). */
export const STOP_LINK_VALIDITY_MS = 90 * 24 * 60 * 60 * 1000;

/** Permits outlive any redelivery of the event, as delivery records do. */
const PERMIT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** The account a page is sent on behalf of: the incident's owner (the monitor's owner account). */
export const sendingAccount = (detail: PageEvent) => detail.incident.owner_id;

/** Of the event's `step.emails`, those paged as account holders (lower-cased): the people it reached. No read. */
export const accountHolders = (detail: PageEvent): Set<string> => new Set((detail.people ?? []).map((address) => address.toLowerCase()));

/** A new stop link for one outside recipient of one page: the token for the e-mail, the record to write with its delivery. */
export function newStopPagingLink(detail: PageEvent, recipient: string): { token: string; record: TransactItem } {
  return newEmailedLink(keys.stopPagingLink, STOP_LINK_VALIDITY_MS, {
    type: 'stop_paging_link',
    account_id: sendingAccount(detail),
    email: recipient,
    monitor_name: detail.incident.monitor_name,
    incident_id: detail.incident.id,
    event_id: detail.event_id,
  });
}

/** Why a page to an outside address was not sent: the address stopped the account, or the account's daily quota was reached. */
export type WithheldReason = 'stopped' | 'daily_limit';
export type Admission = 'admitted' | WithheldReason;

/**
 * Decides, once per (event, address), whether the page to an outside address goes: `admitted` (counted:
 * one page, and the address among the day's distinct ones if it is new today), or withheld (recorded on
 * the timeline with the reason, in the same transaction). A redelivered event finds the decision made.
 */
export async function admitOutsidePage(detail: PageEvent, recipient: string): Promise<Admission> {
  const account = sendingAccount(detail);
  const now = clock.now();
  const { day } = utcDay(now);
  const dayTtl = dayItemTtl(now);
  const permit = (outcome: Admission): TransactItem => ({
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.pagePermit(detail.event_id, recipient),
        type: 'page_permit',
        outcome,
        account_id: account,
        decided_at: now.toISOString(),
        [attributes.ttl]: Math.floor(now.getTime() / 1000) + PERMIT_RETENTION_SECONDS,
      },
      ConditionExpression: itemAbsent,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  });
  // First as a new address of the day; if it was paged already today, as one more page only.
  for (const newToday of [true, false]) {
    const { outcome, item } = await transactOutcome<'decided' | 'stopped' | 'seen' | 'daily_limit'>([
      ['decided', permit('admitted')],
      ['stopped', { ConditionCheck: { TableName: tableName(), Key: keys.pagingStopped(account, recipient), ConditionExpression: itemAbsent } }],
      ...(newToday
        ? ([
            ['seen', { Put: { TableName: tableName(), Item: { ...keys.pagedAddress(account, day, recipient), type: 'paged_address', [attributes.ttl]: dayTtl }, ConditionExpression: itemAbsent } }],
            ['daily_limit', quotaCharge(account, 'paged_addresses', now)],
          ] as const)
        : []),
      ['daily_limit', quotaCharge(account, 'outside_pages', now)],
    ]);
    if (outcome === 'ok') return 'admitted';
    if (outcome === 'decided') return decided(item);
    if (outcome === 'seen') continue;
    return withhold(detail, recipient, outcome, permit(outcome));
  }
  throw new Error(`Page to ${recipient} of event ${detail.event_id}: the address was counted and then not`);
}

/** The decision a permit holds. */
const decided = (item: Record<string, unknown> | undefined): Admission => (item?.outcome === 'stopped' || item?.outcome === 'daily_limit' ? item.outcome : 'admitted');

/** Records a withheld page: its decision and its timeline entry, in one transaction (the incident still there). */
async function withhold(detail: PageEvent, recipient: string, reason: WithheldReason, permit: TransactItem): Promise<Admission> {
  const { incident, step } = detail;
  const { outcome, item } = await transactOutcome<'decided' | 'gone' | 'conflict'>([
    ['decided', permit],
    ['gone', { ConditionCheck: { TableName: tableName(), Key: keys.incident(incident.id), ConditionExpression: itemPresent } }],
    [
      'conflict',
      timelinePut({
        kind: 'page_withheld',
        incident: { id: incident.id, status: incident.status },
        at: clock.nowIso(),
        actor: null,
        details: { step_order: step.step_order, recipients: [recipient], reason },
      }),
    ],
  ]);
  // Decided meanwhile by a concurrent delivery of the same event: that decision stands.
  if (outcome === 'decided') return decided(item);
  if (outcome === 'conflict') throw new Error(`Unexpected conflict recording the withheld page to ${recipient} of incident ${incident.id}`);
  // (`gone`: a deleted incident has no timeline to tell; the page is withheld all the same.)
  countMetric('EscalationPageWithheld', { reason });
  return reason;
}

interface StopLink {
  account_id: string;
  email: string;
  monitor_name: string;
  expires_at: string;
}

/** What a stop link leads to, for its page. */
export type StopLinkState = { state: 'unknown' } | { state: 'expired' } | { state: 'valid' | 'stopped'; link: StopLink };

async function readStopLink(token: string): Promise<StopLink | undefined> {
  const Item = await readEmailedLink(keys.stopPagingLink, token);
  if (!Item) return undefined;
  return { account_id: String(Item.account_id), email: String(Item.email), monitor_name: String(Item.monitor_name), expires_at: String(Item.expires_at) };
}

function stateOf(link: StopLink | undefined, now: Date): StopLinkState {
  if (!link) return { state: 'unknown' };
  if (Date.parse(link.expires_at) <= now.getTime()) return { state: 'expired' };
  return { state: 'valid', link };
}

/** Opening a stop link (GET): what it would stop. Never stops (mail scanners open links). */
export async function inspectStopLink(token: string): Promise<StopLinkState> {
  return stateOf(await readStopLink(token), clock.now());
}

/**
 * The page's button (POST): the address is suppressed for the sending account, for good (no TTL). Any
 * number of clicks, from any page's link, say the same.
 */
export async function stopPaging(token: string): Promise<StopLinkState> {
  const now = clock.now();
  const read = stateOf(await readStopLink(token), now);
  if (read.state !== 'valid') return read;
  const { link } = read;
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.pagingStopped(link.account_id, link.email), type: 'paging_stopped', account_id: link.account_id, email: link.email.toLowerCase(), stopped_at: now.toISOString() },
        ConditionExpression: itemAbsent,
      }),
    );
  } catch (error) {
    // Stopped already (an earlier click): nothing changes.
    if (!conditionFailure(error)) throw error;
  }
  return { state: 'stopped', link };
}
