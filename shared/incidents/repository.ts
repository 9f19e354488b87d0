import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountItem, type Account } from '../accounts/model.js';
import { db, tableName } from '../db/client.js';
import { attributes, incidentItemSk, itemAbsent, itemPresent, keys, ownedBy, ownerIndex, type Key } from '../db/keys.js';
import { batchGet, conditionFailure, queryCollection, queryOwnerIndex, TransactionCancelled, transactWrite, updateExpression, type TransactItem } from '../db/ops.js';
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

const incidentAttributes = (incident: Incident) => ({
  ...keys.incident(incident.id),
  ...ownerIndex.incident(incident.owner_id, incident.started_at, incident.id),
  type: 'incident',
  ...incident,
  // null is stored as an absent attribute so that `if_not_exists` can set it once.
  resolved_at: incident.resolved_at ?? undefined,
  message: incident.message ?? undefined,
});

/** Writes a new incident together with `extra` items (outbox record, lock, escalation steps). */
export async function insertIncident(incident: Incident, extra: TransactItem[]): Promise<void> {
  await transactWrite([
    { Put: { TableName: tableName(), Item: incidentAttributes(incident), ConditionExpression: itemAbsent } },
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
 * False when it changed meanwhile: the caller reads again and retries.
 */
export async function writeIncidentChange(current: Incident, next: Incident, extra: TransactItem[]): Promise<boolean> {
  try {
    await transactWrite([
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
      ...extra,
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed') return false;
    throw error;
  }
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

/**
 * Applies changes other than the status (title, severity) to the owner's incident in one
 * conditional UpdateItem. Undefined when the incident does not exist or is not the owner's.
 * Status changes go through `writeIncidentChange`, with their event.
 */
export async function updateIncident(
  ownerId: string,
  incidentId: string,
  changes: Omit<UpdateIncidentInput, 'status'>,
  now: string,
): Promise<Incident | undefined> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.incident(incidentId),
        ...updateExpression({ set: { ...changes, updated_at: now }, condition: ownedBy(ownerId) }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return incidentItem.parse(Attributes);
  } catch (error) {
    if (conditionFailure(error)) return undefined;
    throw error;
  }
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
 * condition that the incident is the owner's and not yet acknowledged. Of N concurrent
 * calls exactly one succeeds.
 */
export async function acknowledgeIncident(
  ownerId: string,
  acknowledgement: Acknowledgement,
  now: string,
  extra: TransactItem[],
): Promise<AcknowledgeOutcome> {
  const owned = ownedBy(ownerId);
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName(),
          Key: keys.incident(acknowledgement.incident_id),
          ...updateExpression({
            set: { acknowledged: true, updated_at: now },
            condition: {
              expression: `${owned.expression} AND #acknowledged = :false`,
              names: { ...owned.names, '#acknowledged': 'acknowledged' },
              values: { ...owned.values, ':false': false },
            },
          }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.incidentAcknowledgement(acknowledgement.incident_id), type: 'acknowledgement', ...acknowledgement },
          ConditionExpression: itemAbsent,
        },
      },
      ...extra,
    ]);
    return 'acknowledged';
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    const [incidentReason, acknowledgementReason] = error.reasons;
    if (incidentReason?.code === 'ConditionalCheckFailed') {
      const old = incidentReason.item;
      if (!old || old.owner_id !== ownerId) return 'not_found';
      return 'already_acknowledged';
    }
    if (acknowledgementReason?.code === 'ConditionalCheckFailed') return 'already_acknowledged';
    throw error;
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
