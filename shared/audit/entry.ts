/**
 * The audit log's write side (issue 45 §5): one entry per accepted change to a team, its members, roles
 * and invitations, monitors, integrations, escalation policies, schedules (layers, overrides) and webhooks,
 * written as one more Put of the change's own transaction — so an entry exists exactly when the change does
 * (a refused change cancels its entry with it), and costs no call of its own.
 *
 * A service adds it in one line: `auditPut(caller, { action, resource, team_id, owner_id, changes })` in
 * the list of its transaction's items (`audited(…)` names it for `transactNamed`).
 */
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { timeOrderedUuid } from '../platform/ids.js';
import { tableName } from '../platform/db/client.js';
import { attributes, auditItem, ownerIndex } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';

/** Entries are kept a year (the table's TTL attribute). */
export const AUDIT_RETENTION_DAYS = 365;

/** What a secret (an integration key, a webhook's signing secret) shows as in an entry. */
export const SECRET_SHOWN = '[set]';

export type AuditResourceType =
  | 'team'
  | 'member'
  | 'invitation'
  | 'monitor'
  | 'integration'
  | 'escalation_policy'
  | 'schedule'
  | 'override'
  | 'webhook'
  | 'maintenance_window';

/** Every action an entry may name (docs/data-model.md lists them with what writes each). */
export const AUDIT_ACTIONS = [
  'team.created',
  'team.updated',
  'team.deleted',
  'member.added',
  'member.removed',
  'member.role_changed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'monitor.created',
  'monitor.updated',
  'monitor.deleted',
  'integration.created',
  'integration.deleted',
  'escalation_policy.created',
  'escalation_policy.updated',
  'escalation_policy.deleted',
  'schedule.created',
  'schedule.updated',
  'schedule.deleted',
  'override.created',
  'override.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'maintenance_window.created',
  'maintenance_window.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface FieldChange {
  from: unknown;
  to: unknown;
}

export interface AuditSpec {
  action: AuditAction;
  resource: { type: AuditResourceType; id: string; name: string | null };
  /** The team the resource belongs to at the change (null: none); its log lists the entry. */
  team_id: string | null;
  /** The resource's owner (a monitor's, a policy's, …; null for a team's own items): `GET /api/me/audit` lists it. */
  owner_id: string | null;
  changes?: Record<string, FieldChange>;
}

/**
 * The entry of a change to a resource shared the sharing protocol's way (a monitor, a policy, a schedule):
 * in its team's log (if any; `teamId` when it moves) and its owner's.
 */
export const sharedResourceAudit = (
  type: AuditResourceType,
  resource: { id: string; name: string; team_id: string | null; owner_id: string },
  action: AuditAction,
  changes?: Record<string, FieldChange>,
  teamId: string | null = resource.team_id,
): AuditSpec => ({ action, resource: { type, id: resource.id, name: resource.name }, team_id: teamId, owner_id: resource.owner_id, changes });

/** The entry as stored and answered (the stored item adds its keys, `type`, `owner_id` and `ttl`). */
export interface AuditEntry {
  id: string;
  at: string;
  actor: { user_id: string; user_name: string | null };
  action: AuditAction;
  resource: { type: AuditResourceType; id: string; name: string | null };
  team_id: string | null;
  changes: Record<string, FieldChange>;
  request_id: string | null;
}

/** The actor's name: the token's `name` claim, else its e-mail (no read of the account for the log). */
const actorName = (caller: Caller) => caller.name ?? caller.email ?? null;

/** The stored item of an entry (also what test fixtures seed). */
export function auditRecord(caller: Caller, spec: AuditSpec, at = clock.nowIso()): Record<string, unknown> {
  // Time-ordered: entries of one millisecond keep their order in the sort key (`<at>#<id>`).
  const id = timeOrderedUuid(new Date(at).getTime());
  const entry: AuditEntry = {
    id,
    at,
    actor: { user_id: caller.userId, user_name: actorName(caller) },
    action: spec.action,
    resource: spec.resource,
    team_id: spec.team_id,
    changes: spec.changes ?? {},
    request_id: caller.requestId ?? null,
  };
  // A team's resource lives in the team's log; one outside any team in its owner's.
  const partition = spec.team_id ? auditItem.teamPartition(spec.team_id) : auditItem.ownerPartition(spec.owner_id ?? caller.userId);
  return {
    [attributes.pk]: partition,
    [attributes.sk]: auditItem.entrySk(at, id),
    ...(spec.owner_id ? ownerIndex.audit(spec.owner_id, at, id) : {}),
    type: 'audit_entry',
    ...entry,
    owner_id: spec.owner_id,
    [attributes.ttl]: Math.floor(new Date(at).getTime() / 1000) + AUDIT_RETENTION_DAYS * 86_400,
  };
}

/** The entry's Put, for the change's own transaction (a fresh id: it never conflicts). */
export const auditPut = (caller: Caller, spec: AuditSpec, at?: string): TransactItem => ({
  Put: { TableName: tableName(), Item: auditRecord(caller, spec, at) },
});

/** `auditPut` named for `transactNamed` / `transactOutcome` (its name never answers: it has no condition). */
export const audited = (caller: Caller, spec: AuditSpec, at?: string) => ['audit', auditPut(caller, spec, at)] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The fields of `fields` that differ between `before` and `after`, `{from, to}` each (absent: null).
 * `secrets` are never shown: a changed secret is `{"from":"[set]","to":"[set]"}` (null while unset).
 */
export function changesOf(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  fields: readonly string[],
  secrets: readonly string[] = [],
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    const from = before?.[field] ?? null;
    const to = after[field] ?? null;
    if (before !== undefined && same(from, to)) continue;
    if (before === undefined && to === null) continue;
    changes[field] = secrets.includes(field)
      ? { from: from === null ? null : SECRET_SHOWN, to: to === null ? null : SECRET_SHOWN }
      : { from, to };
  }
  return changes;
}
