import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { accountItem, type Account } from '../accounts/model.js';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, filterIndex, filterPartition, incidentItemSk, itemAbsent, itemPresent, keys, monitorIndex, ownerIndex, teamIndex, teamSeqIs, type Scope } from '../platform/db/keys.js';
import {

  conditionFailure,
  getByKeys,
  queryCollection,
  queryIndex,
  transactOutcome,
  updateExpression,
  type Item,
  type TransactItem,
  PREFIX_END,
} from '../platform/db/ops.js';
import type { Source, SourceRead } from '../platform/db/pagination.js';
import { incidentFilterDimensions, type IncidentFilterDimension } from '../system.js';
import {
  acknowledgementItem,
  escalationStepItem,
  incidentItem,
  type Acknowledgement,
  type AlertDetails,
  type EscalationStep,
  type Incident,
} from './model.js';

/** Named transaction actions (see `transactOutcome`): a write's guards and extra items. */
export type Actions<N extends string = string> = readonly (readonly [N, TransactItem])[];

/** The value of each filter dimension for an incident (undefined: not in that index). */
const dimensionValues = (incident: Incident): Record<IncidentFilterDimension, string | undefined> => ({
  severity: incident.severity,
  status: incident.status,
  open: incident.status === 'RESOLVED' ? undefined : 'OPEN',
  acknowledged: String(incident.acknowledged),
});

/**
 * Every index key the incident's state implies: owner and monitor index always; team index
 * while shared; each filter index of each scope it is in. `remove` lists the keys it must not
 * have (a resolved incident leaves the open indexes, an unshared one the team's).
 */
export function incidentIndexKeys(incident: Incident): { set: Record<string, string>; remove: string[] } {
  const set: Record<string, string> = {
    ...ownerIndex.incident(incident.owner_id, incident.started_at, incident.id),
    ...monitorIndex.incident(incident.monitor_id, incident.started_at, incident.id),
    ...(incident.team_id ? teamIndex.incident(incident.team_id, incident.started_at, incident.id) : {}),
  };
  const remove: string[] = incident.team_id ? [] : [teamIndex.pk, teamIndex.sk];
  const values = dimensionValues(incident);
  for (const [scope, scopeId] of [['owner', incident.owner_id], ['team', incident.team_id]] as const) {
    for (const dimension of incidentFilterDimensions) {
      const attribute = filterIndex(scope, dimension).pk;
      const value = values[dimension];
      if (scopeId && value !== undefined) set[attribute] = filterPartition(scope, scopeId, dimension, value);
      else remove.push(attribute);
    }
  }
  return { set, remove };
}

/** The incident as stored: its item with every index key it implies; its message is an item of its own. */
export const incidentAttributes = (incident: Incident) => {
  const { message: _message, alert_details: _details, ...fields } = incident;
  return {
    ...keys.incident(incident.id),
    ...incidentIndexKeys(incident).set,
    type: 'incident',
    ...fields,
    // null is stored as an absent attribute so that `if_not_exists` can set it once.
    resolved_at: incident.resolved_at ?? undefined,
    team_id: incident.team_id ?? undefined,
  };
};

/** The incident's message item (none without a message or an alert's details): neither is in an index or a list page. */
export const incidentMessageItem = (incident: Incident) =>
  incident.message === null && !incident.alert_details
    ? undefined
    : {
        ...keys.incidentMessage(incident.id),
        type: 'incident_message',
        ...(incident.message === null ? {} : { message: incident.message }),
        ...(incident.alert_details ? { alert_details: JSON.stringify(incident.alert_details) } : {}),
      };

/**
 * The incident's responders (issue 44: the list's `mine`): a string set of the people an escalation
 * step paged for it and of whoever acknowledged it, kept on the incident item (no index: `mine` is a
 * filter after the key condition, so a page stays O(page)). Set by the opening transaction for the
 * steps paged at once, added to by each later step's page and by the acknowledgement.
 */
