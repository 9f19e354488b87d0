/**
 * Issue 45 §1 — maintenance windows: while one covers a monitor, its signals open and count incidents
 * as usual but nothing pages and no subscriber is e-mailed (`paging/maintenance.ts` holds and releases
 * them). A window is a monitor's (`MONITOR#<id> / MAINT#<windowId>`) or a team's, covering every monitor
 * shared with the team (`TEAM#<id> / MAINT#<windowId>`), kept 30 days past its end (TTL).
 *
 * Whether a monitor is in a window now is read with what the paths read anyway: the windows not yet
 * ended are summarised on the monitor item itself (`maintenance`, with `maintenance_version`) and, for a
 * team's, on the team's summary item (`TEAM#<id> / MAINTENANCE`), written in the transaction of each
 * window's change on the condition that the summary is as read.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../platform/zod.js';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemPresent, keys } from '../platform/db/keys.js';
import { getByKeys, PREFIX_END, transactOutcome, type Item, type TransactItem } from '../platform/db/ops.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { outboxPut } from '../platform/events/outbox.js';
import { described, Id, Timestamp, Text } from '../platform/api/common.js';
import { BadRequestError, NotFoundError } from '../platform/errors.js';
import { timeOrderedUuid } from '../platform/ids.js';
import { auditPut } from '../audit/entry.js';
import { accessRefusal, accessTo, allows, OPERATORS, READERS, teamGuard, type GuardOutcome } from '../teams/access.js';
import { monitorItem, type Monitor } from './model.js';
import { getMonitor } from './repository.js';

export const MAX_WINDOW_DAYS = 7;
/** Windows not yet ended, per monitor and per team (the summary stays small: what every signal reads). */
export const MAX_OPEN_WINDOWS = 50;
export const WINDOW_LIMIT_TEXT = `Maintenance window limit reached: at most ${MAX_OPEN_WINDOWS} current and future windows per monitor or team`;
/** Ended windows stay listed (and stored) this long. */
export const ENDED_KEPT_DAYS = 30;
const DAY = 86_400_000;
/** "Now" as the caller's clock saw it: a start up to a minute ago counts as now. */
const NOW_TOLERANCE_MS = 60_000;

const Instant = described(
  z.pipe(
    z.iso.datetime({ offset: true }),
    z.transform((value) => new Date(value).toISOString()),
  ),
  { example: '2026-12-01T22:00:00Z' },
);

export const createWindowInput = described(
  z
    .strictObject({
      starts_at: Instant,
      ends_at: Instant,
      reason: z._default(z.nullable(Text({ max: 500 })), null),
    })
    .check(
      z.superRefine((input, context) => {
        const now = clock.now().getTime();
        const starts = Date.parse(input.starts_at);
        const ends = Date.parse(input.ends_at);
        if (starts < now - NOW_TOLERANCE_MS) context.addIssue({ code: 'custom', path: ['starts_at'], message: 'starts_at must not be in the past' });
        if (starts > now + 366 * DAY) context.addIssue({ code: 'custom', path: ['starts_at'], message: 'starts_at must be within a year from now' });
        if (ends <= starts) context.addIssue({ code: 'custom', path: ['ends_at'], message: 'ends_at must be after starts_at' });
        else if (ends - starts > MAX_WINDOW_DAYS * DAY) context.addIssue({ code: 'custom', path: ['ends_at'], message: 'A maintenance window lasts at most 7 days' });
      }),
    ),
  {
    id: 'CreateMaintenanceWindow',
    description: 'starts_at: now or up to a year ahead; ends_at after it, at most 7 days later',
    example: { starts_at: '2026-12-01T22:00:00Z', ends_at: '2026-12-01T23:00:00Z', reason: 'Database upgrade' },
  },
);
export type CreateWindowInput = z.output<typeof createWindowInput>;

export const windowParams = z.strictObject({ id: z.uuid(), windowId: z.uuid() });

