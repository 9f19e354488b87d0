/**
 * Who may be paged or on call as a person: accounts, and on a team's policy or schedule members of the
 * team now (issue 31; issue 41 finding 5). Read where a page resolves its people (at the page, or when a
 * signal opens its incident with a step due at once) and where a schedule renders its people.
 */
import { accountItem } from '../accounts/model.js';
import { attributes, keys } from '../platform/db/keys.js';
import { batchGet, type Item } from '../platform/db/ops.js';

export interface Person {
  name: string;
  email: string;
}

/**
 * The names and addresses of those of `userIds` who may be on call or paged: accounts, and with a `teamId`
 * members of that team now. One BatchGetItem (none for nobody).
 */
export async function eligiblePeople(userIds: string[], teamId: string | null): Promise<Map<string, Person>> {
  const people = new Map<string, Person>();
  if (userIds.length === 0) return people;
  const found = await batchGet(userIds.flatMap((userId) => [keys.account(userId), ...(teamId ? [keys.teamMembership(teamId, userId)] : [])]));
  const isAccount = (item: Item) => item[attributes.sk] === keys.account(String(item.id))[attributes.sk];
  const members = new Set(found.filter((item) => !isAccount(item)).map((item) => String(item.user_id)));
  for (const item of found.filter(isAccount)) {
    const account = accountItem.parse(item);
    if (!teamId || members.has(account.id)) people.set(account.id, { name: account.name, email: account.email });
  }
  return people;
}
