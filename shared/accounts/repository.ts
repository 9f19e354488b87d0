import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { itemAbsent, keys } from '../platform/db/keys.js';
import { TransactionCancelled, transactWrite } from '../platform/db/ops.js';
import { accountItem, type Account } from './model.js';

export async function getAccount(userId: string): Promise<Account | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.account(userId), ConsistentRead: true }),
  );
  return Item ? accountItem.parse(Item) : undefined;
}

/** The id of the account holding `email` (case-insensitive), if any: one GetItem. */
export async function findAccountIdByEmail(email: string): Promise<string | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.accountEmail(email), ConsistentRead: true }),
  );
  return typeof Item?.user_id === 'string' ? Item.user_id : undefined;
}

/**
 * Creates the account and claims its e-mail in one transaction. Returns false when the
 * e-mail is already claimed (by a concurrent or earlier sign-up).
 */
export async function insertAccount(account: Account): Promise<boolean> {
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.accountEmail(account.email), type: 'account_email', user_id: account.id },
          ConditionExpression: itemAbsent,
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.account(account.id), type: 'account', ...account },
          ConditionExpression: itemAbsent,
        },
      },
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed') {
      return false;
    }
    throw error;
  }
}
