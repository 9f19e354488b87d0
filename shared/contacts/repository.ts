/**
 * The contact items of a user, all in the user's own item collection (`USER#<uid>`), beside the account
 * (`PROFILE`): contact methods (`CM#`), their (type, address) claims (`CMADDR#`), the counter of both
 * limits (`CM-COUNT`), notification rules (`NR#`) and their (method, delay, urgency) claims (`NRKEY#`).
 * One Query of `CM` … `PROFILE` reads them all, the account included. SMS and voice methods also have a
 * lookup by number (`PHONE#<e164>`), written and deleted with them.
 *
 * Defaults: an account has its account e-mail as a verified method and a 0-minute rule on it for each
 * urgency. Their ids are name-based (the user's id), so they exist before they are written: readers
 * answer them while the counter is absent, and the first write (which finds the counter absent) writes
 * them, the counter on the condition that it still is.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, userItemSk } from '../platform/db/keys.js';
import { conditionFailure, queryAll, transactOutcome, type Item, type TransactItem } from '../platform/db/ops.js';
import { nameBasedUuid } from '../platform/ids.js';
import { CONTACT_METHOD_LIMIT, contactMethodItem, NOTIFICATION_RULE_LIMIT, notificationRuleItem, type ContactMethod, type NotificationRule } from './model.js';
import type { Urgency } from '../platform/vocabulary.js';

/** The namespace of the defaults' name-based ids. */
const DEFAULTS_NAMESPACE = '6f1c3d2e-8a4b-4e5f-9c7d-0b1a2c3d4e5f';

export const defaultMethodId = (userId: string) => nameBasedUuid(DEFAULTS_NAMESPACE, `contact-method:${userId}`);
export const defaultRuleId = (userId: string, urgency: Urgency) => nameBasedUuid(DEFAULTS_NAMESPACE, `notification-rule:${userId}:${urgency}`);

/** The defaults of an account: its e-mail, verified, with a 0-minute rule for each urgency. */
export function defaultsOf(userId: string, accountEmail: string, createdAt: string): { method: ContactMethod; rules: NotificationRule[] } {
  const method: ContactMethod = {
    id: defaultMethodId(userId),
    user_id: userId,
    method_type: 'email',
    address: accountEmail,
    name: null,
    verified: true,
    disabled: false,
    created_at: createdAt,
    rule_count: 2,
  };
  const rules = (['high', 'low'] as const).map((urgency) => ({ id: defaultRuleId(userId, urgency), user_id: userId, contact_method_id: method.id, delay_minutes: 0, urgency, created_at: createdAt }));
  return { method, rules };
}

export interface Contacts {
  /** Whether the items are written (the counter exists); if not, `methods` and `rules` are the defaults. */
  written: boolean;
  methods: ContactMethod[];
  rules: NotificationRule[];
  /** What the counter holds (the defaults' counts while unwritten). */
  counts: { methods: number; rules: number };
  /** The account's e-mail and creation time, when it has an account record. */
  account?: { email: string; created_at: string };
}

const byCreation = <T extends { created_at: string; id: string }>(a: T, b: T) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/**
 * Everything of a user's contacts in one consistent Query: the methods (the account e-mail first, then
 * by creation), the rules, the counter and the account. Unwritten defaults are answered, not written.
 */
export async function readContacts(userId: string, accountEmail?: string): Promise<Contacts> {
  const items = await queryAll({
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk },
    ExpressionAttributeValues: { ':pk': keys.account(userId)[attributes.pk], ':from': userItemSk.contactsFrom, ':to': userItemSk.account },
    ConsistentRead: true,
  });
  const account = items.find((item) => item[attributes.sk] === userItemSk.account);
  const counter = items.find((item) => item[attributes.sk] === userItemSk.contactCount);
  const accountView = account ? { email: String(account.email), created_at: String(account.created_at) } : undefined;
  if (!counter) {
    const email = accountView?.email ?? accountEmail ?? '';
    const { method, rules } = defaultsOf(userId, email, accountView?.created_at ?? '1970-01-01T00:00:00.000Z');
    return { written: false, methods: [method], rules, counts: { methods: 1, rules: 2 }, account: accountView };
  }
  const defaultId = defaultMethodId(userId);
  const methods = items
    .filter((item) => item.type === 'contact_method')
    .map((item) => contactMethodItem.parse(item))
    .sort((a, b) => Number(b.id === defaultId) - Number(a.id === defaultId) || byCreation(a, b));
  const rules = items.filter((item) => item.type === 'notification_rule').map((item) => notificationRuleItem.parse(item));
  return {
    written: true,
    methods,
    rules,
    counts: { methods: Number(counter.contact_method_count ?? 0), rules: Number(counter.notification_rule_count ?? 0) },
    account: accountView,
  };
}

