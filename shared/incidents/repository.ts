import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountItem, type Account } from '../accounts/model.js';
import { db, tableName } from '../db/client.js';
import { attributes, incidentItemSk, itemAbsent, itemPresent, keys, monitorIndex, ownedBy, ownerIndex, teamIndex, type Key } from '../db/keys.js';
import {
  batchGet,
  conditionFailure,
  queryCollection,
  queryIndex,
  queryOwnerIndex,
  transactOutcome,
  updateExpression,
  type Item,
  type TransactItem,
} from '../db/ops.js';
import type { Source } from '../db/paging.js';
import {
  acknowledgementItem,
  escalationStepItem,
  incidentItem,
  type Acknowledgement,
  type EscalationStep,
  type Incident,
  type Severity,
  type UpdateIncidentInput,
} from './model.js';

/** Named transaction actions (see `transactOutcome`): a write's guards and extra items. */
export type Actions<N extends string = string> = readonly (readonly [N, TransactItem])[];

/** The incident as stored: its item with owner, monitor and (when shared) team index keys. */
export const incidentAttributes = (incident: Incident) => ({
  ...keys.incident(incident.id),
  ...ownerIndex.incident(incident.owner_id, incident.started_at, incident.id),
  ...monitorIndex.incident(incident.monitor_id, incident.started_at, incident.id),
  ...(incident.team_id ? teamIndex.incident(incident.team_id, incident.started_at, incident.id) : {}),
  type: 'incident',
  ...incident,
  // null is stored as an absent attribute so that `if_not_exists` can set it once.
  resolved_at: incident.resolved_at ?? undefined,
  message: incident.message ?? undefined,
  team_id: incident.team_id ?? undefined,
});

/**
 * Writes a new incident together with `extra` actions (guards, the monitor's incident count,
 * outbox record, marker, escalation steps); answers the first failed action's name.
 */
export async function insertIncident<N extends string>(incident: Incident, extra: Actions<N>) {
  return transactOutcome<N | 'conflict'>([
    ['conflict', { Put: { TableName: tableName(), Item: incidentAttributes(incident), ConditionExpression: itemAbsent } }],
    ...extra,
  ]);
}

export async function getIncident(incidentId: string): Promise<Incident | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.incident(incidentId), ConsistentRead: true }),
  );
  return Item ? incidentItem.parse(Item) : undefined;
}

/**
 * Replaces `current` by `next` (status, severity, title, resolved_at) with `extra` items in one
 * transaction, on the condition that the incident is still `current` (same status, title,
 * severity and `updated_at`), so two writers never both see the same status change.
 * `changed` when it changed meanwhile: the caller reads again and retries. `guard` (a write
 * through a team) fails with its own names.
 */
export async function writeIncidentChange<G extends string = never>(
  current: Incident,
  next: Incident,
  extra: TransactItem[],
  guard: Actions<G> = [],
) {
  return transactOutcome<G | 'changed'>([
    ...guard,
    [
      'changed',
      {
        Update: {
          TableName: tableName(),
          Key: keys.incident(current.id),
          ...updateExpression({
            set: { title: next.title, severity: next.severity, status: next.status, updated_at: next.updated_at, resolved_at: next.resolved_at ?? undefined },
            remove: next.resolved_at === null ? ['resolved_at'] : undefined,
            condition: {
              expression: `${itemPresent} AND #updated_at = :was_updated_at AND #status = :was_status AND #title = :was_title AND #severity = :was_severity`,
              names: { '#updated_at': 'updated_at', '#status': 'status', '#title': 'title', '#severity': 'severity' },
              values: {
                ':was_updated_at': current.updated_at,
                ':was_status': current.status,
                ':was_title': current.title,
                ':was_severity': current.severity,
              },
            },
          }),
        },
      },
    ],
    ...extra.map((item) => ['changed', item] as const),
  ]);
}

export interface IncidentCollection {
  incident: Incident;
  acknowledgement: Acknowledgement | undefined;
  escalationSteps: EscalationStep[];
}

/** The incident with its acknowledgement and escalation steps: one Query of its item collection. */
export async function getIncidentCollection(incidentId: string): Promise<IncidentCollection | undefined> {
  const items = await queryCollection(keys.incidentPartition(incidentId));
  let incident: Incident | undefined;
  let acknowledgement: Acknowledgement | undefined;
  const escalationSteps: EscalationStep[] = [];
  for (const item of items) {
    const sk = String(item[attributes.sk]);
    if (sk === incidentItemSk.incident) incident = incidentItem.parse(item);
    else if (sk === incidentItemSk.acknowledgement) acknowledgement = acknowledgementItem.parse(item);
    else if (sk.startsWith(incidentItemSk.escalationStepPrefix)) escalationSteps.push(escalationStepItem.parse(item));
  }
  if (!incident) return undefined;
  escalationSteps.sort((a, b) => a.step_order - b.step_order);
  return { incident, acknowledgement, escalationSteps };
}