export const RESPONDERS = 'responder_ids';

/** `update` (an Update's expression, names and values) also adding `userIds` to the incident's responders. */
export function addResponders<U extends { UpdateExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }>(
  update: U,
  userIds: readonly string[],
): U {
  if (userIds.length === 0) return update;
  return {
    ...update,
    UpdateExpression: `${update.UpdateExpression} ADD #responders :responders`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#responders': RESPONDERS },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':responders': new Set(userIds) },
  };
}

/**
 * Writes a new incident (and its message) together with `extra` actions (guards, the monitor's
 * incident count, outbox record, marker, escalation steps); answers the first failed action's name.
 */
export async function insertIncident<N extends string>(incident: Incident, extra: Actions<N>, responders: readonly string[] = []) {
  const message = incidentMessageItem(incident);
  const item = { ...incidentAttributes(incident), ...(responders.length ? { [RESPONDERS]: new Set(responders) } : {}) };
  return transactOutcome<N | 'conflict'>([
    ['conflict', { Put: { TableName: tableName(), Item: item, ConditionExpression: itemAbsent } }],
    ...(message ? [['conflict', { Put: { TableName: tableName(), Item: message } }] as const] : []),
    ...extra,
  ]);
}

/** The incident from its item and its message item, read together. */
export const withMessage = (incident: Item | undefined, message: Item | undefined): Incident | undefined =>
  incident ? incidentItem.parse({ ...incident, message: message?.message, alert_details: message?.alert_details }) : undefined;

/** The incident with its message: one strongly consistent BatchGetItem. */
export async function getIncident(incidentId: string): Promise<Incident | undefined> {
  const read = await getByKeys({ incident: keys.incident(incidentId), message: keys.incidentMessage(incidentId) });
  return withMessage(read.incident, read.message);
}

/**
 * The time a write of `incident` takes: now, or just after its last write if that is later (another
 * host's clock ahead). Every write of the incident item is conditioned on `updated_at` being older
 * than its own time, so writes commit in the order of their times, and so do the timeline entries
 * that carry them: the timeline's order is the order things happened in.
 */
export const writeInstant = (incident: Pick<Incident, 'updated_at'>): string =>
  new Date(Math.max(clock.now().getTime(), Date.parse(incident.updated_at) + 1)).toISOString();

/** `team_seq = :was_seq` (absent counts as 0): the incident still has the scope it was read with. */
const sameScope = (incident: Incident) => ({
  expression: teamSeqIs(incident.team_seq, ':was_seq'),
  values: { ':was_seq': incident.team_seq },
});

/**
 * Replaces `current` by `next` (status, severity, title, resolved_at) with `extra` items in one
 * transaction, on the condition that what the change depends on is still as read: the status (so
 * two writers never both make the same status change, and a timeline entry shows the status it
 * left), the severity and the acknowledgement (every filter-index key is derived from them), the
 * title (its entry, and the event's snapshot), the scope; and that no write with a later time
 * committed first (`updated_at < next.updated_at`, see `writeInstant`). Only what changes is
 * written, so notes, which change nothing else, rarely conflict with each other.
 * `changed` when it changed meanwhile: the caller reads again and retries. `guard` (a write
 * through a team) fails with its own names. A resolution also sets `last_resolved_at`, which a
 * reopening never clears (an acknowledge link sent before it stays dead).
 */
export async function writeIncidentChange<G extends string = never>(
  current: Incident,
  next: Incident,
  extra: TransactItem[],
  guard: Actions<G> = [],
) {
  return transactOutcome<G | 'changed'>([...guard, ['changed', incidentChangeUpdate(current, next)], ...extra.map((item) => ['changed', item] as const)]);
}