export const windowItem = z.object({
  id: z.string(),
  monitor_id: z.nullable(z.string()),
  team_id: z.nullable(z.string()),
  starts_at: z.string(),
  ends_at: z.string(),
  reason: z.nullable(z.string()),
  created_by: z.string(),
  created_at: z.string(),
});
export type MaintenanceWindow = z.output<typeof windowItem>;

export const MaintenanceWindowBody = described(
  z.strictObject({
    id: Id,
    monitor_id: described(z.nullable(Id), { description: "The monitor's window; null: a team's, covering every monitor shared with the team" }),
    team_id: described(z.nullable(Id), { description: "A team's window: the team; a monitor's: null" }),
    starts_at: Timestamp,
    ends_at: described(Timestamp, { description: 'When it ends (or ended: a deleted window ends when it was deleted)' }),
    reason: z.nullable(z.string()),
    created_by: Id,
    created_at: Timestamp,
  }),
  { id: 'MaintenanceWindow' },
);

export const windowView = (window: MaintenanceWindow): z.output<typeof MaintenanceWindowBody> => ({
  id: window.id,
  monitor_id: window.monitor_id,
  team_id: window.team_id,
  starts_at: window.starts_at,
  ends_at: window.ends_at,
  reason: window.reason,
  created_by: window.created_by,
  created_at: window.created_at,
});

/** A window not yet ended, as summarised on its monitor or team. */
export const windowSpan = z.object({ id: z.string(), starts_at: z.string(), ends_at: z.string() });
export type WindowSpan = z.output<typeof windowSpan>;

/** The summary's list as stored (absent: none). */
export const spansOf = (value: unknown): WindowSpan[] => (Array.isArray(value) ? value.map((span) => windowSpan.parse(span)) : []);

/**
 * The window holding pages at `at`, and when maintenance ends: the end of the windows that cover `at`
 * and of those that overlap or touch them, one after another. Null outside every window.
 */
export function coverage(spans: readonly WindowSpan[], at: string): { window_id: string; until: string } | null {
  const covering = spans.filter((span) => span.starts_at <= at && at < span.ends_at).sort((a, b) => (a.ends_at < b.ends_at ? 1 : -1));
  const first = covering[0];
  if (!first) return null;
  let until = first.ends_at;
  for (let grew = true; grew; ) {
    grew = false;
    for (const span of spans) {
      if (span.starts_at <= until && span.ends_at > until) {
        until = span.ends_at;
        grew = true;
      }
    }
  }
  return { window_id: first.id, until };
}

/** A monitor's maintenance: its own windows' summary and its team's (read beside it). */
export const monitorSpans = (monitor: Monitor, teamSummary: Item | undefined): WindowSpan[] => [...monitor.maintenance, ...spansOf(teamSummary?.windows)];

/** The team's summary item's key (its windows not yet ended). */
export const teamMaintenanceKey = (teamId: string) => ({ [attributes.pk]: keys.teamPartition(teamId), [attributes.sk]: 'MAINTENANCE' });
const windowKey = (scope: Scope, windowId: string) => ({ [attributes.pk]: partitionOf(scope), [attributes.sk]: `MAINT#${windowId}` });
/** An incident held by maintenance, findable from the monitor and (shared) its team: what ending a window releases. */
export const heldKey = (scope: Scope, incidentId: string) => ({ [attributes.pk]: partitionOf(scope), [attributes.sk]: `HELD#${incidentId}` });

export type Scope = { kind: 'monitor'; id: string } | { kind: 'team'; id: string };
const partitionOf = (scope: Scope) => (scope.kind === 'monitor' ? keys.monitorPartition(scope.id) : keys.teamPartition(scope.id));

/** The team's summary, read (one GetItem through BatchGetItem); none without a team. */
export async function teamSummary(teamId: string | null): Promise<Item | undefined> {
  if (!teamId) return undefined;
  return (await getByKeys({ summary: teamMaintenanceKey(teamId) })).summary;
}

