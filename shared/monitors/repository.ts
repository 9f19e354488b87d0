import { heartbeatWrite } from './heartbeats.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { policyFits, policyUse, type MonitorScope } from '../escalation/repository.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, ownerIndex, teamIndex, transitAttribute } from '../platform/db/keys.js';
import {
  batchGet,
  purgeCollection,
  transactOutcome,
  updateExpression,
  type Item,
  type TransactItem,
} from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import type { Source } from '../platform/db/pagination.js';
import { memberWithRole, OPERATORS, teamGuard, teamPresent, type GuardOutcome, type Transit } from '../teams/access.js';
import type { Role } from '../teams/model.js';
import { monitorItem, type Monitor, type UpdateMonitorInput } from './model.js';

export const scopeOf = (monitor: Monitor): MonitorScope => ({ ownerId: monitor.owner_id, teamId: monitor.team_id });

// Items as the table holds them (the writes below put these; test fixtures seed them the same way).

/** The monitor's item: its owner's index always, its team's while shared (`team_id` absent when not). */
export const monitorRecord = (monitor: Monitor): Item => ({
  ...keys.monitor(monitor.id),
  ...ownerIndex.monitor(monitor.owner_id, monitor.created_at, monitor.id),
  ...(monitor.team_id ? teamIndex.monitor(monitor.team_id, monitor.created_at, monitor.id) : {}),
  type: 'monitor',
  ...monitor,
  team_id: monitor.team_id ?? undefined,
});

const link = (teamId: string, monitorId: string) => keys.teamSharedMonitor(teamId, monitorId);

/** The team's record that the monitor is shared with it. */
export const sharedMonitorRecord = (teamId: string, monitorId: string): Item => ({ ...link(teamId, monitorId), type: 'team_shared_monitor', monitor_id: monitorId });

const linkPut = (teamId: string, monitorId: string): TransactItem => ({
  Put: { TableName: tableName(), Item: sharedMonitorRecord(teamId, monitorId) },
});
const linkDelete = (teamId: string, monitorId: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: link(teamId, monitorId) },
});

/**
 * Writes the monitor. Shared with a team: with the guard that the caller may share into it and
 * the team's link; with a policy: counting the use (the policy must fit the monitor's scope).
 */
export async function insertMonitor(monitor: Monitor, callerId: string, audit: TransactItem) {
  const put: TransactItem = { Put: { TableName: tableName(), Item: monitorRecord(monitor), ConditionExpression: itemAbsent } };
  // Always a transaction (one call, as the single Put was): the audit entry goes with the monitor.
  return transactOutcome<GuardOutcome | 'conflict' | 'policy_not_found'>([
    ['conflict', audit],
    ...(monitor.team_id ? [...teamGuard(monitor.team_id, callerId, OPERATORS), ['conflict', linkPut(monitor.team_id, monitor.id)] as const] : []),
    ['conflict', put],
    ...(monitor.heartbeat ? [['conflict', heartbeatWrite(monitor.id, monitor.heartbeat)] as const] : []),
    ...(monitor.escalation_policy_id
      ? [['policy_not_found', policyUse(monitor.escalation_policy_id, scopeOf(monitor), 1)] as const]
      : []),
  ]);
}

/** ConditionCheck: the monitor still exists in the scope it was read in (a move changes `team_seq`). */
export const monitorAsRead = (monitor: Monitor): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: keys.monitor(monitor.id),
    ConditionExpression: `${itemPresent} AND (attribute_not_exists(team_seq) OR team_seq = :seq)`,
    ExpressionAttributeValues: { ':seq': monitor.team_seq },
  },
});

/** The monitor and one item of its collection (a subscriber, an integration), in one BatchGetItem. */
export async function getMonitorAnd<T>(monitorId: string, itemKey: Record<string, string>, parse: (item: Item) => T): Promise<{ monitor?: Monitor; item?: T }> {
  const items = await batchGet([keys.monitor(monitorId), itemKey]);
  const bySk = (sk: string) => items.find((item) => item[attributes.sk] === sk);
  const monitor = bySk(keys.monitor(monitorId)[attributes.sk]!);
  const item = bySk(itemKey[attributes.sk]!);
  return { monitor: monitor ? monitorItem.parse(monitor) : undefined, item: item ? parse(item) : undefined };
}

/** The heartbeat item's `last_ping_at`, null when it has none (never pinged, or no heartbeat). */
const lastPingOf = (item: Item | undefined): string | null => (typeof item?.last_ping_at === 'string' ? item.last_ping_at : null);

