import { randomUUID } from 'node:crypto';
import { clock } from '../platform/clock.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../platform/errors.js';
import { policyNotFound } from '../escalation/service.js';
import type { Caller } from '../platform/caller.js';
import {
  accessRefusal,
  accessTo,
  allows,
  OPERATORS,
  READERS,
  pageOfScopes,
  shareRefusal,
  writeGuard,
} from '../teams/access.js';
import { deleteGuard, updateAccess, updateRefusal } from '../teams/sharing.js';
import type { Role } from '../teams/model.js';
import type { PageView } from '../platform/api/pagination.js';
import * as repository from './repository.js';
import { maintenanceUntil } from './maintenance.js';
import { identityOf } from '../accounts/service.js';
import { countMetric } from '../platform/observability/metrics.js';
import type { TransactItem } from '../platform/db/ops.js';
import { auditPut, type AuditSpec, changesOf, sharedResourceAudit } from '../audit/entry.js';
import {
  monitorItem,
  monitorView,
  type CreateMonitorInput,
  type ListMonitorsQuery,
  type Monitor,
  type MonitorView,
  type UpdateMonitorInput,
} from './model.js';

export const monitorNotFound = () => new NotFoundError('Monitor not found');

/** What a monitor's audit entry records (the integration keys are never part of the monitor). */
const AUDITED_FIELDS = ['name', 'failure_threshold', 'escalation_policy_id', 'team_id', 'heartbeat', 'urgency', 'ack_timeout_minutes'] as const;

/** A monitor's entry: in its team's log (if any) and its owner's. */
const monitorAudit = (monitor: Monitor, action: AuditSpec['action'], changes?: AuditSpec['changes'], teamId = monitor.team_id): AuditSpec =>
  sharedResourceAudit('monitor', monitor, action, changes, teamId);

/** The caller as a timeline names them (monitor writes read no account: the token's name). */
const actorOf = (caller: Caller) => ({ id: caller.userId, name: identityOf(caller, undefined).name });

/**
 * The writes that resolve a monitor's open missed-heartbeat incident when its heartbeat goes (turned
 * off, or the monitor deleted), carried by the monitor's own transaction; none when nothing is open.
 * The handlers pass `missedIncidentResolution` (`heartbeats/`, built on `incidents/` and `paging/`,
 * which import `monitors/`, never the other way).
 */
export type HeartbeatGone = (monitorId: string, actor: { id: string; name: string }, why: 'off' | 'monitor_deleted') => Promise<TransactItem[]>;

/**
 * The monitor, if the caller may see it (its owner, or any member of its team); `404 Monitor not
 * found` otherwise, exactly as for a monitor that never existed.
 */
async function visibleMonitor(caller: Caller, monitorId: string): Promise<{ monitor: Monitor; lastPingAt: string | null; until: string | null }> {
  // With its heartbeat's last ping: one BatchGetItem of both.
  const { monitor, lastPingAt } = await repository.getMonitorWithLastPing(monitorId);
  if (!monitor) throw monitorNotFound();
  // The caller's access and (shared with a team) the team's maintenance windows, read side by side.
  const [access, until] = await Promise.all([accessTo(caller.userId, monitor), maintenanceUntil([monitor])]);
  if (!allows(access, READERS)) throw monitorNotFound();
  return { monitor, lastPingAt, until: until.get(monitor.id) ?? null };
}

/**
 * For a write about a monitor (an incident, a subscriber): the guard actions the write's
 * transaction must carry. None for the owner; through the monitor's team, that the team exists
 * and the caller holds one of `roles` there. A monitor the caller cannot reach at all is 404.
 */
export function monitorWriteGuard(caller: Caller, monitor: Monitor | undefined, roles: readonly Role[] = OPERATORS) {
  return writeGuard(caller.userId, monitor, roles, monitorNotFound);
}

/**
 * What to answer for a thing of a monitor (a subscriber, an integration) that is not there, on a write
 * the caller asked for: its own 404 only to whoever may make that write; through the monitor's team, a
 * reader short of the role gets 403 Not authorized and anyone else the monitor's 404.
 */