/** `maintenance_until` of each monitor at `at` (a list page): one read of their teams' summaries. */
export async function maintenanceUntil(monitors: readonly Monitor[], at = clock.nowIso()): Promise<Map<string, string | null>> {
  const teams = [...new Set(monitors.flatMap((monitor) => (monitor.team_id ? [monitor.team_id] : [])))];
  const summaries = teams.length > 0 ? await getByKeys(Object.fromEntries(teams.map((teamId) => [teamId, teamMaintenanceKey(teamId)]))) : {};
  return new Map(
    monitors.map((monitor) => [monitor.id, coverage(monitorSpans(monitor, monitor.team_id ? (summaries as Record<string, Item | undefined>)[monitor.team_id] : undefined), at)?.until ?? null]),
  );
}

const windowNotFound = () => new NotFoundError('Maintenance window not found');
const monitorNotFound = () => new NotFoundError('Monitor not found');
const teamNotFound = () => new NotFoundError('Team not found');
const gaveUp = (what: string) => (attempts: number) => `${what} kept changing; gave up after ${attempts} attempts`;

/** `attribute = value`, where absent counts as 0. */
const versionIs = (value: number) => (value === 0 ? '(attribute_not_exists(maintenance_version) OR maintenance_version = :was_version)' : 'maintenance_version = :was_version');

/** The summary's write: the windows not yet ended at `now` after the change, on the condition that it is as read. */
function summaryUpdate(scope: Scope, spans: WindowSpan[], version: number, now: string): TransactItem {
  const kept = spans.filter((span) => span.ends_at > now);
  if (scope.kind === 'monitor') {
    return {
      Update: {
        TableName: tableName(),
        Key: keys.monitor(scope.id),
        UpdateExpression: 'SET maintenance = :spans, maintenance_version = :version',
        ConditionExpression: `${itemPresent} AND ${versionIs(version)}`,
        ExpressionAttributeValues: { ':spans': kept, ':version': version + 1, ':was_version': version },
      },
    };
  }
  return {
    Update: {
      TableName: tableName(),
      Key: teamMaintenanceKey(scope.id),
      UpdateExpression: 'SET #type = :type, windows = :spans, maintenance_version = :version',
      ConditionExpression: versionIs(version),
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': 'team_maintenance', ':spans': kept, ':version': version + 1, ':was_version': version },
    },
  };
}

/**
 * Every item of one window's change, assembled in this one place (the window, its scope's summary, the
 * event of an ending); an audit entry of the change is appended here.
 */
function windowChangeItems(change: {
  scope: Scope;
  window: MaintenanceWindow;
  spans: WindowSpan[];
  version: number;
  now: string;
  ended: boolean;
  /** Who changed it, and the log it goes in (issue 45 §5): a monitor's window in its team's log (else its owner's), a team's window in the team's. */
  audit: { caller: Caller; team_id: string | null; owner_id: string | null; was?: MaintenanceWindow };
}): TransactItem[] {
  const { scope, window, now } = change;
  // Counted on the summary as read, which the write conditions on (its version): never over the limit.
  if (!change.ended && change.spans.filter((span) => span.ends_at > now).length > MAX_OPEN_WINDOWS) throw new BadRequestError(WINDOW_LIMIT_TEXT);
  const ttl = Math.ceil((Date.parse(window.ends_at) + ENDED_KEPT_DAYS * DAY) / 1000);
  return [
    summaryUpdate(scope, change.spans, change.version, now),
    { Put: { TableName: tableName(), Item: { ...windowKey(scope, window.id), type: 'maintenance_window', ...window, [attributes.ttl]: ttl } } },
    ...(change.ended ? [outboxPut('maintenance_window.ended', { window: { id: window.id, monitor_id: window.monitor_id, team_id: window.team_id }, ended_at: window.ends_at }, now)] : []),
    auditPut(
      change.audit.caller,
      {
        action: change.ended ? 'maintenance_window.deleted' : 'maintenance_window.created',
        resource: { type: 'maintenance_window', id: window.id, name: window.reason ?? null },
        team_id: change.audit.team_id,
        owner_id: change.audit.owner_id,
        changes: change.ended
          ? { ends_at: { from: change.audit.was?.ends_at ?? null, to: window.ends_at } }
          : { starts_at: { from: null, to: window.starts_at }, ends_at: { from: null, to: window.ends_at }, reason: { from: null, to: window.reason ?? null } },
      },
      now,
    ),
  ];
}

