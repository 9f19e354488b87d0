/**
 * The audit log's read side (issue 45 §5; its write side, on a floor below every service that writes entries, is
 * `shared/audit/`): a team's log (`GET /api/teams/:id/audit`, its OWNER and ADMINs)
 * and the caller's own (`GET /api/me/audit`: changes to the resources they own), newest first, cursor-paged.
 *
 * A page is one Query of `limit + 2` items of one key range: `from`/`to` and the cursor bound the sort key
 * (`<at>#<id>`); `action` and `resource_id` are a FilterExpression over that range, so a page examines at most
 * `limit + 2` entries and may come back short (even empty) with a `next_cursor` when few of them match.
 */
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { decodeCursor, encodeCursor, type CursorBinding } from '../platform/api/pagination.js';
import { attributes, auditItem, keys, ownerIndex } from '../platform/db/keys.js';
import { getByKeys, type Item } from '../platform/db/ops.js';
import { equalities, pageOf, type PageWindow, type Source } from '../platform/db/pagination.js';
import { ForbiddenError, NotFoundError } from '../platform/errors.js';
import type { AuditEntry } from '../audit/entry.js';
import type { ListAuditQuery } from '../audit/model.js';
import { MANAGERS } from './access.js';
import { membershipItem } from './model.js';

const filterOf = (query: ListAuditQuery) =>
  equalities(
    { action: query.action },
    query.resource_id === undefined
      ? []
      : [{ expression: '#resource.#resource_id = :resource_id', names: { '#resource': 'resource', '#resource_id': 'id' }, values: { ':resource_id': query.resource_id } }],
  );

const entryView = (item: Item): AuditEntry => ({
  id: item.id as string,
  at: item.at as string,
  actor: item.actor as AuditEntry['actor'],
  action: item.action as AuditEntry['action'],
  resource: item.resource as AuditEntry['resource'],
  team_id: (item.team_id as string | null | undefined) ?? null,
  changes: (item.changes as AuditEntry['changes'] | undefined) ?? {},
  request_id: (item.request_id as string | null | undefined) ?? null,
});

async function page(source: Omit<Source, 'filter'>, binding: CursorBinding, query: ListAuditQuery) {
  const window: PageWindow = { limit: query.limit, order: 'desc', after: decodeCursor(query.cursor, binding), from: query.from, to: query.to };
  const read = await pageOf([{ ...source, filter: filterOf(query) }], window);
  // Past its year the TTL removes an entry, late: one not yet removed is not shown.
  const now = Math.floor(clock.now().getTime() / 1000);
  const live = read.items.filter((item) => typeof item[attributes.ttl] !== 'number' || (item[attributes.ttl] as number) > now);
  return { entries: live.map(entryView), next_cursor: read.next === undefined ? null : encodeCursor(read.next, binding) };
}

const bindingOf = (list: string, caller: Caller, query: ListAuditQuery): CursorBinding => ({
  list,
  callerId: caller.userId,
  filters: { from: query.from, to: query.to, action: query.action, resource_id: query.resource_id },
});

/**
 * A page of the team's log. The caller's role and the page are read at once (one round trip); the page
 * is shown only to the team's OWNER and ADMINs (a MEMBER: 403), the team is hidden from outsiders (404).
 */
export async function listTeamAudit(caller: Caller, teamId: string, query: ListAuditQuery) {
  const binding = bindingOf(`teams/${teamId}/audit`, caller, query);
  const [rights, entries] = await Promise.all([
    getByKeys({ team: keys.team(teamId), membership: keys.teamMembership(teamId, caller.userId) }),
    page({ partition: auditItem.teamPartition(teamId), prefix: auditItem.entryPrefix, consistent: true }, binding, query),
  ]);
  if (!rights.team || !rights.membership) throw new NotFoundError('Team not found');
  if (!MANAGERS.includes(membershipItem.parse(rights.membership).role)) throw new ForbiddenError('Not authorized');
  return entries;
}

/** A page of the changes to the caller's own resources (their partition of the owner index). */
export function listMyAudit(caller: Caller, query: ListAuditQuery) {
  return page(
    { index: ownerIndex, partition: ownerIndex.partition(caller.userId), prefix: ownerIndex.auditPrefix },
    bindingOf('me/audit', caller, query),
    query,
  );
}