export async function missingRefusal(caller: Caller, monitor: Monitor, guard: readonly unknown[], notFound: () => Error): Promise<Error> {
  if (guard.length > 0) {
    const access = await accessTo(caller.userId, monitor);
    if (!allows(access, READERS)) return monitorNotFound();
    if (!allows(access, OPERATORS)) return new ForbiddenError('Not authorized');
  }
  return notFound();
}

export async function createMonitor(caller: Caller, input: CreateMonitorInput): Promise<MonitorView> {
  const now = clock.nowIso();
  const monitor: Monitor = {
    id: randomUUID(),
    name: input.name,
    owner_id: caller.userId,
    failure_threshold: input.failure_threshold,
    escalation_policy_id: input.escalation_policy_id,
    team_id: input.team_id,
    heartbeat: input.heartbeat,
    urgency: input.urgency,
    ack_timeout_minutes: input.ack_timeout_minutes,
    maintenance: [],
    maintenance_version: 0,
    team_seq: 0,
    incident_count: 0,
    created_at: now,
    updated_at: now,
  };
  const audit = auditPut(caller, monitorAudit(monitor, 'monitor.created', changesOf(undefined, monitor, AUDITED_FIELDS)), now);
  const { outcome, item } = await repository.insertMonitor(monitor, caller.userId, audit);
  if (outcome === 'policy_not_found') throw policyNotFound();
  if (outcome === 'team_gone' || outcome === 'team_role') throw shareRefusal(outcome, item);
  if (outcome !== 'ok') throw new Error(`Unexpected conflict creating monitor ${monitor.id}`);
  // Shared with a team: its team's window may cover it at once.
  return monitorView(monitor, null, (await maintenanceUntil([monitor])).get(monitor.id) ?? null);
}

export async function getMonitor(caller: Caller, monitorId: string): Promise<MonitorView> {
  const { monitor, lastPingAt, until } = await visibleMonitor(caller, monitorId);
  return monitorView(monitor, lastPingAt, until);
}

/**
 * A page of the caller's own monitors and those of every team they belong to (or of one team), newest
 * first; the last pings of its heartbeat monitors in one more read (none without heartbeats).
 */
export async function listMonitors(caller: Caller, query: ListMonitorsQuery): Promise<PageView<MonitorView>> {
  const page = await pageOfScopes('monitors', caller.userId, query, repository.monitorSources, (item) => monitorItem.parse(item), (monitor) => monitor);
  const [pings, until] = await Promise.all([repository.lastPings(page.items), maintenanceUntil(page.items)]);
  return { ...page, items: page.items.map((monitor) => monitorView(monitor, pings.get(monitor.id) ?? null, until.get(monitor.id) ?? null)) };
}

/** The monitor's form after a write: its heartbeat's last ping read (one GetItem) when it has a heartbeat. */
async function writtenView(monitor: Monitor, maintenance?: Promise<Map<string, string | null>>): Promise<MonitorView> {
  const [pings, until] = await Promise.all([monitor.heartbeat ? repository.lastPings([monitor]) : new Map<string, string>(), maintenance ?? maintenanceUntil([monitor])]);
  return monitorView(monitor, pings.get(monitor.id) ?? null, until.get(monitor.id) ?? null);
}

const gaveUp = (monitorId: string) => (attempts: number) => `Monitor ${monitorId} kept changing; gave up after ${attempts} attempts`;

/**
 * Updates name, threshold, policy and team. The owner may do anything; through the team, OWNER,
 * ADMIN and MEMBER may update it, and OWNER and ADMIN may also move it out of the team. Moving
 * into a team needs OWNER, ADMIN or MEMBER there.
 */