/** The monitor and its heartbeat's last ping, in one BatchGetItem (strongly consistent). */
export async function getMonitorWithLastPing(monitorId: string): Promise<{ monitor?: Monitor; lastPingAt: string | null }> {
  const { monitor, item } = await getMonitorAnd(monitorId, keys.monitorHeartbeat(monitorId), (heartbeat) => heartbeat);
  return { monitor, lastPingAt: lastPingOf(item) };
}

/**
 * The last ping of each monitor with a heartbeat among `monitors` (a list page): one BatchGetItem of
 * their heartbeat items (a call per 100), none when no monitor of the page has a heartbeat.
 */
export async function lastPings(monitors: Monitor[]): Promise<Map<string, string | null>> {
  const ids = monitors.filter((monitor) => monitor.heartbeat).map((monitor) => monitor.id);
  if (ids.length === 0) return new Map();
  const items = await batchGet(ids.map((id) => keys.monitorHeartbeat(id)));
  return new Map(items.map((item) => [String(item.monitor_id), lastPingOf(item)]));
}

export async function getMonitor(monitorId: string): Promise<Monitor | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.monitor(monitorId), ConsistentRead: true }),
  );
  return Item ? monitorItem.parse(Item) : undefined;
}

/** Where a list page of monitors is read: the owner's, or a team's, partition of its index. */
export const monitorSources = {
  owner: (ownerId: string): Source => ({ index: ownerIndex, partition: ownerIndex.partition(ownerId), prefix: ownerIndex.monitorPrefix }),
  team: (teamId: string): Source => ({ index: teamIndex, partition: teamIndex.partition(teamId), prefix: teamIndex.monitorPrefix }),
};

/** `attribute = value`, where an absent attribute counts as `zero` (items written before it existed). */
const counterIs = (attribute: string, placeholder: string, value: number) =>
  value === 0 ? `(attribute_not_exists(${attribute}) OR ${attribute} = ${placeholder})` : `${attribute} = ${placeholder}`;

/** The monitor is still as read: same scope (`team_seq`) and policy, and with `counted`, no incident since. */
function asRead(current: Monitor, counted: boolean) {
  const parts = [itemPresent, counterIs('team_seq', ':was_seq', current.team_seq), '#policy = :was_policy'];
  const values: Item = { ':was_seq': current.team_seq, ':was_policy': current.escalation_policy_id };
  if (counted) {
    parts.push(counterIs('incident_count', ':was_count', current.incident_count));
    values[':was_count'] = current.incident_count;
  }
  return { expression: parts.join(' AND '), names: { '#policy': 'escalation_policy_id' }, values };
}

/**
 * Counts a new incident of the monitor, on the condition that the monitor is still in the scope
 * it was read in (a move changes `team_seq`), so the incident is indexed in the monitor's scope.
 */
export const countIncident = (monitor: Pick<Monitor, 'id' | 'team_seq'>): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.monitor(monitor.id),
    UpdateExpression: 'ADD incident_count :one',
    ConditionExpression: `${itemPresent} AND ${counterIs('team_seq', ':seq', monitor.team_seq)}`,
    ExpressionAttributeValues: { ':one': 1, ':seq': monitor.team_seq },
  },
});

const transitSet = (teamId: string, transit: Transit): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.team(teamId),
    UpdateExpression: 'SET #transit = :transit',
    ConditionExpression: itemPresent,
    ExpressionAttributeNames: { '#transit': transitAttribute(transit.monitor_id) },
    ExpressionAttributeValues: { ':transit': transit },
  },
});

export interface MonitorChange {
  current: Monitor;
  /** The monitor after the change; undefined deletes it. */
  next?: Monitor;
  /** The fields to set (besides team and policy, which follow `next`). */
  set?: Omit<UpdateMonitorInput, 'escalation_policy_id' | 'team_id'>;
  callerId: string;
  /** When the caller acts through the monitor's current team: the roles that allow the change there. */
  through?: readonly Role[];
  /** The current team no longer exists: nobody sees the monitor through it any more. */
  currentTeamGone?: boolean;
  /** Keep the policy across a move without checking it fits (a deleted team gives its monitors back as they are). */
  keepPolicy?: boolean;
  /** Writes that go with the change, on conditions of their own (failing: `changed`): a missed-heartbeat incident resolved with its heartbeat. */
  with?: TransactItem[];
  /**
   * The change's audit entry. Its `changes` were computed from `current`, so an audited update also holds
   * on `updated_at` as read: a concurrent update in between fails it (`changed`) and the caller reads again.
   */
  audit?: TransactItem;
}

export type ChangeOutcome =
  | 'ok'
  | 'changed'
  | 'from_gone'
  | 'from_role'
  | GuardOutcome
  | 'policy_not_found'
  | 'policy_misfit';