/** A monitor's window: whoever may update the monitor (its owner; OWNER, ADMIN, MEMBER of its team), in the write's transaction. */
export async function createMonitorWindow(caller: Caller, monitorId: string, input: CreateWindowInput): Promise<MaintenanceWindow> {
  return retryOnConflict(async () => {
    const monitor = await getMonitor(monitorId);
    if (!monitor) throw monitorNotFound();
    const guard = monitor.owner_id === caller.userId ? [] : monitor.team_id ? teamGuard(monitor.team_id, caller.userId, OPERATORS) : undefined;
    if (!guard) throw monitorNotFound();
    const now = clock.nowIso();
    const window: MaintenanceWindow = { id: timeOrderedUuid(), monitor_id: monitor.id, team_id: null, ...input, created_by: caller.userId, created_at: now };
    const spans = [...monitor.maintenance, { id: window.id, starts_at: window.starts_at, ends_at: window.ends_at }];
    const audit = { caller, team_id: monitor.team_id ?? null, owner_id: monitor.owner_id };
    const items = windowChangeItems({ scope: { kind: 'monitor', id: monitor.id }, window, spans, version: monitor.maintenance_version, now, ended: false, audit });
    const { outcome, item } = await transactOutcome<GuardOutcome | 'changed'>([...guard, ...items.map((entry) => ['changed', entry] as const)]);
    if (outcome === 'ok') return window;
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    return undefined;
  }, gaveUp(`Monitor ${monitorId}`));
}

/** A team's window, over every monitor shared with the team: its OWNER, ADMIN, MEMBER. */
export async function createTeamWindow(caller: Caller, teamId: string, input: CreateWindowInput): Promise<MaintenanceWindow> {
  return retryOnConflict(async () => {
    const summary = await teamSummary(teamId);
    const version = typeof summary?.maintenance_version === 'number' ? summary.maintenance_version : 0;
    const now = clock.nowIso();
    const window: MaintenanceWindow = { id: timeOrderedUuid(), monitor_id: null, team_id: teamId, ...input, created_by: caller.userId, created_at: now };
    const spans = [...spansOf(summary?.windows), { id: window.id, starts_at: window.starts_at, ends_at: window.ends_at }];
    const items = windowChangeItems({ scope: { kind: 'team', id: teamId }, window, spans, version, now, ended: false, audit: { caller, team_id: teamId, owner_id: null } });
    const { outcome, item } = await transactOutcome<GuardOutcome | 'changed'>([...teamGuard(teamId, caller.userId, OPERATORS), ...items.map((entry) => ['changed', entry] as const)]);
    if (outcome === 'ok') return window;
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, teamNotFound);
    return undefined;
  }, gaveUp(`Team ${teamId}`));
}

async function queryWindows(scope: Scope): Promise<MaintenanceWindow[]> {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      // The windows as a range of the partition (a prefix read as a range: no `begins_with`).
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk },
      ExpressionAttributeValues: { ':pk': partitionOf(scope), ':from': 'MAINT#', ':to': `MAINT#${PREFIX_END}` },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => windowItem.parse(item));
}

/**
 * The monitor's windows and its team's: current and future first (by start), then those ended in the
 * last 30 days (latest end first). Whoever may see the monitor. A Query of each partition's windows
 * (bounded: ended ones expire after 30 days).
 */
