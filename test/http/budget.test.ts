/**
 * The DynamoDB-call budget of every route (docs/data-model.md), counted through the SDK
 * middleware stack while the request runs through the local runtime. Routes the system
 * description marks read-only must issue only reads.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { advanceClock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { routes, workers } from '../../shared/system.js';
import { allMailTo, Api, awaitMail, confirmationLink, eventually, settle, uniqueEmail, type User } from '../support/api.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { dynamoCalls } from '../../infra/testing/ddb-calls.js';
import { createTeam, invite, join, reportDown } from '../support/teams.js';
import { seedIncidents } from '../../infra/testing/seed.js';
import { getMonitorWithSubscribers } from '../../shared/subscribers/repository.js';
import { newUnsubscribeLink } from '../../shared/subscribers/service.js';

/** The unsubscribe link of an e-mail to the monitor's last subscriber, written as its delivery writes it. */
async function unsubscribeToken() {
  const link = newUnsubscribeLink((await getMonitorWithSubscribers(ids.monitor)).subscribers.at(-1)!, 'Budget');
  await transactWrite([link.record]);
  return link.token;
}
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { transactWrite } from '../../shared/platform/db/ops.js';
import { newAcknowledgeLink } from '../../shared/incidents/acknowledge-link.js';
import { newStopPagingLink } from '../../shared/paging/outside.js';

let api: Api;
let receiver: Receiver;
let user: User;
let invitee: User;
let colleague: User;
const calls = dynamoCalls();
const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);

interface Case {
  route: string;
  method: string;
  path: () => string | Promise<string>;
  body?: () => unknown;
  as?: () => User;
  expectStatus: number;
  budget: number;
  /** Round trips: calls made in parallel count once (asserted where given). */
  rounds?: number;
  /** Runs once the case is done, whatever its outcome. */
  after?: () => void;
}

const ids = { alertKey: '', monitor: '', spareMonitor: '', incident: '', team: '', cancelInvite: '', acceptToken: '', member: '', policy: '', schedule: '', override: '', subscriber: '', linkToken: '', confirmPath: '', webhook: '', stopToken: '', contactMethod: '', contactAddress: '', code: '' };

/** The partition keys a DynamoDB request names (single items, batches, transactions). */
function partitionKeysOf(input: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) {
        if ((name === 'Key' || name === 'Item') && inner && typeof inner === 'object' && typeof (inner as Record<string, unknown>).pk === 'string') {
          found.push((inner as Record<string, string>).pk!);
        } else if (name === 'Keys' && Array.isArray(inner)) {
          found.push(...inner.map((key: Record<string, string>) => key.pk!));
        } else visit(inner);
      }
    }
  };
  visit(input);
  // A Query of the table names its partition in the key condition (`pk = :pk`, or through a name alias).
  const query = input as { KeyConditionExpression?: string; IndexName?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> };
  if (query.KeyConditionExpression && !query.IndexName) {
    for (const [, name, value] of query.KeyConditionExpression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
      if ((query.ExpressionAttributeNames?.[name!] ?? name) === 'pk') found.push(String(query.ExpressionAttributeValues?.[value!]));
    }
  }
  return found;
}

const alertEvent = (dedupKey: string) => ({ routing_key: ids.alertKey, event_action: 'trigger', dedup_key: dedupKey, payload: { summary: 'Budget', source: 'bench', severity: 'error' } });