/** The order rules are listed and applied in: high urgency first, then by delay, then by creation. */
export const ruleOrder = (a: NotificationRule, b: NotificationRule) =>
  (a.urgency === b.urgency ? 0 : a.urgency === 'high' ? -1 : 1) || a.delay_minutes - b.delay_minutes || byCreation(a, b);

/**
 * A person's contact methods (the account e-mail, verified, included even before anything is written),
 * for paging: one Query. `accountEmail` is the address of the default method when the user has no account record.
 */
export async function contactMethodsOf(userId: string, accountEmail: string): Promise<ContactMethod[]> {
  return (await readContacts(userId, accountEmail)).methods;
}

/** A person's contact methods and rules together (paging: one Query for both). */
export async function contactsOf(userId: string, accountEmail: string): Promise<{ methods: ContactMethod[]; rules: NotificationRule[] }> {
  const { methods, rules } = await readContacts(userId, accountEmail);
  return { methods, rules: rules.sort(ruleOrder) };
}

/** A person's notification rules (the two defaults included even before anything is written), for paging: one Query. */
export async function notificationRulesOf(userId: string, accountEmail: string): Promise<NotificationRule[]> {
  return (await readContacts(userId, accountEmail)).rules.sort(ruleOrder);
}

// ---- Writes -------------------------------------------------------------------------------------

const put = (Item: Item, condition = itemAbsent): TransactItem => ({ Put: { TableName: tableName(), Item, ConditionExpression: condition } });
const remove = (Key: Record<string, string>, condition?: string): TransactItem => ({ Delete: { TableName: tableName(), Key, ...(condition ? { ConditionExpression: condition } : {}) } });

export const methodRecord = (method: ContactMethod) => ({ ...keys.contactMethod(method.user_id, method.id), type: 'contact_method', ...method });
const addressClaim = (method: ContactMethod) => ({ ...keys.contactMethodAddress(method.user_id, method.method_type, method.address), type: 'contact_method_address', contact_method_id: method.id });
const phoneLookup = (method: ContactMethod) => ({
  ...keys.phoneContact(method.address, method.user_id, method.id),
  type: 'phone_contact',
  user_id: method.user_id,
  contact_method_id: method.id,
  method_type: method.method_type,
});
const ruleRecord = (rule: NotificationRule) => ({ ...keys.notificationRule(rule.user_id, rule.id), type: 'notification_rule', ...rule });
const ruleClaim = (rule: NotificationRule) => ({ ...keys.notificationRuleShape(rule.user_id, rule.contact_method_id, rule.delay_minutes, rule.urgency), type: 'notification_rule_key', rule_id: rule.id });

/** The items of a new method: the method, its address claim, its number's lookup (SMS and voice). */
const methodItems = (method: ContactMethod): { conflict: TransactItem[]; lookup: TransactItem[] } => ({
  conflict: [put(methodRecord(method)), put(addressClaim(method))],
  lookup: method.method_type === 'email' ? [] : [put(phoneLookup(method))],
});

/** The defaults, written (all absent, the counter first): `method` and `rules` as they are to be written, `counts` the counter's. */
function writeDefaults(userId: string, method: ContactMethod, rules: NotificationRule[], counts: { methods: number; rules: number }): (readonly ['raced', TransactItem])[] {
  return [
    ['raced', put({ ...keys.contactCount(userId), type: 'contact_count', contact_method_count: counts.methods, notification_rule_count: counts.rules })],
    ['raced', put(methodRecord(method))],
    ['raced', put(addressClaim(method))],
    ...rules.flatMap((rule) => [['raced', put(ruleRecord(rule))] as const, ['raced', put(ruleClaim(rule))] as const]),
  ];
}

/** The counter moved by `delta`, on the condition that it exists and (when given) is below a limit after the read. */
function count(userId: string, delta: { methods?: number; rules?: number }): TransactItem {
  const limits: string[] = [];
  if ((delta.methods ?? 0) > 0) limits.push('#methods < :method_limit');
  if ((delta.rules ?? 0) > 0) limits.push('#rules < :rule_limit');
  return {
    Update: {
      TableName: tableName(),
      Key: keys.contactCount(userId),
      UpdateExpression: 'SET #methods = #methods + :methods, #rules = #rules + :rules',
      ConditionExpression: [itemPresent, ...limits].join(' AND '),
      ExpressionAttributeNames: { '#methods': 'contact_method_count', '#rules': 'notification_rule_count' },
      ExpressionAttributeValues: {
        ':methods': delta.methods ?? 0,
        ':rules': delta.rules ?? 0,
        ...((delta.methods ?? 0) > 0 ? { ':method_limit': CONTACT_METHOD_LIMIT } : {}),
        ...((delta.rules ?? 0) > 0 ? { ':rule_limit': NOTIFICATION_RULE_LIMIT } : {}),
      },
    },
  };
}