/** The Update of `writeIncidentChange` alone, for a transaction of another item's change that carries it (its failure: `changed`). */
export function incidentChangeUpdate(current: Incident, next: Incident): TransactItem {
  const indexKeys = incidentIndexKeys(next);
  const scope = sameScope(current);
  const retitled = next.title !== current.title;
  const resolving = next.status === 'RESOLVED' && current.status !== 'RESOLVED';
  return {
    Update: {
      TableName: tableName(),
      Key: keys.incident(current.id),
      ...updateExpression({
        set: {
          ...(retitled ? { title: next.title } : {}),
          severity: next.severity,
          status: next.status,
          updated_at: next.updated_at,
          resolved_at: next.resolved_at ?? undefined,
          ...(resolving ? { last_resolved_at: next.updated_at } : {}),
          ...indexKeys.set,
        },
        remove: [...(next.resolved_at === null ? ['resolved_at'] : []), ...indexKeys.remove],
        condition: {
          expression: `${itemPresent} AND #status = :was_status AND #severity = :was_severity AND #acknowledged = :was_acknowledged AND #title = :was_title AND #updated_at < :now AND ${scope.expression}`,
          names: { '#status': 'status', '#severity': 'severity', '#acknowledged': 'acknowledged', '#title': 'title', '#updated_at': 'updated_at' },
          values: {
            ':was_status': current.status,
            ':was_severity': current.severity,
            ':was_acknowledged': current.acknowledged,
            ':was_title': current.title,
            ':now': next.updated_at,
            ...scope.values,
          },
        },
      }),
    },
  };
}

export interface IncidentCollection {
  incident: Incident;
  acknowledgement: Acknowledgement | undefined;
  escalationSteps: EscalationStep[];
}

/** The incident with its acknowledgement and escalation steps: one Query of its item collection (not its timeline). */
export async function getIncidentCollection(incidentId: string): Promise<IncidentCollection | undefined> {
  const items = await queryCollection(keys.incidentPartition(incidentId), undefined, undefined, incidentItemSk.updatePrefix);
  let incident: Incident | undefined;
  let acknowledgement: Acknowledgement | undefined;
  const escalationSteps: EscalationStep[] = [];
  let message: Item | undefined;
  for (const item of items) {
    const sk = String(item[attributes.sk]);
    if (sk === incidentItemSk.incident) incident = incidentItem.parse(item);
    else if (sk === incidentItemSk.message) message = item;
    else if (sk === incidentItemSk.acknowledgement) acknowledgement = acknowledgementItem.parse(item);
    else if (sk.startsWith(incidentItemSk.escalationStepPrefix)) escalationSteps.push(escalationStepItem.parse(item));
  }
  if (!incident) return undefined;
  escalationSteps.sort((a, b) => a.step_order - b.step_order);
  const alertDetails = typeof message?.alert_details === 'string' ? (JSON.parse(message.alert_details) as AlertDetails) : undefined;
  return {
    incident: { ...incident, message: typeof message?.message === 'string' ? message.message : null, ...(alertDetails ? { alert_details: alertDetails } : {}) },
    acknowledgement,
    escalationSteps,
  };
}

/** The filters of an incident list, by dimension (undefined: not filtered). */
export type IncidentFilters = Partial<Record<IncidentFilterDimension, string>>;

/**
 * Where a scope's page of incidents is read: the scope's filter index of the first filter in
 * `incidentFilterDimensions` order that is set (open and status are the most selective), else the
 * scope index; the other filters apply after the key condition (see `shared/platform/db/pagination.ts`).
 */
export function incidentSource(scope: Scope, scopeId: string, filters: IncidentFilters): { source: Source; rest: IncidentFilters } {
  const dimension = (['open', 'status', 'acknowledged', 'severity'] as const).find((candidate) => filters[candidate] !== undefined);
  const rest = { ...filters };
  if (!dimension) {
    const index = scope === 'owner' ? ownerIndex : teamIndex;
    return { source: { index, partition: index.partition(scopeId), prefix: index.incidentPrefix }, rest };
  }
  delete rest[dimension];
  const index = filterIndex(scope, dimension);
  return { source: { index, partition: filterPartition(scope, scopeId, dimension, filters[dimension]!), prefix: ownerIndex.incidentPrefix }, rest };
}