/** In order: later cases use what earlier ones made. */
const cases: Case[] = [
  { route: 'monitors-create', method: 'POST', path: () => '/api/monitors', body: () => ({ name: 'Budget' }), expectStatus: 201, budget: 1 },
  // The caller is in one team (T = 1): own scope and memberships, then the team's scope and one check of teams and memberships;
  // then one BatchGetItem of the page's heartbeat items for their `last_ping_at` (the page has a heartbeat monitor; none without one).
  { route: 'monitors-list', method: 'GET', path: () => '/api/monitors', expectStatus: 200, budget: 5, rounds: 3 },
  { route: 'monitors-get', method: 'GET', path: () => `/api/monitors/${ids.monitor}`, expectStatus: 200, budget: 1 },
  // GetItem, then one transaction (the change and its audit entry, whose `from` values are the monitor as read).
  { route: 'monitors-update', method: 'PUT', path: () => `/api/monitors/${ids.monitor}`, body: () => ({ failure_threshold: 4 }), expectStatus: 200, budget: 2, rounds: 2 },
  // A heartbeat monitor's answer carries its heartbeat's `last_ping_at`: one GetItem after the write.
  { route: 'monitors-update', method: 'PUT', path: () => `/api/monitors/${ids.spareMonitor}`, body: () => ({ failure_threshold: 4 }), expectStatus: 200, budget: 3, rounds: 3 },
  { route: 'incidents-create', method: 'POST', path: () => '/api/incidents', body: () => ({ monitorId: ids.monitor, title: 'Budget' }), expectStatus: 201, budget: 2 },
  { route: 'incidents-list', method: 'GET', path: () => '/api/incidents?severity=MEDIUM', expectStatus: 200, budget: 4, rounds: 2 },
  // Reports: the own scope's range Query ∥ memberships; then the team's range Query ∥ the team check (1 MB a call).
  { route: 'reports-incidents', method: 'GET', path: () => `/api/reports/incidents?from=2026-01-01T00:00:00Z&to=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`, expectStatus: 200, budget: 4, rounds: 2 },
  { route: 'incidents-get', method: 'GET', path: () => `/api/incidents/${ids.incident}`, expectStatus: 200, budget: 1 },
  // Every change reads, then writes with its event and timeline entries (a new title too: its entry says from what).
  { route: 'incidents-update', method: 'PUT', path: () => `/api/incidents/${ids.incident}`, body: () => ({ status: 'IDENTIFIED' }), expectStatus: 200, budget: 2 },
  { route: 'incidents-update', method: 'PUT', path: () => `/api/incidents/${ids.incident}`, body: () => ({ title: 'Renamed' }), expectStatus: 200, budget: 2, rounds: 2 },
  // Read the caller's account and the incident, then one transaction (the note, the change, the event).
  { route: 'incidents-updates-create', method: 'POST', path: () => `/api/incidents/${ids.incident}/updates`, body: () => ({ message: 'Note', status: 'MONITORING' }), expectStatus: 201, budget: 2, rounds: 2 },
  // The first page: one Query from the incident's item (for who may see it) through the page.
  { route: 'incidents-updates-list', method: 'GET', path: () => `/api/incidents/${ids.incident}/updates?limit=2`, expectStatus: 200, budget: 1, rounds: 1 },
  // A later page: the incident and the page, in parallel.
  {
    route: 'incidents-updates-list',
    method: 'GET',
    path: async () => {
      const first = await api.request('GET', `/api/incidents/${ids.incident}/updates?limit=2`, { token: user.token });
      expect(first.body.next_cursor).toEqual(expect.any(String));
      return `/api/incidents/${ids.incident}/updates?limit=2&cursor=${first.body.next_cursor}`;
    },
    expectStatus: 200,
    budget: 2,
    rounds: 1,
  },
  // The link, then the incident with its acknowledgement.
  { route: 'acknowledge-link-open', method: 'GET', path: () => `/acknowledge/${ids.linkToken}`, expectStatus: 200, budget: 2, rounds: 2 },
  // The link; the incident and the recipient's e-mail claim; their account; one transaction.
  { route: 'acknowledge-link-confirm', method: 'POST', path: () => `/acknowledge/${ids.linkToken}`, expectStatus: 200, budget: 4, rounds: 4 },
  // The incident's collection (its steps), then one transaction of ConditionChecks (the right, still open); a manual
  // incident has no step left (409), which costs what a 202 does (the schedule is not DynamoDB's).
  { route: 'incidents-escalate', method: 'POST', path: () => `/api/incidents/${ids.incident}/escalate`, expectStatus: 409, budget: 2, rounds: 2 },
  { route: 'incidents-acknowledge', method: 'POST', path: () => `/api/incidents/${ids.incident}/acknowledge`, expectStatus: 200, budget: 2 },
  { route: 'incidents-resolve', method: 'DELETE', path: () => `/api/incidents/${ids.incident}`, expectStatus: 200, budget: 2 },
  { route: 'policies-create', method: 'POST', path: () => '/api/escalation-policies', body: () => ({ name: 'P', steps: [{ delay_minutes: 0, emails: ['a@example.com'] }] }), expectStatus: 201, budget: 1 },
  { route: 'policies-list', method: 'GET', path: () => '/api/escalation-policies', expectStatus: 200, budget: 4, rounds: 2 },
  { route: 'policies-get', method: 'GET', path: () => `/api/escalation-policies/${ids.policy}`, expectStatus: 200, budget: 1 },
  // Read, then one transaction on the policy as read (with guards and links when shared or moved).
  { route: 'policies-update', method: 'PUT', path: () => `/api/escalation-policies/${ids.policy}`, body: () => ({ name: 'Renamed' }), expectStatus: 200, budget: 2, rounds: 2 },
  // GetItem (the audit entry names the policy), then one transaction: the delete and the entry.
  { route: 'policies-delete', method: 'DELETE', path: () => `/api/escalation-policies/${ids.policy}`, expectStatus: 200, budget: 2, rounds: 2 },
  // The owner's memberships (owner index), both sides' memberships in those teams (one BatchGetItem), then one
  // transaction: the schedule with a ConditionCheck per person it names and per membership a colleague shares.
  { route: 'schedules-create', method: 'POST', path: () => '/api/schedules', body: () => ({ name: 'S', time_zone: 'UTC', layers: [{ name: 'W', start: '2026-11-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [user.id, colleague.id] }] }), expectStatus: 201, budget: 3 },
  { route: 'schedules-list', method: 'GET', path: () => '/api/schedules', expectStatus: 200, budget: 4, rounds: 2 },
  { route: 'schedules-get', method: 'GET', path: () => `/api/schedules/${ids.schedule}`, expectStatus: 200, budget: 1 },
  { route: 'schedules-update', method: 'PUT', path: () => `/api/schedules/${ids.schedule}`, body: () => ({ name: 'Renamed' }), expectStatus: 200, budget: 2, rounds: 2 },
  // Read the schedule; the owner's memberships, then both sides' in those teams (a colleague of the owner's);
  // one transaction: the override, its id lookup, its person's checks, the schedule as read.
  { route: 'schedules-overrides-create', method: 'POST', path: () => `/api/schedules/${ids.schedule}/overrides`, body: () => ({ user_id: colleague.id, start: '2026-11-10T00:00:00Z', end: '2026-11-11T00:00:00Z' }), expectStatus: 201, budget: 4, rounds: 4 },
  { route: 'schedules-overrides-list', method: 'GET', path: () => `/api/schedules/${ids.schedule}/overrides?from=2026-11-01T00:00:00Z`, expectStatus: 200, budget: 2, rounds: 2 },
  // Read the schedule, then the overrides in range and its people (accounts) in parallel: never O(history).
  { route: 'schedules-on-call', method: 'GET', path: () => `/api/schedules/${ids.schedule}/on-call?at=2036-11-10T12:00:00Z`, expectStatus: 200, budget: 3, rounds: 2 },
  { route: 'schedules-shifts', method: 'GET', path: () => `/api/schedules/${ids.schedule}/shifts?from=2036-11-01T00:00:00Z&to=2037-01-30T00:00:00Z`, expectStatus: 200, budget: 3, rounds: 2 },
  // The account (its current token), then one transaction: the account's token, the new lookup, the old one deleted.
  { route: 'calendars-token', method: 'POST', path: () => '/api/me/calendar-token', expectStatus: 200, budget: 2, rounds: 2 },
  // The token's lookup, the account; the user's schedules (own ∥ memberships, then each team's ∥ the team check);
  // per schedule its overrides in range ∥ its people, all schedules at once: 2 + 2 + (T + 1) + 2 × S calls in 5
  // round trips (here T = 1 team, S = 2 schedules).
  {
    route: 'calendars-feed',
    method: 'GET',
    path: async () => new URL((await api.request('POST', '/api/me/calendar-token', { token: user.token })).body.url).pathname,
    expectStatus: 200,
    budget: 10,
    rounds: 5,
  },
  // The schedule and the override's id lookup in parallel, then one transaction.
  { route: 'schedules-overrides-delete', method: 'DELETE', path: () => `/api/schedules/${ids.schedule}/overrides/${ids.override}`, expectStatus: 200, budget: 3, rounds: 2 },
  // Read, one conditional transaction, then what remains of its collection: a Query and one BatchWriteItem per 25 items.
  { route: 'schedules-delete', method: 'DELETE', path: () => `/api/schedules/${ids.schedule}`, expectStatus: 200, budget: 4 },
  { route: 'subscribers-create', method: 'POST', path: () => `/api/monitors/${ids.monitor}/subscribers`, body: () => ({ email: uniqueEmail('sub') }), expectStatus: 201, budget: 2 },
  // The monitor and the page, in parallel.
  { route: 'subscribers-list', method: 'GET', path: () => `/api/monitors/${ids.monitor}/subscribers`, expectStatus: 200, budget: 2, rounds: 1 },
  // Opening the link reads its token; the page's button reads it and deletes the subscription in one transaction.
  { route: 'unsubscribe', method: 'GET', path: async () => `/unsubscribe/${await unsubscribeToken()}`, expectStatus: 200, budget: 1 },
  {
    route: 'unsubscribe-confirm',
    method: 'POST',
    path: async () => `/unsubscribe/${await unsubscribeToken()}`,
    expectStatus: 200,
    budget: 2,
  },
  // A page's stop link (issue 41): opening it reads the link; its button reads it, then writes the address's suppression.
  { route: 'stop-paging-open', method: 'GET', path: () => `/stop-paging/${ids.stopToken}`, expectStatus: 200, budget: 1 },
  { route: 'stop-paging-confirm', method: 'POST', path: () => `/stop-paging/${ids.stopToken}`, expectStatus: 200, budget: 2, rounds: 2 },
  // Opening a confirmation link reads it; its button reads it, then confirms in one transaction (the link used, the subscription).
  { route: 'subscription-confirm-open', method: 'GET', path: () => ids.confirmPath, expectStatus: 200, budget: 1 },
  { route: 'subscription-confirm', method: 'POST', path: () => ids.confirmPath, expectStatus: 200, budget: 2, rounds: 2 },
  { route: 'subscribers-delete', method: 'DELETE', path: () => `/api/monitors/${ids.monitor}/subscribers/${ids.subscriber}`, expectStatus: 200, budget: 2 },
  // Issue 45 §1. Read the monitor (its windows' summary on it), then one transaction (the window, the summary).
  {
    route: 'maintenance-windows-create',
    method: 'POST',
    path: () => `/api/monitors/${ids.monitor}/maintenance-windows`,
    body: () => ({ starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() }),
    expectStatus: 201,
    budget: 2,
    rounds: 2,
  },
  // The monitor, then its windows (a range of its partition; its team's too when it has one).
  { route: 'maintenance-windows-list', method: 'GET', path: () => `/api/monitors/${ids.monitor}/maintenance-windows`, expectStatus: 200, budget: 2, rounds: 2 },
  // The monitor, the window (and its team's summary, with a team) in one BatchGetItem, then one transaction (window, summary, event).
  {
    route: 'maintenance-windows-delete',
    method: 'DELETE',
    path: async () => {
      const made = await api.request('POST', `/api/monitors/${ids.monitor}/maintenance-windows`, {
        token: user.token,
        body: { starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() },
      });
      return `/api/monitors/${ids.monitor}/maintenance-windows/${made.body.maintenance_window.id}`;
    },
    expectStatus: 200,
    budget: 3,
    rounds: 3,
  },
  // The team's summary, then one transaction (the guard, the window, the summary).
  {
    route: 'team-maintenance-windows-create',
    method: 'POST',
    path: () => `/api/teams/${ids.team}/maintenance-windows`,
    body: () => ({ starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() }),
    expectStatus: 201,
    budget: 2,
    rounds: 2,
  },
  // Read the monitor, then one transaction (the integration, its key's lookup, the monitor as read).
  { route: 'integrations-create', method: 'POST', path: () => `/api/monitors/${ids.monitor}/integrations`, body: () => ({ name: 'Budget' }), expectStatus: 201, budget: 2, rounds: 2 },
  // The monitor and the integrations in parallel, then their keys' lookups (last events) in one BatchGetItem.
  { route: 'integrations-list', method: 'GET', path: () => `/api/monitors/${ids.monitor}/integrations`, expectStatus: 200, budget: 3 },
  {
    route: 'integrations-delete',
    method: 'DELETE',
    path: async () => {
      const listed = await api.request('GET', `/api/monitors/${ids.monitor}/integrations`, { token: user.token });
      return `/api/monitors/${ids.monitor}/integrations/${listed.body.integrations[0].id}`;
    },
    expectStatus: 200,
    budget: 2,
    rounds: 2,
  },
  // The key's lookup counted (one conditional UpdateItem: the integration and the rate at once), the monitor with
  // the dedup key's item (BatchGetItem), then one transaction opening the incident.
  // The key's first event starts its rate window (+ 1 UpdateItem, as the first event of every minute does); the
  // clock stands still in the middle of a minute until the last alert case, so the others are in the same window.
  {
    route: 'alerts-enqueue',
    method: 'POST',
    path: () => {
      freezeClock(new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000));
      return '/v2/enqueue';
    },
    body: () => alertEvent('budget'),
    expectStatus: 202,
    budget: 4,
    rounds: 4,
  },
  // Another dedup key of a key this instance has admitted (its monitor is known, immutable): the key counted ∥ the
  // monitor with the dedup key's item, then the opening transaction.
  { route: 'alerts-enqueue', method: 'POST', path: () => '/v2/enqueue', body: () => alertEvent('budget-other'), expectStatus: 202, budget: 3, rounds: 2 },
  // A repeat: one TransactWriteItems whose conditions settle it all (the key counted within its rate, the monitor
  // there, the remembered incident open, never resolved, and counting).
  { route: 'alerts-enqueue', method: 'POST', path: () => '/v2/enqueue', body: () => alertEvent('budget'), expectStatus: 202, budget: 1, rounds: 1 },
  // A notification is recorded, not applied (issue 41 §3): the key counted once, then one BatchWriteItem per 25
  // alert batches of 100 alerts (one call up to 2,500 alerts); the alert processor applies them (see the workers).
  { route: 'alerts-alertmanager', method: 'POST', path: () => '/integrations/alertmanager', body: () => JSON.parse(readFileSync(joinPath(import.meta.dirname, '..', 'fixtures', 'alertmanager-webhook-firing.json'), 'utf8')), as: () => ({ token: ids.alertKey }) as User, expectStatus: 202, budget: 2, rounds: 2 },
  {
    route: 'alerts-alertmanager',
    method: 'POST',
    path: () => '/integrations/alertmanager',
    // 1,000 alerts (resolved ones of fingerprints never seen: applying them changes nothing, so the cases after stay as they were).
    body: () => ({ version: '4', alerts: Array.from({ length: 1_000 }, (_, index) => ({ status: 'resolved', labels: { alertname: 'Budget', pod: String(index) }, fingerprint: `budget-${index}` })) }),
    as: () => ({ token: ids.alertKey }) as User,
    expectStatus: 202,
    budget: 2,
    rounds: 2,
    after: resetClock,
  },
  // A monitor's webhook: the monitor read (rights), then one transaction (the webhook, the guard that the monitor is still the caller's).
  {
    route: 'webhooks-create',
    method: 'POST',
    path: () => '/api/webhooks',
    body: () => ({ url: 'http://127.0.0.1:9/hook', events: ['incident.created'], monitor_id: ids.monitor }),
    expectStatus: 201,
    budget: 2,
    rounds: 2,
  },
  // The own scope and the memberships, then the teams' scopes with one consistent check of teams and memberships.
  { route: 'webhooks-list', method: 'GET', path: () => '/api/webhooks', expectStatus: 200, budget: 4, rounds: 2 },
  // The webhook, then its monitor (rights).
  { route: 'webhooks-get', method: 'GET', path: async () => `/api/webhooks/${(ids.webhook = await firstWebhook())}`, expectStatus: 200, budget: 2, rounds: 2 },
  // The webhook, its monitor (rights), one transaction on the webhook as read with the rights' guards.
  { route: 'webhooks-update', method: 'PUT', path: () => `/api/webhooks/${ids.webhook}`, body: () => ({ description: 'Renamed' }), expectStatus: 200, budget: 3, rounds: 3 },
  // The webhook and its monitor (rights) ∥ a page of its deliveries (monitor index). Two round trips on
  // its longer branch, but a slow Query overlaps both reads of the other, so the count of overlapping
  // rounds is 1 or 2 (as for integrations-list): the calls are asserted, not the rounds.
  { route: 'webhooks-deliveries', method: 'GET', path: () => `/api/webhooks/${ids.webhook}/deliveries`, expectStatus: 200, budget: 3 },
  // The webhook, its monitor, a transaction of the rights' guards; after the request, the delivery record and the webhook's failing streak (its first failure: nothing listens on port 9).
  { route: 'webhooks-test', method: 'POST', path: () => `/api/webhooks/${ids.webhook}/test`, expectStatus: 200, budget: 5, rounds: 5 },
  // As test, reading the delivery instead of writing it, then its new attempt (the streak had started).
  {
    route: 'webhooks-redeliver',
    method: 'POST',
    path: async () => `/api/webhooks/${ids.webhook}/deliveries/${(await api.request('GET', `/api/webhooks/${ids.webhook}/deliveries`, { token: user.token })).body.deliveries[0].id}/redeliver`,
    expectStatus: 200,
    budget: 5,
    rounds: 5,
  },
  { route: 'webhooks-rotate-secret', method: 'POST', path: () => `/api/webhooks/${ids.webhook}/rotate-secret`, expectStatus: 200, budget: 3, rounds: 3 },
  { route: 'webhooks-delete', method: 'DELETE', path: () => `/api/webhooks/${ids.webhook}`, expectStatus: 200, budget: 3, rounds: 3 },
  // A heartbeat ping: one UpdateItem of the key's lookup (admitted, the first ping of its minute: issue 46 §4), one UpdateItem of the heartbeat item (nothing to resolve).
  { route: 'heartbeats-ping', method: 'POST', path: () => `/heartbeats/${ids.alertKey}`, body: () => ({}), expectStatus: 202, budget: 2, rounds: 2 },
  // GetItem, GetItem of its missed-heartbeat claim (it has a heartbeat; none missed), the conditional
  // transaction, Query of what the monitor leaves (subscribers), BatchWriteItem per 25 of them.
  { route: 'monitors-delete', method: 'DELETE', path: () => `/api/monitors/${ids.spareMonitor}`, expectStatus: 200, budget: 5 },

  // A person's contacts (issue 43 §2, §3): one Query of their collection reads methods, rules, the counter and the account.
  { route: 'contact-methods-list', method: 'GET', path: () => '/api/me/contact-methods', expectStatus: 200, budget: 1, rounds: 1 },
  // The collection, then one transaction: the defaults written (the first write), the method, its address claim, the code's event.
  {
    route: 'contact-methods-create',
    method: 'POST',
    path: () => '/api/me/contact-methods',
    body: () => ({ type: 'email', address: (ids.contactAddress = uniqueEmail('budget-method')) }),
    expectStatus: 201,
    budget: 2,
    rounds: 2,
  },
  // One conditional UpdateItem.
  { route: 'contact-methods-update', method: 'PUT', path: async () => `/api/me/contact-methods/${(ids.contactMethod = await lastContactMethod())}`, body: () => ({ name: 'Desk' }), expectStatus: 200, budget: 1, rounds: 1 },
  // A minute later: the method (its type and address, for the event), then one transaction (the new code on its conditions, the event).
  {
    route: 'contact-methods-send-code',
    method: 'POST',
    path: () => {
      advanceClock(61_000);
      return `/api/me/contact-methods/${ids.contactMethod}/send-code`;
    },
    expectStatus: 202,
    budget: 2,
    rounds: 2,
    after: resetClock,
  },
  // The right code: one conditional UpdateItem decides it.
  {
    route: 'contact-methods-verify',
    method: 'POST',
    path: async () => {
      ids.code = await lastCode(ids.contactAddress, 2);
      return `/api/me/contact-methods/${ids.contactMethod}/verify`;
    },
    body: () => ({ code: ids.code }), expectStatus: 200, budget: 1, rounds: 1 },
  { route: 'notification-rules-list', method: 'GET', path: () => '/api/me/notification-rules', expectStatus: 200, budget: 1, rounds: 1 },
  // The collection, then one transaction: the rule, its claim, the method counting it, the counter.
  { route: 'notification-rules-create', method: 'POST', path: () => '/api/me/notification-rules', body: () => ({ contact_method_id: ids.contactMethod, delay_minutes: 5, urgency: 'high' }), expectStatus: 201, budget: 2, rounds: 2 },
  { route: 'notification-rules-delete', method: 'DELETE', path: async () => `/api/me/notification-rules/${await lastRule()}`, expectStatus: 200, budget: 2, rounds: 2 },
  // The collection (the method's rules), then one transaction: the method, its claims, its rules, the counter.
  { route: 'contact-methods-delete', method: 'DELETE', path: () => `/api/me/contact-methods/${ids.contactMethod}`, expectStatus: 200, budget: 2, rounds: 2 },

  { route: 'teams-create', method: 'POST', path: () => '/api/teams', body: () => ({ name: 'Budget', slug: `budget-${Date.now()}` }), expectStatus: 201, budget: 2 },
  { route: 'teams-list', method: 'GET', path: () => '/api/teams', expectStatus: 200, budget: 2 },
  // The caller's role (team + membership) ∥ one Query of a page of the team's entries.
  { route: 'audit-team', method: 'GET', path: () => `/api/teams/${ids.team}/audit?limit=5&action=team.created`, expectStatus: 200, budget: 2, rounds: 1 },
  // One Query of a page of the caller's partition of the owner index.
  { route: 'audit-me', method: 'GET', path: () => '/api/me/audit?limit=5', expectStatus: 200, budget: 1, rounds: 1 },
  { route: 'teams-get', method: 'GET', path: () => `/api/teams/${ids.team}`, expectStatus: 200, budget: 1 },
  { route: 'teams-update', method: 'PUT', path: () => `/api/teams/${ids.team}`, body: () => ({ name: 'Renamed' }), expectStatus: 200, budget: 2 },
  { route: 'teams-invite', method: 'POST', path: () => `/api/teams/${ids.team}/invite`, body: () => ({ email: uniqueEmail('b'), role: 'VIEWER' }), expectStatus: 201, budget: 2 },
  { route: 'teams-invite-cancel', method: 'DELETE', path: () => `/api/teams/${ids.team}/invite/${ids.cancelInvite}`, expectStatus: 200, budget: 2 },
  { route: 'teams-invite-accept', method: 'POST', path: () => `/api/teams/invites/${ids.acceptToken}/accept`, as: () => invitee, expectStatus: 200, budget: 2 },
  {
    route: 'teams-member-update',
    method: 'PUT',
    path: async () => {
      const team = await api.request('GET', `/api/teams/${ids.team}`, { token: user.token });
      ids.member = team.body.members.find((member: { user_id: string }) => member.user_id === invitee.id).id;
      return `/api/teams/${ids.team}/members/${ids.member}`;
    },
    body: () => ({ role: 'ADMIN' }),
    expectStatus: 200,
    budget: 2,
  },
  // Read team + membership + member, the removal's transaction; then what they created for the team: the team's
  // webhooks they created ∥ the integrations they created (with none, nothing more).
  { route: 'teams-member-remove', method: 'DELETE', path: () => `/api/teams/${ids.team}/members/${ids.member}`, expectStatus: 200, budget: 4, rounds: 3 },
  // Read team + membership, delete team + slug, Query what is left, one BatchWriteItem per 25 items.
  { route: 'teams-delete', method: 'DELETE', path: () => `/api/teams/${ids.team}`, expectStatus: 200, budget: 4 },
];

/** The id of the budget user's newest contact method. */
async function lastContactMethod(): Promise<string> {
  return (await api.request('GET', '/api/me/contact-methods', { token: user.token })).body.contact_methods.at(-1).id;
}

/** The id of the budget user's newest notification rule. */
async function lastRule(): Promise<string> {
  const rules = (await api.request('GET', '/api/me/notification-rules', { token: user.token })).body.notification_rules as { id: string; created_at: string }[];
  return rules.sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1)!.id;
}

/** The code of the last verification e-mail to `address`, once it has come. */
async function lastCode(address: string, count: number): Promise<string> {
  const mails = await eventually(async () => (await allMailTo(api, address)).filter((mail) => mail.subject.startsWith('Your verification code is')), (found) => found.length >= count);
  return /(\d{6})$/.exec(mails.sort((a, b) => a.at - b.at).at(-1)!.subject)![1]!;
}

/** The id of the budget user's first webhook (the one `webhooks-create` made). */
async function firstWebhook(): Promise<string> {
  return (await api.request('GET', '/api/webhooks', { token: user.token })).body.webhooks[0].id;
}

beforeAll(async () => {
  // The webhook receiver's port is the one this machine's webhooks may reach (LOCAL_WEBHOOK_PORTS); 9 is webhooks-create's (nothing listens there).
  receiver = await startReceiver();
  api = await Api.start({ webhookPorts: [9, receiver.port] });
  user = await api.signUp(uniqueEmail('budget'));
  invitee = await api.signUp(uniqueEmail('budget-invitee'));
  ids.monitor = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'M' } })).body.monitor.id;
  ids.spareMonitor = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'S', heartbeat: { interval_seconds: 3600 } } })).body.monitor.id;
  ids.alertKey = (await api.request('POST', `/api/monitors/${ids.spareMonitor}/integrations`, { token: user.token, body: { name: 'Budget' } })).body.integration.key;
  ids.incident = (
    await api.request('POST', '/api/incidents', { token: user.token, body: { monitorId: ids.monitor, title: 'I' } })
  ).body.incident.id;
  ids.team = (await createTeam(api, user)).id;
  // A colleague shares the user's team, so the user's own schedules may name them (issue 41, 5).
  colleague = await api.signUp(uniqueEmail('budget-colleague'));
  await join(api, user, ids.team, colleague, 'MEMBER');
  // An acknowledge link as the notifier writes it, for another incident, to a recipient with an account.
  const linked = (await api.request('POST', '/api/incidents', { token: user.token, body: { monitorId: ids.monitor, title: 'Linked' } })).body.incident;
  const link = newAcknowledgeLink(
    {
      version: 1,
      event_id: randomUUID(),
      occurred_at: linked.created_at,
      incident: { ...linked, monitor_name: 'M', owner_id: user.id, message: null, automatic: true, escalation_policy_id: null },
      step: { step_order: 1, delay_minutes: 0, emails: [invitee.email] },
    },
    { address: invitee.email },
  );
  const stop = newStopPagingLink(
    {
      version: 1,
      event_id: randomUUID(),
      occurred_at: linked.created_at,
      incident: { ...linked, monitor_name: 'M', owner_id: user.id, message: null, automatic: true, escalation_policy_id: null },
      step: { step_order: 1, delay_minutes: 0, emails: ['outside@example.com'] },
    },
    'outside@example.com',
  );
  await transactWrite([link.record, stop.record]);
  ids.linkToken = link.token;
  ids.stopToken = stop.token;
  ids.policy = (
    await api.request('POST', '/api/escalation-policies', {
      token: user.token,
      body: { name: 'Spare', steps: [{ delay_minutes: 0, emails: ['oncall@example.com'] }] },
    })
  ).body.escalation_policy.id;
  ids.schedule = (
    await api.request('POST', '/api/schedules', { token: user.token, body: { name: 'Spare', time_zone: 'Europe/Berlin', layers: [{ name: 'W', start: '2026-11-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [user.id, colleague.id] }] } })
  ).body.schedule.id;
  ids.override = (
    await api.request('POST', `/api/schedules/${ids.schedule}/overrides`, { token: user.token, body: { user_id: user.id, start: '2026-11-12T00:00:00Z', end: '2026-11-13T00:00:00Z' } })
  ).body.override.id;
  await api.request('POST', `/api/monitors/${ids.spareMonitor}/subscribers`, { token: user.token, body: { email: uniqueEmail('s1') } });
  ids.subscriber = (
    await api.request('POST', `/api/monitors/${ids.monitor}/subscribers`, { token: user.token, body: { email: uniqueEmail('s2') } })
  ).body.subscriber.id;
  const pending = uniqueEmail('s3');
  await api.request('POST', `/api/monitors/${ids.spareMonitor}/subscribers`, { token: user.token, body: { email: pending } });
  ids.confirmPath = await confirmationLink(api, pending);
  ids.cancelInvite = (await invite(api, user, ids.team, uniqueEmail('cancel'), 'VIEWER')).id;
  ids.acceptToken = (await invite(api, user, ids.team, invitee.email, 'MEMBER')).token;
});
afterAll(async () => {
  await api.close();
  await receiver.close();
});

describe('DynamoDB calls per route', () => {
  it('has a budget for every route of the system description', () => {
    expect([...new Set(cases.map((testCase) => testCase.route))].sort()).toEqual(routes.map((route) => route.name).sort());
  });

  for (const testCase of cases) budgetTest(testCase);
});

/** The key conditions of a function's Queries that use `begins_with` (none should). */
const prefixQueriesOf = (functionName: string) =>
  calls.calls
    .filter((call) => call.functionName === functionName && call.command === 'QueryCommand')
    .map((call) => String((call.input as { KeyConditionExpression?: string }).KeyConditionExpression))
    .filter((condition) => condition.includes('begins_with'));

describe('a list page beside a long history (issue 33)', () => {
  it('reads the memberships beside 60 incidents in the same owner partition as a range: ScannedCount within the page and the memberships', async () => {
    const owner = await api.signUp(uniqueEmail('history'));
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'History' } })).body.monitor;
    await seedIncidents({ id: monitor.id, name: monitor.name, owner_id: owner.id, team_id: null }, 60, { message: null });
    await createTeam(api, owner, 'History team');
    calls.reset();
    const response = await api.request('GET', '/api/incidents?limit=10', { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.incidents).toHaveLength(10);
    const queries = calls.calls.filter((call) => call.functionName === 'incidents-list' && call.command === 'QueryCommand');
    const conditions = queries.map((call) => String((call.input as { KeyConditionExpression?: string }).KeyConditionExpression));
    expect(conditions.filter((condition) => condition.includes('begins_with')), conditions.join(' | ')).toEqual([]);
    // Own scope (limit + 2), the one membership, the team's scope (limit + 2, empty here).
    expect(calls.queryCostOf('incidents-list').scanned).toBeLessThanOrEqual(10 + 2 + 1 + 12);
  });
});