/**
 * Adds a method with `extra` (its outbox event): `raced` when the contacts changed since `contacts` was
 * read (the defaults written meanwhile), `limit` past the method limit, `conflict` when the account has
 * that type and address already.
 */
export async function insertMethod(contacts: Contacts, method: ContactMethod, extra: TransactItem[]) {
  const userId = method.user_id;
  const base: (readonly ['raced' | 'limit', TransactItem])[] = contacts.written
    ? [['limit', count(userId, { methods: 1 })]]
    : writeDefaults(userId, contacts.methods[0]!, contacts.rules, { methods: 2, rules: 2 });
  const items = methodItems(method);
  return transactOutcome<'raced' | 'limit' | 'conflict'>([
    ...base,
    ...items.conflict.map((item) => ['conflict', item] as const),
    ...items.lookup.map((item) => ['conflict', item] as const),
    ...extra.map((item) => ['raced', item] as const),
  ]);
}

/** Writes the defaults with the default method changed (`method`): `raced` when they were written meanwhile. */
export async function insertDefaultsWith(contacts: Contacts, method: ContactMethod) {
  return transactOutcome(writeDefaults(method.user_id, method, contacts.rules, contacts.counts));
}

/** `name` and `disabled` of a written method; undefined when it does not exist. */
export async function updateMethod(userId: string, methodId: string, changes: { name?: string | null; disabled?: boolean }): Promise<ContactMethod | undefined> {
  const sets = Object.entries(changes).filter(([, value]) => value !== undefined);
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactMethod(userId, methodId),
        UpdateExpression: `SET ${sets.map(([name]) => `#${name} = :${name}`).join(', ')}`,
        ConditionExpression: itemPresent,
        ExpressionAttributeNames: Object.fromEntries(sets.map(([name]) => [`#${name}`, name])),
        ExpressionAttributeValues: Object.fromEntries(sets.map(([name, value]) => [`:${name}`, value])),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return contactMethodItem.parse(Attributes);
  } catch (error) {
    if (conditionFailure(error)) return undefined;
    throw error;
  }
}

/** Deletes a written method, its claims and its rules, and uncounts them: `changed` when it is gone or its rules changed since the read. */
export async function deleteMethod(method: ContactMethod, rules: NotificationRule[]) {
  const userId = method.user_id;
  return transactOutcome<'changed'>([
    [
      'changed',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.contactMethod(userId, method.id),
          ConditionExpression: `${itemPresent} AND (#rule_count = :rule_count${method.rule_count === 0 ? ' OR attribute_not_exists(#rule_count)' : ''})`,
          ExpressionAttributeNames: { '#rule_count': 'rule_count' },
          ExpressionAttributeValues: { ':rule_count': method.rule_count },
        },
      },
    ],
    ['changed', remove(keys.contactMethodAddress(userId, method.method_type, method.address))],
    ...(method.method_type === 'email' ? [] : [['changed', remove(keys.phoneContact(method.address, userId, method.id))] as const]),
    ...rules.flatMap((rule) => [
      ['changed', remove(keys.notificationRule(userId, rule.id), itemPresent)] as const,
      ['changed', remove(keys.notificationRuleShape(userId, rule.contact_method_id, rule.delay_minutes, rule.urgency))] as const,
    ]),
    ['changed', count(userId, { methods: -1, rules: -rules.length })],
  ]);
}

const ruleCountOnMethod = (userId: string, methodId: string, delta: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.contactMethod(userId, methodId),
    UpdateExpression: 'SET #rule_count = if_not_exists(#rule_count, :zero) + :delta',
    ConditionExpression: itemPresent,
    ExpressionAttributeNames: { '#rule_count': 'rule_count' },
    ExpressionAttributeValues: { ':zero': 0, ':delta': delta },
  },
});

/**
 * Adds a rule on one of the user's methods (the method counts it, on the condition that it still exists):
 * `raced` (the defaults written meanwhile), `method_gone`, `limit`, `conflict` (the same method, delay and urgency).
 */