/**
 * Changes (or deletes) the monitor in one transaction, on the condition that it is still as
 * read, with everything that must hold or change with it:
 * - acting through the current team: the team exists and the caller's role there allows it;
 * - moving to a team: the team exists, the caller is OWNER, ADMIN or MEMBER there, its link;
 * - moving a monitor: a `monitor.team_changed` event, after which the rescoper moves its webhooks'
 *   and incidents' team index entries (with incidents, also a transit on both teams);
 * - policy: use counts move from the old policy to the new one, which must fit the new scope
 *   (a policy kept across a move must fit it too).
 */
export async function changeMonitor(change: MonitorChange): Promise<{ outcome: ChangeOutcome; item?: Item }> {
  const { current, next, callerId } = change;
  const moving = next !== undefined && next.team_id !== current.team_id;
  const rescope = moving && current.incident_count > 0;
  const transit: Transit = { monitor_id: current.id, seq: current.team_seq + 1, to_team_id: next?.team_id ?? null };
  const actions: (readonly [ChangeOutcome, TransactItem])[] = [];

  const from = change.currentTeamGone ? null : current.team_id;
  if (from) {
    if (rescope) actions.push(['from_gone', transitSet(from, transit)]);
    else if (change.through) actions.push(['from_gone', teamPresent(from)]);
    if (change.through) actions.push(['from_role', memberWithRole(from, callerId, change.through)]);
  }
  if (current.team_id && (moving || !next)) actions.push(['changed', linkDelete(current.team_id, current.id)]);
  if (moving && next.team_id) {
    actions.push(['team_gone', rescope ? transitSet(next.team_id, transit) : teamPresent(next.team_id)]);
    actions.push(['team_role', memberWithRole(next.team_id, callerId, OPERATORS)]);
    actions.push(['changed', linkPut(next.team_id, current.id)]);
  }

  const condition = asRead(current, moving);
  if (next && change.audit) {
    condition.expression += ' AND #updated_at = :was_updated_at';
    Object.assign(condition.names, { '#updated_at': 'updated_at' });
    condition.values[':was_updated_at'] = current.updated_at;
  }
  if (change.audit) actions.push(['changed', change.audit]);
  if (next) {
    const teamKeys = next.team_id ? teamIndex.monitor(next.team_id, next.created_at, next.id) : {};
    actions.push([
      'changed',
      {
        Update: {
          TableName: tableName(),
          Key: keys.monitor(current.id),
          ...updateExpression({
            set: {
              ...change.set,
              updated_at: next.updated_at,
              ...(next.escalation_policy_id !== current.escalation_policy_id ? { escalation_policy_id: next.escalation_policy_id } : {}),
              ...(moving ? { team_seq: next.team_seq, ...(next.team_id ? { team_id: next.team_id, ...teamKeys } : {}) } : {}),
            },
            remove: moving && !next.team_id ? ['team_id', teamIndex.pk, teamIndex.sk] : undefined,
            condition,
          }),
        },
      },
    ]);
  } else {
    actions.push([
      'changed',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.monitor(current.id),
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: condition.values,
        },
      },
    ]);
  }

  // New heartbeat settings (re-)arm or remove the heartbeat item with the monitor.
  if (next && change.set?.heartbeat !== undefined) actions.push(['changed', heartbeatWrite(current.id, change.set.heartbeat)]);
  for (const item of change.with ?? []) actions.push(['changed', item]);

  const before = current.escalation_policy_id;
  const after = next ? next.escalation_policy_id : null;
  if (next && after && after !== before) actions.push(['policy_not_found', policyUse(after, scopeOf(next), 1)]);
  if (before && after !== before) actions.push(['changed', policyUse(before, scopeOf(current), -1)]);
  if (moving && after && after === before && !change.keepPolicy) actions.push(['policy_misfit', policyFits(after, scopeOf(next))]);

  // Every move is announced (its monitor's webhooks are listed with it); a move with incidents also waits for them.
  if (moving) {
    actions.push([
      'changed',
      outboxPut(
        'monitor.team_changed',
        { monitor_id: current.id, from_team_id: current.team_id, to_team_id: next.team_id, team_seq: next.team_seq, incident_count: current.incident_count },
        next.updated_at,
      ),
    ]);
  }
  return transactOutcome(actions);
}

/**
 * Removes what a deleted monitor leaves: subscribers, their claims and unsubscribe tokens, integrations
 * and their key lookups, alert dedup claims, its open-incident marker. (Its keys stop working at once,
 * before this runs: an event whose key names a monitor that is gone is refused.)
 */
export const purgeMonitorItems = (monitorId: string) =>
  purgeCollection(keys.monitorPartition(monitorId), { unsubscribe_token: keys.unsubscribeToken, unsubscribe_token_hash: keys.unsubscribeToken, key_hash: keys.integrationKey });
