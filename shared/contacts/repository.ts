/**
 * Reading a person's contact methods and notification rules (one Query of their partition, `CM#` to
 * `NR#…`). MINIMAL (seam helper's tree): the contacts helper's version wins at merge. Absent items:
 * the defaults (the account's e-mail, verified, and a 0-minute rule for each urgency), without writing.
 */
import { queryAll } from '../platform/db/ops.js';
import { attributes } from '../platform/db/keys.js';
import { defaultMethod, defaultRules, type ContactMethod, type NotificationRule } from './model.js';

/** The person's items from `CM#` to `NR#…` (methods, rules, and what sorts between: filtered by type): one Query. */
const contactItems = (userId: string) =>
  queryAll({
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk },
    ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':from': 'CM#', ':to': 'NR#\uffff' },
    ConsistentRead: true,
  });

const asMethod = (item: Record<string, unknown>): ContactMethod => ({
  id: String(item.id),
  user_id: String(item.user_id),
  method_type: item.method_type as ContactMethod['method_type'],
  address: String(item.address),
  name: typeof item.name === 'string' ? item.name : null,
  verified: item.verified === true,
  disabled: item.disabled === true,
  created_at: String(item.created_at),
});

const asRule = (item: Record<string, unknown>): NotificationRule => ({
  id: String(item.id),
  user_id: String(item.user_id),
  contact_method_id: String(item.contact_method_id),
  delay_minutes: Number(item.delay_minutes),
  urgency: item.urgency === 'low' ? 'low' : 'high',
  created_at: String(item.created_at),
});

/** A person's methods and rules, in one Query (the defaults when they never wrote any). */
export async function contactsOf(userId: string, accountEmail: string): Promise<{ methods: ContactMethod[]; rules: NotificationRule[] }> {
  const items = await contactItems(userId);
  const methods = items.filter((item) => item.type === 'contact_method').map(asMethod);
  const rules = items.filter((item) => item.type === 'notification_rule').map(asRule);
  // Materialized on the first write (with the defaults); until then, nothing of theirs is stored.
  if (methods.length === 0 && rules.length === 0) return { methods: [defaultMethod(userId, accountEmail)], rules: defaultRules(userId) };
  return { methods, rules };
}

export async function contactMethodsOf(userId: string, accountEmail: string): Promise<ContactMethod[]> {
  return (await contactsOf(userId, accountEmail)).methods;
}

export async function notificationRulesOf(userId: string, accountEmail: string): Promise<NotificationRule[]> {
  return (await contactsOf(userId, accountEmail)).rules;
}
