/**
 * Who a phone number belongs to: the `PHONE#<e164>` lookup items (one per account and SMS/voice
 * contact method on the number, written with the method), and the contact methods they name. No scan:
 * one Query of the number's partition, one BatchGet of its methods.
 */
import { BatchGetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, keys } from '../platform/db/keys.js';
import { conditionFailure } from '../platform/db/ops.js';

export interface NumberHolder {
  user_id: string;
  contact_method_id: string;
  method_type: 'sms' | 'voice';
  verified: boolean;
  disabled: boolean;
}

/** A number holds few methods (one per account and type): 100 is a bound no real number reaches. */
const MAX_HOLDERS = 100;

/** Every SMS/voice contact method on the number, as it is now (a lookup whose method is gone is left out). */
export async function holdersOf(e164: string): Promise<NumberHolder[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': attributes.pk },
      ExpressionAttributeValues: { ':pk': keys.phonePartition(e164) },
      Limit: MAX_HOLDERS,
    }),
  );
  const lookups = Items.filter(
    (item): item is Record<string, string> =>
      typeof item.user_id === 'string' && typeof item.contact_method_id === 'string' && (item.method_type === 'sms' || item.method_type === 'voice'),
  );
  if (lookups.length === 0) return [];
  const { Responses = {} } = await db().send(
    new BatchGetCommand({
      RequestItems: { [tableName()]: { Keys: lookups.map((lookup) => keys.contactMethod(lookup.user_id!, lookup.contact_method_id!)), ConsistentRead: true } },
    }),
  );
  const methods = new Map((Responses[tableName()] ?? []).map((item) => [String(item[attributes.sk]), item]));
  return lookups.flatMap((lookup) => {
    const method = methods.get(`CM#${lookup.contact_method_id}`);
    if (!method || method.user_id !== lookup.user_id || method.address !== e164) return [];
    return [
      {
        user_id: lookup.user_id!,
        contact_method_id: lookup.contact_method_id!,
        method_type: lookup.method_type as 'sms' | 'voice',
        verified: method.verified === true,
        disabled: method.disabled === true,
      },
    ];
  });
}

/**
 * Sets `disabled` on the number's SMS methods, on every account having one; what changed. Each is
 * one conditional update (the method still exists, is still an SMS method on this number).
 */
export async function setSmsDisabled(e164: string, holders: readonly NumberHolder[], disabled: boolean): Promise<number> {
  let changed = 0;
  for (const holder of holders.filter((candidate) => candidate.method_type === 'sms')) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.contactMethod(holder.user_id, holder.contact_method_id),
          UpdateExpression: 'SET disabled = :disabled',
          ConditionExpression: `attribute_exists(${attributes.pk}) AND method_type = :sms AND address = :number`,
          ExpressionAttributeValues: { ':disabled': disabled, ':sms': 'sms', ':number': e164 },
        }),
      );
      changed++;
    } catch (error) {
      // Deleted or changed since the lookup was read: nothing of it to change.
      if (!conditionFailure(error)) throw error;
    }
  }
  return changed;
}