export async function updateMonitor(caller: Caller, monitorId: string, changes: UpdateMonitorInput, heartbeatGone: HeartbeatGone): Promise<MonitorView> {
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new BadRequestError('No updates provided');
  }
  const { escalation_policy_id: policyId, team_id: teamId, ...fields } = changes;
  // Read first, always (the owner's plain update was one conditional UpdateItem before the audit log): the
  // entry's `from` values are the monitor as read, and its write is the transaction of the change.
  let current: Monitor | undefined = await repository.getMonitor(monitorId);
  let currentTeamGone = false;
  return retryOnConflict<MonitorView>(async () => {
    if (!current) throw monitorNotFound();
    const access = updateAccess(caller.userId, current, teamId, monitorNotFound, { ownerThroughTeam: false });
    const { owner, moving } = access;
    // Turning the heartbeat off resolves its open missed-heartbeat incident in the same transaction.
    const resolution = fields.heartbeat === null && current.heartbeat ? await heartbeatGone(current.id, actorOf(caller), 'off') : [];
    const next: Monitor = {
      ...current,
      ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
      escalation_policy_id: policyId === undefined ? current.escalation_policy_id : policyId,
      team_id: access.teamId,
      team_seq: moving ? current.team_seq + 1 : current.team_seq,
      updated_at: clock.nowIso(),
    };
    // Its team's maintenance windows (for `maintenance_until`), read beside the write.
    const maintenance = maintenanceUntil([next]);
    maintenance.catch(() => undefined);
    const { outcome, item } = await repository.changeMonitor({
      current,
      next,
      set: fields,
      callerId: caller.userId,
      through: access.through,
      currentTeamGone,
      with: resolution,
      // The entry goes to the team the monitor was in (a move is a change of that team's monitor) or, moved out, to where it goes.
      audit: auditPut(caller, monitorAudit(current, 'monitor.updated', changesOf(current, next, AUDITED_FIELDS), current.team_id ?? next.team_id), next.updated_at),
    });
    switch (outcome) {
      case 'ok':
        if (resolution.length > 0) countMetric('IncidentResolved');
        return writtenView(next, maintenance);
      case 'changed':
        current = await repository.getMonitor(monitorId);
        return undefined;
      case 'from_gone':
        // The team the monitor is in was deleted: its owner goes on without it; nobody else reaches it.
        if (!owner) throw monitorNotFound();
        currentTeamGone = true;
        return undefined;
      case 'policy_not_found':
        throw policyNotFound();
      case 'policy_misfit':
        throw new ValidationError([
          {
            field: 'escalation_policy_id',
            message: "The monitor's escalation policy cannot go with it to that team; choose one of the team's policies, one of the owner's, or null",
          },
        ]);
    }
    const refusal = updateRefusal(outcome, item, access, monitorNotFound);
    if (refusal) throw refusal;
    return undefined;
  }, gaveUp(monitorId));
}

/**
 * Gives a monitor of a deleted team back to its owner (`team_id` null), as it is: subscribers,
 * policy and incidents stay (the incidents follow it to its owner's scope).
 */
export async function returnToOwner(monitorId: string, teamId: string): Promise<void> {
  await retryOnConflict(async () => {
    const current = await repository.getMonitor(monitorId);
    if (!current || current.team_id !== teamId) return DONE;
    const next: Monitor = { ...current, team_id: null, team_seq: current.team_seq + 1, updated_at: clock.nowIso() };
    const { outcome } = await repository.changeMonitor({ current, next, callerId: current.owner_id, currentTeamGone: true, keepPolicy: true });
    return outcome === 'ok' ? DONE : undefined;
  }, gaveUp(monitorId));
}

/**
 * Deletes the monitor with its subscribers (its owner, or an OWNER or ADMIN of its team); its
 * incidents stay, as history, with the audience they had.
 */
export async function deleteMonitor(caller: Caller, monitorId: string, heartbeatGone: HeartbeatGone): Promise<void> {
  let currentTeamGone = false;
  await retryOnConflict(async () => {
    const current = await repository.getMonitor(monitorId);
    if (!current) throw monitorNotFound();
    const { owner, through } = deleteGuard(caller.userId, current, monitorNotFound);
    // Its heartbeat goes with it, and so does an open missed-heartbeat incident (resolved in the same transaction).
    const resolution = current.heartbeat ? await heartbeatGone(current.id, actorOf(caller), 'monitor_deleted') : [];
    const { outcome, item } = await repository.changeMonitor({
      current,
      callerId: caller.userId,
      through,
      currentTeamGone,
      with: resolution,
      audit: auditPut(caller, monitorAudit(current, 'monitor.deleted')),
    });
    if (outcome === 'ok') {
      if (resolution.length > 0) countMetric('IncidentResolved');
      await repository.purgeMonitorItems(monitorId);
      return DONE;
    }
    if (outcome === 'from_role') throw accessRefusal('team_role', item, monitorNotFound);
    if (outcome === 'from_gone') {
      if (!owner) throw monitorNotFound();
      currentTeamGone = true;
    }
    return undefined;
  }, gaveUp(monitorId));
}
