/**
 * IAM, locally: every DynamoDB call a function makes is checked against exactly what the CDK stack
 * grants it (`grantedTableActions`, `leadingKeys`, `indexes` and `indexLeadingKeys` of its description):
 * the action, an index (for a function confined to leading keys, only a Query of an index it names: its
 * table grant names the table only), and the partition keys: the table's, or for a Query of an index the
 * index's (`indexLeadingKeys`), as dynamodb:LeadingKeys reads them. A call outside the grant fails with AccessDeniedException, as it would on AWS, so
 * every test that runs a function through the local runtime also proves its least-privilege grant.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { grantedTableActions, table, type FunctionDescription } from '../../../shared/system.js';
import { findFunction, invocationScope } from './functions.js';
import { computedOnce } from './memo.js';

type Input = Record<string, unknown>;

/** A partition key value as the call carries it: plain (document client) or marshalled. */
const keyValue = (value: unknown) => (value && typeof value === 'object' && 'S' in value ? String((value as { S: unknown }).S) : String(value));
const pkOf = (item: unknown) => keyValue((item as Input | undefined)?.[table.partitionKey.name]);

/** A key condition's `name = :value` pairs, parsed once per expression (a function sends the same few again and again). */
const parsedConditions = new Map<string, [string, string][]>();
function equalities(expression: string): [string, string][] {
  // Bounded, should anything ever build its expressions from data.
  if (parsedConditions.size >= 1_000) parsedConditions.clear();
  return computedOnce(parsedConditions, expression, () => [...expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)].map(([, name, value]) => [name!, value!]));
}

/** The actions and partition keys of one request (transactions and batches item by item). */
function requested(command: string, input: Input): { action: string; pk?: string; index?: string }[] {
  const action = `dynamodb:${command.replace(/Command$/, '')}`;
  switch (command) {
    case 'GetItemCommand':
    case 'DeleteItemCommand':
    case 'UpdateItemCommand':
      return [{ action, pk: pkOf(input.Key) }];
    case 'PutItemCommand':
      return [{ action, pk: pkOf(input.Item) }];
    case 'QueryCommand': {
      const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
      const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
      // The partition key the request names: the table's, or the queried index's (what dynamodb:LeadingKeys reads).
      const keyName = typeof input.IndexName === 'string' ? table.globalIndexes.find((index) => index.name === input.IndexName)?.partitionKey.name : table.partitionKey.name;
      const equality = equalities(String(input.KeyConditionExpression ?? '')).find(([name]) => (names[name] ?? name) === keyName);
      return [{ action, pk: equality ? keyValue(values[equality[1]]) : undefined, index: input.IndexName as string | undefined }];
    }
    case 'BatchGetItemCommand':
      return Object.values((input.RequestItems ?? {}) as Record<string, { Keys: unknown[] }>).flatMap((request) => request.Keys.map((key) => ({ action, pk: pkOf(key) })));
    case 'BatchWriteItemCommand':
      return Object.values((input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>).flatMap((requests) =>
        requests.map((request) => ({ action, pk: pkOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key) })),
      );
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Record<string, Input>[]).map((item) => {
        const [kind, operation] = Object.entries(item)[0]!;
        const itemAction = { Put: 'dynamodb:PutItem', Update: 'dynamodb:UpdateItem', Delete: 'dynamodb:DeleteItem', ConditionCheck: 'dynamodb:ConditionCheckItem' }[kind] ?? kind;
        return { action: itemAction, pk: pkOf(operation.Item ?? operation.Key) };
      });
    case 'TransactGetItemsCommand':
      return ((input.TransactItems ?? []) as { Get: Input }[]).map((item) => ({ action: 'dynamodb:GetItem', pk: pkOf(item.Get.Key) }));
    default:
      return [{ action }];
  }
}

/** Why `fn` may not make this request, or undefined when its grant allows it. */
type Grantee = Pick<FunctionDescription, 'name' | 'table' | 'batchWrite' | 'leadingKeys' | 'indexes' | 'indexLeadingKeys'>;

/** Each function's granted actions, computed once. */
const granted = new WeakMap<Grantee, Set<string>>();
const actionsOf = (fn: Grantee) => computedOnce(granted, fn, () => new Set(grantedTableActions(fn)));

export function denial(fn: Grantee, command: string, input: Input): string | undefined {
  const actions = actionsOf(fn);
  for (const request of requested(command, input)) {
    const resource = request.index ? `index/${request.index}` : 'table';
    if (!actions.has(request.action)) return `${fn.name} is not authorized to perform ${request.action} on the ${resource}`;
    if (!fn.leadingKeys) continue;
    if (request.index) {
      if (request.action !== 'dynamodb:Query' || !fn.indexes?.includes(request.index as never)) {
        return `${fn.name} is not authorized to perform ${request.action} on ${resource} (its grant names the table${fn.indexes?.length ? ` and Query of ${fn.indexes.join(', ')}` : ''} only)`;
      }
      const prefixes = fn.indexLeadingKeys ?? [];
      if (request.pk === undefined || !prefixes.some((prefix) => request.pk!.startsWith(prefix))) {
        return `${fn.name} is not authorized to perform ${request.action} on ${resource} with leading key ${request.pk ?? '(none)'} (dynamodb:LeadingKeys ${prefixes.join(', ') || '(none)'})`;
      }
      continue;
    }
    if (request.pk === undefined || !fn.leadingKeys.some((prefix) => request.pk!.startsWith(prefix))) {
      return `${fn.name} is not authorized to perform ${request.action} with leading key ${request.pk ?? '(none)'} (dynamodb:LeadingKeys ${fn.leadingKeys.join(', ')})`;
    }
  }
  return undefined;
}

const enforced = new WeakSet<object>();

/** Checks every call made inside a function's invocation (calls outside one, e.g. tests' own, pass). */
export function enforceGrants(client: DynamoDBDocumentClient) {
  if (enforced.has(client)) return;
  enforced.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = invocationScope.getStore()?.functionName;
      const fn = name ? findFunction(name) : undefined;
      const reason = fn && denial(fn, String(context.commandName), args.input as Input);
      if (reason) throw Object.assign(new Error(`AccessDeniedException: ${reason}`), { name: 'AccessDeniedException', $fault: 'client' });
      return next(args);
    },
    { step: 'initialize', name: 'localIamGrants', priority: 'low' },
  );
}