function budgetTest(testCase: Case) {
  const route = routes.find((candidate) => candidate.name === testCase.route)!;
  const rounds = testCase.rounds === undefined ? '' : ` in ${testCase.rounds} round trip(s)`;
  it(`${route.method} ${route.path} makes ${testCase.budget} call(s)${rounds}`, async () => {
    onTestFinished(() => testCase.after?.());
    const path = await testCase.path();
    calls.reset();
    const response = await api.request(testCase.method, path, {
      token: (testCase.as?.() ?? user).token,
      body: testCase.body?.(),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(testCase.expectStatus);
    const commands = calls.commandsOf(route.name);
    expect(commands, commands.join(', ')).toHaveLength(testCase.budget);
    if (testCase.rounds !== undefined) expect(calls.roundsOf(route.name), commands.join(', ')).toBe(testCase.rounds);
    if (route.table === 'read') {
      // A transaction of ConditionChecks only (a right checked as a write would check it, issue 44's escalate) writes nothing: its grant is a read's.
      const checksOnly = (call: (typeof calls.calls)[number]) =>
        call.command === 'TransactWriteItemsCommand' && ((call.input as { TransactItems?: object[] }).TransactItems ?? []).every((item) => Object.keys(item).join() === 'ConditionCheck');
      const writes = calls.calls.filter((call) => call.functionName === route.name && !READS.has(call.command) && !checksOnly(call));
      expect(writes.map((call) => call.command)).toEqual([]);
    }
    // A sort-key prefix is read as a range: DynamoDB Local's `begins_with` slows down with the partition's other items.
    expect(prefixQueriesOf(route.name)).toEqual([]);
    // A function confined to some partitions (dynamodb:LeadingKeys on AWS) stays within them here too.
    if (route.leadingKeys) {
      const own = calls.calls.filter((call) => call.functionName === route.name);
      const touched = own.flatMap((call) => partitionKeysOf(call.input));
      // An index reader's Queries of its indexes (granted apart, Query only) name no table partition.
      const indexes = own.map((call) => (call.input as { IndexName?: string }).IndexName).filter((index) => index !== undefined);
      expect(touched.length + indexes.length).toBeGreaterThan(0);
      for (const pk of touched) expect(route.leadingKeys.some((prefix) => pk.startsWith(prefix)), pk).toBe(true);
      for (const index of indexes) expect(route.indexes ?? [], index).toContain(index);
    }
  });
}

/**
 * Through a team: a MEMBER of one team acts on the team's monitor and its incidents. Reads and
 * writes of a team incident take at most 2 round trips; lists read the own scope and the
 * memberships, then every team's scope with one consistent check of teams and memberships.
 */
describe('DynamoDB calls per route, through a team', () => {
  const team = { id: '', monitor: '', incident: '', subscriber: '', personal: '', schedule: '' };
  let mate: User;
  beforeAll(async () => {
    mate = await api.signUp(uniqueEmail('budget-mate'));
    team.id = (await createTeam(api, user)).id;
    await join(api, user, team.id, mate, 'MEMBER');
    team.monitor = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'Team', team_id: team.id } })).body.monitor.id;
    team.personal = (await api.request('POST', '/api/monitors', { token: user.token, body: { name: 'Personal' } })).body.monitor.id;
    const layer = { name: 'W', start: '2026-11-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [user.id, mate.id] };
    team.schedule = (
      await api.request('POST', '/api/schedules', { token: user.token, body: { name: 'Team', time_zone: 'UTC', team_id: team.id, layers: [layer] } })
    ).body.schedule.id;
    team.incident = (
      await api.request('POST', '/api/incidents', { token: user.token, body: { monitorId: team.monitor, title: 'Team incident' } })
    ).body.incident.id;
    team.subscriber = (
      await api.request('POST', `/api/monitors/${team.monitor}/subscribers`, { token: user.token, body: { email: uniqueEmail('ts') } })
    ).body.subscriber.id;
  });
  const asMate = () => mate;
  let solo: User;
  beforeAll(async () => {
    solo = await api.signUp(uniqueEmail('budget-solo'));
  });
  const asSolo = () => solo;
  const teamCases: Case[] = [
    // A caller in no team: the own scope and the (empty) memberships, in parallel.
    { route: 'monitors-list', method: 'GET', path: () => '/api/monitors', as: asSolo, expectStatus: 200, budget: 2, rounds: 1 },
    { route: 'incidents-list', method: 'GET', path: () => '/api/incidents', as: asSolo, expectStatus: 200, budget: 2, rounds: 1 },
    { route: 'policies-list', method: 'GET', path: () => '/api/escalation-policies', as: asSolo, expectStatus: 200, budget: 2, rounds: 1 },
    // Issue 45 §1: a page with monitors shared with teams also reads those teams' maintenance summaries (one
    // BatchGetItem, beside the heartbeats' last pings); a shared monitor's form reads its team's beside the access check or the write.
    { route: 'monitors-list', method: 'GET', path: () => '/api/monitors', as: asMate, expectStatus: 200, budget: 5, rounds: 3 },
    { route: 'monitors-list', method: 'GET', path: () => `/api/monitors?team_id=${team.id}`, as: asMate, expectStatus: 200, budget: 3, rounds: 2 },
    { route: 'monitors-get', method: 'GET', path: () => `/api/monitors/${team.monitor}`, as: asMate, expectStatus: 200, budget: 3, rounds: 2 },
    { route: 'monitors-update', method: 'PUT', path: () => `/api/monitors/${team.monitor}`, body: () => ({ name: 'Renamed' }), as: asMate, expectStatus: 200, budget: 3, rounds: 2 },
    // The owner shares a monitor (no incidents yet): read it, then one guarded transaction (beside it, the team's maintenance summary).
    { route: 'monitors-update', method: 'PUT', path: () => `/api/monitors/${team.personal}`, body: () => ({ team_id: team.id }), expectStatus: 200, budget: 3, rounds: 2 },
    { route: 'incidents-list', method: 'GET', path: () => '/api/incidents', as: asMate, expectStatus: 200, budget: 4, rounds: 2 },
    // One team's report: the team check ∥ its range Query; one monitor's: the monitor ∥ its range Query, then the membership.
    { route: 'reports-incidents', method: 'GET', path: () => `/api/reports/incidents?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z&team_id=${team.id}`, as: asMate, expectStatus: 200, budget: 2, rounds: 1 },
    { route: 'reports-incidents', method: 'GET', path: () => `/api/reports/incidents?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z&monitor_id=${team.monitor}`, as: asMate, expectStatus: 200, budget: 3, rounds: 2 },
    { route: 'reports-incidents', method: 'GET', path: () => '/api/reports/incidents?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z', as: asSolo, expectStatus: 200, budget: 2, rounds: 1 },
    { route: 'incidents-get', method: 'GET', path: () => `/api/incidents/${team.incident}`, as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    { route: 'incidents-create', method: 'POST', path: () => '/api/incidents', body: () => ({ monitorId: team.monitor, title: 'By a member' }), as: asMate, expectStatus: 201, budget: 2, rounds: 2 },
    // Read, then one guarded transaction.
    { route: 'incidents-update', method: 'PUT', path: () => `/api/incidents/${team.incident}`, body: () => ({ title: 'Renamed' }), as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    { route: 'incidents-update', method: 'PUT', path: () => `/api/incidents/${team.incident}`, body: () => ({ status: 'IDENTIFIED' }), as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    { route: 'incidents-updates-create', method: 'POST', path: () => `/api/incidents/${team.incident}/updates`, body: () => ({ message: 'By a member' }), as: asMate, expectStatus: 201, budget: 2, rounds: 2 },
    // The incident with the first page (one Query), then the monitor and the caller's membership.
    { route: 'incidents-updates-list', method: 'GET', path: () => `/api/incidents/${team.incident}/updates`, as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    { route: 'incidents-acknowledge', method: 'POST', path: () => `/api/incidents/${team.incident}/acknowledge`, as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    { route: 'incidents-resolve', method: 'DELETE', path: () => `/api/incidents/${team.incident}`, as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    { route: 'subscribers-list', method: 'GET', path: () => `/api/monitors/${team.monitor}/subscribers`, as: asMate, expectStatus: 200, budget: 3, rounds: 2 },
    { route: 'subscribers-create', method: 'POST', path: () => `/api/monitors/${team.monitor}/subscribers`, body: () => ({ email: uniqueEmail('tm') }), as: asMate, expectStatus: 201, budget: 2, rounds: 2 },
    { route: 'subscribers-delete', method: 'DELETE', path: () => `/api/monitors/${team.monitor}/subscribers/${team.subscriber}`, as: asMate, expectStatus: 200, budget: 2, rounds: 2 },
    // Through the team: the guard rides in the write's transaction; the list reads team + memberships (the caller's, the
    // creators') in the BatchGetItem of the keys' lookups.
    { route: 'integrations-create', method: 'POST', path: () => `/api/monitors/${team.monitor}/integrations`, body: () => ({ name: 'Team' }), as: asMate, expectStatus: 201, budget: 2, rounds: 2 },
    { route: 'integrations-list', method: 'GET', path: () => `/api/monitors/${team.monitor}/integrations`, as: asMate, expectStatus: 200, budget: 3 },
    {
      route: 'integrations-delete',
      method: 'DELETE',
      path: async () => {
        const listed = await api.request('GET', `/api/monitors/${team.monitor}/integrations`, { token: mate.token });
        return `/api/monitors/${team.monitor}/integrations/${listed.body.integrations[0].id}`;
      },
      as: asMate,
      expectStatus: 200,
      budget: 2,
      rounds: 2,
    },
    { route: 'policies-list', method: 'GET', path: () => '/api/escalation-policies', as: asMate, expectStatus: 200, budget: 4, rounds: 2 },
    // A team schedule: the schedule, then the caller's access, the overrides in range and its people (accounts and memberships) in parallel.
    { route: 'schedules-on-call', method: 'GET', path: () => `/api/schedules/${team.schedule}/on-call`, as: asMate, expectStatus: 200, budget: 4, rounds: 2 },
    { route: 'schedules-shifts', method: 'GET', path: () => `/api/schedules/${team.schedule}/shifts?from=2026-11-01T00:00:00Z&to=2027-01-30T00:00:00Z`, as: asMate, expectStatus: 200, budget: 4, rounds: 2 },
  ];
  for (const testCase of teamCases) budgetTest(testCase);
});

/**
 * Workers off the request path: what one unit of their work costs (docs/data-model.md, "Workers").
 * Counted per function while it runs in the local runtime, as the routes are.
 */
describe('DynamoDB calls per worker', () => {
  it('webhook-delivery: one incident event to one webhook, the message sent once, costs 14 calls', async () => {
    const owner = await api.signUp(uniqueEmail('budget-hooks'));
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Hooked' } })).body.monitor.id;
    const hook = await api.request('POST', '/api/webhooks', { token: owner.token, body: { url: `${receiver.origin}/budget`, events: ['incident.created'], monitor_id: monitor } });
    expect(hook.status).toBe(201);
    await settle(api);
    calls.reset();
    expect((await api.request('POST', '/api/incidents', { token: owner.token, body: { monitorId: monitor, title: 'Budget' } })).status).toBe(201);
    await eventually(async () => receiver.requests.length, (count) => count >= 1);
    await settle(api);
    expect(receiver.requests).toHaveLength(1);
    const commands = calls.commandsOf(workers.webhookDelivery.name);
    expect(commands, commands.join(', ')).toEqual([
      // The incident's monitor; the webhooks it reaches (its own ∥ its owner's: no team); the incident as GET shows it.
      'GetItemCommand',
      'QueryCommand',
      'QueryCommand',
      'QueryCommand',
      // The message and its queue entry.
      'TransactWriteItemsCommand',
      // The queue's head, the message ∥ the webhook (its creator owns its monitor: no access read); held until the
      // message is 2 s old, the same three again.
      'QueryCommand',
      'GetItemCommand',
      'GetItemCommand',
      'QueryCommand',
      'GetItemCommand',
      'GetItemCommand',
      // The lease; after the request, its record with the queue entry's end (a success starts no failing streak: no webhook write).
      'UpdateItemCommand',
      'TransactWriteItemsCommand',
      // The queue is empty.
      'QueryCommand',
    ]);
  });

  it('notifier and person-notification: a page to a person and to an outside address (a registered one, named as an e-mail target) reads no account; the person\'s rules in one Query', async () => {
    const owner = await api.signUp(uniqueEmail('budget-pager'));
    const named = await api.signUp(uniqueEmail('budget-named'));
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: owner.token,
      body: { name: 'Both', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: owner.id }, { type: 'email', address: named.email }] }] },
    });
    expect(policy.status).toBe(201);
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Paged', failure_threshold: 1, escalation_policy_id: policy.body.escalation_policy.id } })).body.monitor.id;
    await settle(api);
    calls.reset();
    await reportDown(monitor);
    await settle(api);
    await awaitMail(api, owner.email);
    await awaitMail(api, named.email);
    const notifier = calls.calls.filter((call) => call.functionName === workers.notifier.name);
    const commands = notifier.map((call) => call.command);
    // The event says who was reached as a person: no account's e-mail claim is read (issue 41).
    expect(notifier.flatMap((call) => partitionKeysOf(call.input)).filter((key) => key.startsWith('EMAIL#') || key.startsWith('USER#'))).toEqual([]);
    // (The outside address is served beside the incident.created invocation: compared sorted.)
    expect([...commands].sort(), commands.join(', ')).toEqual(
      [
        // incident.created: the monitor's subscribers (none).
        'QueryCommand',
        // The outside address: its admission (permit, no stop, the day's address and page charges); the
        // delivery record with its acknowledge and stop links; marked sent.
        'TransactWriteItemsCommand',
        'TransactWriteItemsCommand',
        'UpdateItemCommand',
      ].sort(),
    );
    // The person (issue 43): their rules (the defaults: at once, to the account's e-mail), in one Query of
    // their partition and no account read; the delivery record with its acknowledge link; marked sent;
    // the notification timeline entry with its receipts' lookup.
    const person = calls.calls.filter((call) => call.functionName === workers.personNotification.name);
    expect(person.flatMap((call) => partitionKeysOf(call.input)).filter((key) => key.startsWith('EMAIL#'))).toEqual([]);
    expect(person.filter((call) => partitionKeysOf(call.input).some((key) => key.startsWith('USER#'))).map((call) => call.command)).toEqual(['QueryCommand']);
    expect(person.map((call) => call.command)).toEqual(['QueryCommand', 'TransactWriteItemsCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
  });

  it('alert-processor: one read of a batch\'s claims, then per new alert the allowance and the opening; a re-sent notification costs that one read', async () => {
    const owner = await api.signUp(uniqueEmail('budget-batches'));
    const monitor = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Batches' } })).body.monitor.id;
    const key = (await api.request('POST', `/api/monitors/${monitor}/integrations`, { token: owner.token, body: { name: 'Batches' } })).body.integration.key;
    const notification = { version: '4', alerts: ['b1', 'b2'].map((fingerprint) => ({ status: 'firing', labels: { alertname: 'Budget', pod: fingerprint }, startsAt: '2026-11-25T08:00:00Z', fingerprint })) };
    const post = () => api.request('POST', '/integrations/alertmanager', { token: key, body: notification });
    await settle(api);
    calls.reset();
    expect((await post()).status).toBe(202);
    await settle(api);
    expect(calls.commandsOf(workers.alertProcessor.name)).toEqual([
      // The monitor and both claims.
      'BatchGetItemCommand',
      // Per alert: one new incident from the key's allowance (a new minute's first starts it: two calls), the opening transaction.
      'UpdateItemCommand',
      'UpdateItemCommand',
      'TransactWriteItemsCommand',
      'UpdateItemCommand',
      'TransactWriteItemsCommand',
    ]);
    calls.reset();
    expect((await post()).status).toBe(202);
    await settle(api);
    expect(calls.commandsOf(workers.alertProcessor.name)).toEqual(['BatchGetItemCommand']);
  });

  it('heartbeat-sweep: 16 Queries a run whatever the number of monitors, then 3 calls per due heartbeat; no Scan', async () => {
    const owner = await api.signUp(uniqueEmail('budget-beats'));
    freezeClock();
    onTestFinished(resetClock);
    const monitors = await Promise.all(
      ['Cron A', 'Cron B'].map(async (name) => (await api.request('POST', '/api/monitors', { token: owner.token, body: { name, heartbeat: { interval_seconds: 60 } } })).body.monitor.id as string),
    );
    // Runs of the periodic rule at this instant (a first tick starts its period), then one run past both deadlines.
    const runPeriodic = async () => {
      await api.runtime.scheduler.tick();
      await api.runtime.scheduler.tick();
    };
    await runPeriodic();
    calls.reset();
    advanceClock(61_000);
    await runPeriodic();
    const commands = calls.commandsOf(workers.heartbeatSweep.name);
    expect(commands.filter((command) => command === 'ScanCommand')).toEqual([]);
    // One Query per shard; per due heartbeat: BatchGetItem monitor + claim, the opening transaction, UpdateItem of the heartbeat.
    expect(commands.filter((command) => command === 'QueryCommand'), commands.join(', ')).toHaveLength(16);
    expect(commands.filter((command) => command !== 'QueryCommand').sort(), commands.join(', ')).toEqual(
      ['BatchGetItemCommand', 'TransactWriteItemsCommand', 'UpdateItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand', 'UpdateItemCommand'].sort(),
    );
    for (const id of monitors) {
      const open = (await api.request('GET', `/api/incidents?monitor_id=${id}`, { token: owner.token })).body.incidents;
      expect(open.map((incident: { title: string }) => incident.title)).toEqual([expect.stringContaining('missed its heartbeat')]);
    }
  });

  // Last: it moves the clock a year on, and the runtime's periodic rules then next run a minute after that.
  it('shift-notices: 16 Queries a run whatever the number of schedules, then a rendering per due schedule and a few calls per notice; no Scan', async () => {
    const owner = await api.signUp(uniqueEmail('budget-shifts'));
    // Wed 2027-06-09 08:30 in Berlin (CEST): the budget's other schedules hand off on Mondays.
    freezeClock(new Date('2027-06-09T06:30:00Z'));
    onTestFinished(resetClock);
    const created = await api.request('POST', '/api/schedules', {
      token: owner.token,
      body: { name: 'Daily', time_zone: 'Europe/Berlin', layers: [{ name: 'D', start: '2027-06-09T09:00', rotation: { type: 'daily', length: 1 }, handoff_time: '09:00', members: [owner.id] }] },
    });
    expect(created.status).toBe(201);
    // Runs of the periodic rule at this instant (a first tick starts its period; every schedule is planned), then one past 09:00.
    const runPeriodic = async () => {
      await api.runtime.scheduler.tick();
      await api.runtime.scheduler.tick();
    };
    await runPeriodic();
    calls.reset();
    advanceClock(31 * 60_000);
    await runPeriodic();
    const commands = calls.commandsOf(workers.shiftNotices.name);
    expect(commands.filter((command) => command === 'ScanCommand')).toEqual([]);
    // One Query per shard; the due schedule: GetItem of it, the Query of its overrides and the BatchGetItem of
    // its people (in parallel); its person's contacts (Query); the e-mail's delivery record (PutItem, then
    // UpdateItem once sent); the UpdateItem moving its cursor and next start.
    expect(commands.filter((command) => command === 'QueryCommand'), commands.join(', ')).toHaveLength(16 + 2);
    expect(commands.filter((command) => command !== 'QueryCommand').sort(), commands.join(', ')).toEqual(
      ['GetItemCommand', 'BatchGetItemCommand', 'PutItemCommand', 'UpdateItemCommand', 'UpdateItemCommand'].sort(),
    );
    const notices = (await allMailTo(api, owner.email)).filter((mail) => mail.subject.startsWith('You are on call'));
    expect(notices.map((mail) => mail.subject)).toEqual(['You are on call for Daily from Wed 09:00 (Europe/Berlin), with no handoff in the next 30 days']);
  });
});
