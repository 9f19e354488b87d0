/**
 * A person's short reply codes (`12` in "reply 12a to acknowledge"): one per open incident they were
 * paged for, the lowest free number, reused once the incident it named is resolved.
 *
 * NOTE (issue 43, phones helper): a minimal version per design43.md so that inbound replies can be
 * built and tested in parallel; the seam helper owns this module and their version wins at merge.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { itemAbsent, keys } from '../platform/db/keys.js';
import { TransactionCancelled, transactWrite } from '../platform/db/ops.js';
import { clock } from '../platform/clock.js';
import { getIncident } from './repository.js';

const read = async (key: Record<string, unknown>) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/** The open incident the person's code names; undefined when none (never allocated, or resolved since). */
export async function incidentForReplyCode(userId: string, code: number): Promise<string | undefined> {
  const item = await read(keys.replyCode(userId, code));
  const incidentId = typeof item?.incident_id === 'string' ? item.incident_id : undefined;
  if (!incidentId) return undefined;
  const incident = await getIncident(incidentId);
  return incident && incident.status !== 'RESOLVED' ? incidentId : undefined;
}

const MAX_CODE = 999;

/** The person's code for the incident, allocated once (the lowest free n ≥ 1), the same ever after. */
export async function replyCodeFor(userId: string, incidentId: string): Promise<number> {
  for (;;) {
    const held = await read(keys.replyCodeOf(incidentId, userId));
    if (typeof held?.code === 'number') return held.code;
    let code = 1;
    for (; code <= MAX_CODE; code++) {
      const slot = await read(keys.replyCode(userId, code));
      const named = typeof slot?.incident_id === 'string' ? slot.incident_id : undefined;
      if (!named) break;
      const incident = await getIncident(named);
      if (!incident || incident.status === 'RESOLVED') break;
    }
    if (code > MAX_CODE) throw new Error(`User ${userId} holds ${MAX_CODE} reply codes of open incidents`);
    const slot = await read(keys.replyCode(userId, code));
    const now = clock.nowIso();
    try {
      await transactWrite([
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.replyCode(userId, code), type: 'reply_code', incident_id: incidentId, allocated_at: now },
            // Absent, or still naming the resolved incident that was read.
            ...(slot
              ? { ConditionExpression: 'incident_id = :was', ExpressionAttributeValues: { ':was': slot.incident_id } }
              : { ConditionExpression: itemAbsent }),
          },
        },
        { Put: { TableName: tableName(), Item: { ...keys.replyCodeOf(incidentId, userId), type: 'reply_code_of', code }, ConditionExpression: itemAbsent } },
      ]);
      return code;
    } catch (error) {
      // A lost race (the slot taken, or the code allocated by another page meanwhile): read again.
      if (error instanceof TransactionCancelled && error.reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) continue;
      throw error;
    }
  }
}