/** Where a page of one monitor's incidents is read: the monitor index (every filter applies after the key condition). */
export const monitorIncidentSource = (monitorId: string): Source => ({
  index: monitorIndex,
  partition: monitorIndex.partition(monitorId),
  prefix: monitorIndex.incidentPrefix,
});

/** The incident item alone (no message): one strongly consistent GetItem. */
export async function getIncidentItem(incidentId: string): Promise<Incident | undefined> {
  const { incident } = await getByKeys({ incident: keys.incident(incidentId) });
  return incident ? incidentItem.parse(incident) : undefined;
}

/** Where a page of the incident's timeline is read: its item collection, from `UPDATE#`, oldest first. */
export const timelineSource = (incidentId: string): Source => ({
  partition: keys.incidentPartition(incidentId),
  prefix: incidentItemSk.updatePrefix,
  consistent: true,
});

/**
 * The incident item and the first page of its timeline, in one strongly consistent Query of its item
 * collection from the incident's own item on (`sk BETWEEN INCIDENT AND UPDATE#￿`): the incident, its
 * message (the one item sorting between the two, skipped here) and the entries, oldest first. What sorts
 * before the incident (`ACK`, `ESC#…`) is not read. At most `limit + 1` entries, so the page knows
 * whether there is more, as `readSource` does for a later page.
 */
export async function getIncidentAndFirstEntries(incidentId: string, limit: number): Promise<{ incident: Incident | undefined; read: SourceRead }> {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk },
      ExpressionAttributeValues: { ':pk': keys.incidentPartition(incidentId), ':low': incidentItemSk.incident, ':high': `${incidentItemSk.updatePrefix}${PREFIX_END}` },
      // The incident, its message, a page and one more entry.
      Limit: limit + 3,
      ConsistentRead: true,
    }),
  );
  let incident: Incident | undefined;
  const entries: Item[] = [];
  for (const item of page.Items ?? []) {
    const sk = String(item[attributes.sk]);
    if (sk === incidentItemSk.incident) incident = incidentItem.parse(item);
    else if (sk.startsWith(incidentItemSk.updatePrefix)) entries.push(item);
  }
  const last = page.LastEvaluatedKey ? String(page.LastEvaluatedKey[attributes.sk]) : undefined;
  // Stopped before any entry (it cannot with a page of at least one): the entries are all still to read.
  const frontier = last === undefined ? undefined : last.startsWith(incidentItemSk.updatePrefix) ? last : incidentItemSk.updatePrefix;
  return { incident, read: { items: entries, frontier, sortKey: attributes.sk } };
}

/** Every incident of one monitor, newest first: one Query on the monitor index. */
export async function listMonitorIncidents(monitorId: string): Promise<Incident[]> {
  const items = await queryIndex(monitorIndex, monitorIndex.partition(monitorId), monitorIndex.incidentPrefix);
  return items.map((item) => incidentItem.parse(item));
}

/** The caller's account and the incident (with its message), in one BatchGetItem (strongly consistent). */
export async function getAccountAndIncident(
  userId: string,
  incidentId: string,
): Promise<{ account: Account | undefined; incident: Incident | undefined }> {
  const read = await getByKeys({ account: keys.account(userId), incident: keys.incident(incidentId), message: keys.incidentMessage(incidentId) });
  return { account: read.account ? accountItem.parse(read.account) : undefined, incident: withMessage(read.incident, read.message) };
}

/** The `acknowledged` filter-index keys (owner and team scope) of the incident with `acknowledged` set to `value`. */
export const acknowledgedFilterKeys = (incident: Incident, value: boolean): Record<string, string> =>
  Object.fromEntries(
    Object.entries(incidentIndexKeys({ ...incident, acknowledged: value }).set).filter(([name]) =>
      (['owner', 'team'] as const).some((scope) => name === filterIndex(scope, 'acknowledged').pk),
    ),
  );