export async function insertRule(contacts: Contacts, rule: NotificationRule) {
  const userId = rule.user_id;
  const base: (readonly ['raced' | 'limit' | 'method_gone', TransactItem])[] = contacts.written
    ? [
        ['limit', count(userId, { rules: 1 })],
        ['method_gone', ruleCountOnMethod(userId, rule.contact_method_id, 1)],
      ]
    : writeDefaults(userId, { ...contacts.methods[0]!, rule_count: 3 }, contacts.rules, { methods: 1, rules: 3 });
  return transactOutcome<'raced' | 'limit' | 'method_gone' | 'conflict'>([...base, ['conflict', put(ruleRecord(rule))], ['conflict', put(ruleClaim(rule))]]);
}

/** Deletes a rule (the defaults written without it, if they were not): `changed` when it is gone or the defaults were written meanwhile. */
export async function deleteRule(contacts: Contacts, rule: NotificationRule) {
  const userId = rule.user_id;
  if (!contacts.written) {
    const method = { ...contacts.methods[0]!, rule_count: 1 };
    return transactOutcome<'changed' | 'raced'>(writeDefaults(userId, method, contacts.rules.filter((other) => other.id !== rule.id), { methods: 1, rules: 1 }));
  }
  return transactOutcome<'changed'>([
    ['changed', remove(keys.notificationRule(userId, rule.id), itemPresent)],
    ['changed', remove(keys.notificationRuleShape(userId, rule.contact_method_id, rule.delay_minutes, rule.urgency))],
    ['changed', ruleCountOnMethod(userId, rule.contact_method_id, -1)],
    ['changed', count(userId, { rules: -1 })],
  ]);
}

/**
 * Verifies a method by its code, in one conditional write: the code's hash matches, it has not expired
 * and has fewer than the wrong tries that void it. Answers the method verified, or the item as it was.
 */
export async function verifyWithCode(userId: string, methodId: string, codeHash: string, now: string, maxAttempts: number): Promise<{ verified: ContactMethod } | { refused: Item | undefined }> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactMethod(userId, methodId),
        UpdateExpression: 'SET #verified = :true REMOVE #hash, #expires, #attempts',
        ConditionExpression: `${itemPresent} AND #verified = :false AND #hash = :hash AND #expires > :now AND #attempts < :max`,
        ExpressionAttributeNames: { '#verified': 'verified', '#hash': 'code_hash', '#expires': 'code_expires_at', '#attempts': 'code_attempts' },
        ExpressionAttributeValues: { ':true': true, ':false': false, ':hash': codeHash, ':now': now, ':max': maxAttempts },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { verified: contactMethodItem.parse(Attributes) };
  } catch (error) {
    const failed = conditionFailure(error);
    if (failed) return { refused: failed.item };
    throw error;
  }
}

/** Counts a wrong try against the pending code (while it is pending and not yet void). */
export async function countWrongTry(userId: string, methodId: string, maxAttempts: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactMethod(userId, methodId),
        UpdateExpression: 'SET #attempts = #attempts + :one',
        ConditionExpression: `${itemPresent} AND #verified = :false AND attribute_exists(#hash) AND #attempts < :max`,
        ExpressionAttributeNames: { '#verified': 'verified', '#hash': 'code_hash', '#attempts': 'code_attempts' },
        ExpressionAttributeValues: { ':one': 1, ':false': false, ':max': maxAttempts },
      }),
    );
  } catch (error) {
    if (!conditionFailure(error)) throw error;
  }
}

/**
 * A new code for an unverified method, with its event, in one transaction: on the condition that the
 * last one was sent at or before `sentBefore`. Answers `refused` with the method as it was otherwise.
 */
export async function renewCode(userId: string, methodId: string, code: { hash: string; sent_at: string; expires_at: string }, sentBefore: string, event: TransactItem) {
  return transactOutcome<'refused' | 'raced'>([
    [
      'refused',
      {
        Update: {
          TableName: tableName(),
          Key: keys.contactMethod(userId, methodId),
          UpdateExpression: 'SET #hash = :hash, #expires = :expires, #attempts = :zero, #sent = :sent',
          ConditionExpression: `${itemPresent} AND #verified = :false AND (attribute_not_exists(#sent) OR #sent <= :before)`,
          ExpressionAttributeNames: { '#verified': 'verified', '#hash': 'code_hash', '#expires': 'code_expires_at', '#attempts': 'code_attempts', '#sent': 'code_sent_at' },
          ExpressionAttributeValues: { ':hash': code.hash, ':expires': code.expires_at, ':zero': 0, ':sent': code.sent_at, ':before': sentBefore, ':false': false },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    ['raced', event],
  ]);
}