export async function listMonitorWindows(caller: Caller, monitorId: string): Promise<MaintenanceWindow[]> {
  const monitor = await getMonitor(monitorId);
  if (!monitor || !allows(await accessTo(caller.userId, monitor), READERS)) throw monitorNotFound();
  const scopes: Scope[] = [{ kind: 'monitor', id: monitor.id }, ...(monitor.team_id ? [{ kind: 'team', id: monitor.team_id } as const] : [])];
  const windows = (await Promise.all(scopes.map(queryWindows))).flat();
  const now = clock.nowIso();
  const since = new Date(Date.parse(now) - ENDED_KEPT_DAYS * DAY).toISOString();
  const open = windows.filter((window) => window.ends_at > now).sort((a, b) => (a.starts_at < b.starts_at ? -1 : a.starts_at > b.starts_at ? 1 : 0));
  const ended = windows.filter((window) => window.ends_at <= now && window.ends_at > since).sort((a, b) => (a.ends_at < b.ends_at ? 1 : -1));
  return [...open, ...ended];
}

/**
 * Ends a window now (one not yet started: it never starts): the monitor's, by whoever may update the
 * monitor; its team's, by the team's OWNER, ADMIN, MEMBER. The `maintenance_window.ended` event releases
 * the incidents it held (`paging/maintenance.ts`).
 */
export async function endMonitorWindow(caller: Caller, monitorId: string, windowId: string): Promise<void> {
  await retryOnConflict(async () => {
    const monitor = await getMonitor(monitorId);
    if (!monitor) throw monitorNotFound();
    const own = monitor.owner_id === caller.userId;
    const access = own ? { via: 'owner' as const } : await accessTo(caller.userId, monitor);
    if (!allows(access, READERS)) throw monitorNotFound();
    const read = await getByKeys({
      mine: windowKey({ kind: 'monitor', id: monitor.id }, windowId),
      ...(monitor.team_id ? { team: windowKey({ kind: 'team', id: monitor.team_id }, windowId), summary: teamMaintenanceKey(monitor.team_id) } : {}),
    } as Record<string, Record<string, string>>);
    const found = read.mine ?? read.team;
    if (!found) throw windowNotFound();
    const window = windowItem.parse(found);
    const now = clock.nowIso();
    if (window.ends_at <= now) throw windowNotFound();
    const scope: Scope = read.mine ? { kind: 'monitor', id: monitor.id } : { kind: 'team', id: monitor.team_id! };
    // The monitor's window: its update right (the owner, or OPERATORS through its team); a team's: OPERATORS in the team.
    const guard = scope.kind === 'monitor' && own ? [] : teamGuard(monitor.team_id!, caller.userId, OPERATORS);
    const ended: MaintenanceWindow = { ...window, starts_at: window.starts_at > now ? now : window.starts_at, ends_at: now };
    const spans = scope.kind === 'monitor' ? monitor.maintenance : spansOf(read.summary?.windows);
    const version = scope.kind === 'monitor' ? monitor.maintenance_version : typeof read.summary?.maintenance_version === 'number' ? read.summary.maintenance_version : 0;
    const audit = scope.kind === 'monitor' ? { caller, team_id: monitor.team_id ?? null, owner_id: monitor.owner_id, was: window } : { caller, team_id: scope.id, owner_id: null, was: window };
    const items = windowChangeItems({ scope, window: ended, spans: spans.filter((span) => span.id !== window.id), version, now, ended: true, audit });
    const { outcome, item } = await transactOutcome<GuardOutcome | 'changed'>([...guard, ...items.map((entry) => ['changed', entry] as const)]);
    if (outcome === 'ok') return DONE;
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    return undefined;
  }, gaveUp(`Monitor ${monitorId}`));
}

/** The monitor as read with its summary (for the paths that read the item raw). */
export const parseMonitor = (item: Item) => monitorItem.parse(item);