/** The owner's incidents, newest `started_at` first: one Query on the owner index. */
export async function listIncidents(ownerId: string, severity: Severity | undefined): Promise<Incident[]> {
  const items = await queryOwnerIndex(ownerId, ownerIndex.incidentPrefix, { severity });
  return items.map((item) => incidentItem.parse(item));
}

/** Where a list page of incidents is read: one partition of the owner, team or monitor index (see `shared/db/paging.ts`). */
export const incidentSources = {
  owner: (ownerId: string): Source => ({ index: ownerIndex, partition: ownerIndex.partition(ownerId), prefix: ownerIndex.incidentPrefix }),
  team: (teamId: string): Source => ({ index: teamIndex, partition: teamIndex.partition(teamId), prefix: teamIndex.incidentPrefix }),
  monitor: (monitorId: string): Source => ({ index: monitorIndex, partition: monitorIndex.partition(monitorId), prefix: monitorIndex.incidentPrefix }),
};

/** Every incident of one monitor, newest first: one Query on the monitor index. */
export async function listMonitorIncidents(monitorId: string, severity?: Severity): Promise<Incident[]> {
  const items = await queryIndex(monitorIndex, monitorIndex.partition(monitorId), monitorIndex.incidentPrefix, { severity });
  return items.map((item) => incidentItem.parse(item));
}

/**
 * Applies changes other than the status (title, severity) to the owner's incident in one
 * conditional UpdateItem. Refused (not the owner's, or no such incident), it answers the
 * incident as it was. Status changes go through `writeIncidentChange`, with their event.
 */
export async function updateIncident(
  ownerId: string,
  incidentId: string,
  changes: Omit<UpdateIncidentInput, 'status'>,
  now: string,
): Promise<{ incident?: Incident; was?: Incident }> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.incident(incidentId),
        ...updateExpression({ set: { ...changes, updated_at: now }, condition: ownedBy(ownerId) }),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { incident: incidentItem.parse(Attributes) };
  } catch (error) {
    const failure = conditionFailure(error);
    if (!failure) throw error;
    return { was: failure.item ? incidentItem.parse(failure.item) : undefined };
  }
}

/** The same change made through a team: one transaction with the guard. */
export async function updateIncidentThrough<G extends string>(
  guard: Actions<G>,
  incidentId: string,
  changes: Omit<UpdateIncidentInput, 'status'>,
  now: string,
) {
  return transactOutcome<G | 'gone'>([
    ...guard,
    [
      'gone',
      {
        Update: {
          TableName: tableName(),
          Key: keys.incident(incidentId),
          ...updateExpression({ set: { ...changes, updated_at: now }, condition: { expression: itemPresent } }),
        },
      },
    ],
  ]);
}

/** The caller's account and the incident, in one BatchGetItem (strongly consistent). */
export async function getAccountAndIncident(
  userId: string,
  incidentId: string,
): Promise<{ account: Account | undefined; incident: Incident | undefined }> {
  const accountKey = keys.account(userId);
  const incidentKey = keys.incident(incidentId);
  const found = await batchGet([accountKey, incidentKey]);
  const byKey = (key: Key) => found.find((item) => item[attributes.pk] === key[attributes.pk]);
  const accountRecord = byKey(accountKey);
  const incidentRecord = byKey(incidentKey);
  return {
    account: accountRecord ? accountItem.parse(accountRecord) : undefined,
    incident: incidentRecord ? incidentItem.parse(incidentRecord) : undefined,
  };
}

export type AcknowledgeOutcome = 'acknowledged' | 'already_acknowledged' | 'not_found';

/**
 * Sets `acknowledged` and stores the acknowledgement record in one transaction, on the
 * condition that the incident exists and is not yet acknowledged, and on the caller's `guard`
 * (a write through a team). Of N concurrent calls exactly one succeeds.
 */
export async function acknowledgeIncident<G extends string>(
  acknowledgement: Acknowledgement,
  now: string,
  extra: TransactItem[],
  guard: Actions<G>,
): Promise<{ outcome: AcknowledgeOutcome | G; item?: Item }> {
  const result = await transactOutcome<G | 'incident' | 'acknowledgement'>([
    ...guard,
    [
      'incident',
      {
        Update: {
          TableName: tableName(),
          Key: keys.incident(acknowledgement.incident_id),
          ...updateExpression({
            set: { acknowledged: true, updated_at: now },
            condition: {
              expression: `${itemPresent} AND #acknowledged = :false`,
              names: { '#acknowledged': 'acknowledged' },
              values: { ':false': false },
            },
          }),
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
      return { outcome: result.item ? 'already_acknowledged' : 'not_found' };
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