export type AcknowledgeOutcome = 'acknowledged' | 'already_acknowledged' | 'not_found' | 'resolved';

/**
 * Sets `acknowledged` and stores the acknowledgement record in one transaction, on the
 * condition that the incident exists and is not yet acknowledged, and on the caller's `guard`
 * (a write through a team), and that its status is still the one read (the timeline entry shows
 * it). Of N concurrent calls exactly one succeeds. `unresolvedSince`: also on the condition that
 * it has not been resolved since then, even if reopened (an acknowledge link dies with a resolution).
 */
export async function acknowledgeIncident<G extends string>(
  incident: Incident,
  acknowledgement: Acknowledgement,
  now: string,
  extra: TransactItem[],
  guard: Actions<G>,
  options: { unresolvedSince?: string } = {},
): Promise<{ outcome: AcknowledgeOutcome | G | 'rescoped'; item?: Item }> {
  // Only the acknowledged filter keys: the others follow status and severity, which a concurrent
  // change may have moved since the read (this write does not condition on them).
  const acknowledgedKeys = Object.fromEntries(
    Object.entries(incidentIndexKeys({ ...incident, acknowledged: true }).set).filter(([name]) =>
      (['owner', 'team'] as const).some((scope) => name === filterIndex(scope, 'acknowledged').pk),
    ),
  );
  const scope = sameScope(incident);
  const since = options.unresolvedSince;
  const result = await transactOutcome<G | 'incident' | 'acknowledgement'>([
    ...guard,
    [
      'incident',
      {
        Update: {
          TableName: tableName(),
          Key: keys.incident(acknowledgement.incident_id),
          // The acknowledger joins its responders (`mine` of the list, issue 44).
          ...addResponders(
            updateExpression({
              set: { acknowledged: true, updated_at: now, ...acknowledgedKeys },
              // The first acknowledgement, kept for reports (issue 45 §4): set once, never moved by a later one.
              setIfAbsent: {
                first_acknowledged_at: acknowledgement.acknowledged_at,
                first_acknowledged_by: acknowledgement.user_id,
                first_acknowledged_by_name: acknowledgement.user_name,
              },
              condition: {
                expression: `${itemPresent} AND #acknowledged = :false AND #status = :was_status AND #updated_at < :now AND ${scope.expression}${since ? ' AND (attribute_not_exists(last_resolved_at) OR last_resolved_at < :since)' : ''}`,
                names: { '#acknowledged': 'acknowledged', '#status': 'status', '#updated_at': 'updated_at' },
                values: { ':false': false, ':was_status': incident.status, ':now': now, ...scope.values, ...(since ? { ':since': since } : {}) },
              },
            }),
            [acknowledgement.user_id],
          ),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    [
      'acknowledgement',
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.incidentAcknowledgement(acknowledgement.incident_id), type: 'acknowledgement', ...acknowledgement },
          ConditionExpression: itemAbsent,
        },
      },
    ],
    ...extra.map((item) => ['acknowledgement', item] as const),
  ]);
  switch (result.outcome) {
    case 'ok':
      return { outcome: 'acknowledged' };
    case 'incident':
      if (!result.item) return { outcome: 'not_found' };
      if (result.item.acknowledged === true) return { outcome: 'already_acknowledged' };
      if (since && (result.item.status === 'RESOLVED' || String(result.item.last_resolved_at ?? '') >= since)) return { outcome: 'resolved' };
      // Re-scoped or changed since it was read: read again and retry.
      return { outcome: 'rescoped' };
    case 'acknowledgement':
      return { outcome: 'already_acknowledged' };
    default:
      return result as { outcome: G; item?: Item };
  }
}

/** Deletes a stale open-incident marker; a marker that already moved on is left alone. */
export async function releaseMarker(deletion: TransactItem): Promise<void> {
  try {
    await db().send(new DeleteCommand(deletion.Delete!));
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
}
