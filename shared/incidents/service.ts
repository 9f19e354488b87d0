import { randomUUID } from 'node:crypto';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { quotaCharge, quotaExceeded } from '../platform/quotas/daily.js';
import { BadRequestError, ConflictError, NotFoundError } from '../platform/errors.js';
import { identityOf } from '../accounts/service.js';
import { getByKeys, transactOutcome, type Item, type TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { attributes, keys } from '../platform/db/keys.js';
import { countIncident, getMonitor } from '../monitors/repository.js';
import { monitorItem } from '../monitors/model.js';
import { accountItem, type Account } from '../accounts/model.js';
import { monitorNotFound, monitorWriteGuard } from '../monitors/service.js';
import { accessRefusal, accessTo, allows, OPERATORS, READERS, readScopes, roleIn, teamGuard, type GuardOutcome } from '../teams/access.js';
import { decodeCursor, pageView, type PageView } from '../platform/api/pagination.js';
import { equalities, mergePage, readSource, type PageWindow, type Source, type SourceRead } from '../platform/db/pagination.js';
import type { Scope } from '../platform/db/keys.js';
import { membershipItem } from '../teams/model.js';
import { tableName } from '../platform/db/client.js';
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from './snapshots.js';
import { countMetric } from '../platform/observability/metrics.js';
import { applyChanges, statusEvents } from './changes.js';
import * as repository from './repository.js';
import {
  acknowledgementRecords,
  changeEntries,
  createdEntry,
  entryPut,
  timelineEntry,
  timelineEntryItem,
  timelineEntryView,
  timelinePut,
  type Actor,
  type ListUpdatesQuery,
  type PostUpdateInput,
  type TimelineEntry,
} from './timeline.js';
import {
  incidentDetailView,
  incidentItem,
  incidentListView,
  incidentView,
  manualIncident,
  type AcknowledgeIncidentInput,
  type CreateIncidentInput,
  type Incident,
  type IncidentDetailView,
  type IncidentListView,
  type IncidentView,
  type ListIncidentsQuery,
  type UpdateIncidentInput,
} from './model.js';
import { SEVERITIES, urgencyOfSeverity, type Urgency } from './model.js';

export const incidentNotFound = () => new NotFoundError('Incident not found');

/**
 * A page of the incidents the caller sees, newest first (`started_at`, then id): those of the
 * caller's own monitors (owner index) and those shared with each team the caller belongs to
 * (team index), read in parallel and merged under one cursor. While a monitor moves between
 * teams, its entries in the team index are ignored and the joining team reads its incidents from
 * the monitor index instead, so every incident moves with its monitor at once. `since`/`until`
 * bound the key condition; `monitor_id` reads the monitor index alone.
 */
export async function listIncidents(caller: Caller, query: ListIncidentsQuery): Promise<PageView<IncidentListView>> {
  const { limit, cursor, ...filters } = query;
  const binding = { list: 'incidents', callerId: caller.userId, filters };
  const window: PageWindow = { limit, order: 'desc', after: decodeCursor(cursor, binding), from: query.since, to: query.until };
  const byDimension: repository.IncidentFilters = {
    severity: query.severity,
    status: query.status === 'open' ? undefined : query.status,
    open: query.status === 'open' ? 'OPEN' : undefined,
    acknowledged: query.acknowledged === undefined ? undefined : String(query.acknowledged),
  };
  const also: Also = { urgency: query.urgency, mine: query.mine ? caller.userId : undefined, teamId: query.team_id };
  const reads = query.monitor_id ? await monitorReads(caller, query.monitor_id, window, byDimension, also) : await scopeReads(caller, window, byDimension, also);
  const page = mergePage(reads, window);
  return pageView({ items: page.items.map((item) => incidentItem.parse(item)), next: page.next }, binding, incidentListView);
}

/**
 * Filters with no index of their own (issue 44), applied after the key condition like the others, so
 * a page still costs O(page): `urgency` (an incident opened before urgencies has its severity's),
 * `mine` (the caller's id in the incident's `responder_ids`: paged for it, or acknowledged it) and
 * `teamId` (only that team's scope is read).
 */
interface Also {
  urgency?: Urgency;
  mine?: string;
  teamId?: string;
}

/** The filters not settled by a key condition, applied after it (`open` is status other than RESOLVED). */
function remainingFilter(rest: repository.IncidentFilters, also: Also, monitorId?: string): Source['filter'] {
  const severitiesOf = (urgency: Urgency) => SEVERITIES.filter((severity) => urgencyOfSeverity(severity) === urgency);
  return equalities(
    {
      severity: rest.severity,
      status: rest.status,
      acknowledged: rest.acknowledged === undefined ? undefined : rest.acknowledged === 'true',
      monitor_id: monitorId,
    },
    [
      ...(rest.open ? [{ expression: '#open_status <> :resolved', names: { '#open_status': 'status' }, values: { ':resolved': 'RESOLVED' } }] : []),
      ...(also.urgency
        ? [
            {
              expression: `(#urgency = :urgency OR (attribute_not_exists(#urgency) AND #urgency_severity IN (${severitiesOf(also.urgency).map((_, index) => `:urgency_severity${index}`).join(', ')})))`,
              names: { '#urgency': 'urgency', '#urgency_severity': 'severity' },
              values: { ':urgency': also.urgency, ...Object.fromEntries(severitiesOf(also.urgency).map((severity, index) => [`:urgency_severity${index}`, severity])) },
            },
          ]
        : []),
      ...(also.mine ? [{ expression: 'contains(#responders, :me)', names: { '#responders': 'responder_ids' }, values: { ':me': also.mine } }] : []),
      ...(also.teamId ? [{ expression: '#scope_team = :scope_team', names: { '#scope_team': 'team_id' }, values: { ':scope_team': also.teamId } }] : []),
    ],
  );
}

async function scopeReads(caller: Caller, window: PageWindow, filters: repository.IncidentFilters, also: Also, monitorId?: string): Promise<SourceRead[]> {
  const read = (scope: Scope, scopeId: string) => {
    const { source, rest } = repository.incidentSource(scope, scopeId, filters);
    return readSource({ ...source, filter: remainingFilter(rest, scope === 'team' ? { ...also, teamId: undefined } : also, monitorId) }, window);
  };
  const { own, teams } = await readScopes(caller.userId, () => read('owner', caller.userId), (teamId) => read('team', teamId), also.teamId);
  const arriving = teams.flatMap(({ teamId, team }) =>
    [...team.transits.values()].filter((transit) => transit.to_team_id === teamId).map((transit) => transit.monitor_id),
  );
  const moved = await Promise.all(
    arriving
      .filter((arrivingId) => monitorId === undefined || arrivingId === monitorId)
      .map((arrivingId) => readSource({ ...repository.monitorIncidentSource(arrivingId), filter: remainingFilter(filters, { ...also, teamId: undefined }) }, window)),
  );
  const fromTeams = teams.map(({ team, items: result }) => ({
    ...result,
    items: result.items.filter((item) => !team.transits.has(String(item.monitor_id))),
  }));
  return [...(own ? [own] : []), ...fromTeams, ...moved];
}

/**
 * `monitor_id`: the monitor index, read in parallel with the monitor, shown if the caller may see
 * the monitor (its incidents follow it). A deleted monitor's incidents stay where they were seen.
 */
async function monitorReads(caller: Caller, monitorId: string, window: PageWindow, filters: repository.IncidentFilters, also: Also): Promise<SourceRead[]> {
  const [monitor, read] = await Promise.all([
    getMonitor(monitorId),
    readSource({ ...repository.monitorIncidentSource(monitorId), filter: remainingFilter(filters, also) }, window),
  ]);
  if (!monitor) return scopeReads(caller, window, filters, also, monitorId);
  return allows(await accessTo(caller.userId, monitor), READERS) ? [read] : [];
}

/**
 * Whether the caller may see the incident: the monitor's owner, or a member of the incident's
 * audience team — the monitor's team now, or, once the monitor is deleted, the team it was in.
 * One BatchGetItem reads the monitor with the caller's membership in the team the incident was
 * indexed under; only a monitor that moved since (re-scoping under way) needs one more read.
 */
async function maySee(caller: Caller, incident: Incident): Promise<boolean> {
  if (incident.owner_id === caller.userId) return true;
  const indexed = incident.team_id;
  const read = await getByKeys({
    monitor: keys.monitor(incident.monitor_id),
    ...(indexed ? { team: keys.team(indexed), membership: keys.teamMembership(indexed, caller.userId) } : {}),
  });
  const audience = read.monitor ? ((read.monitor.team_id as string | undefined) ?? null) : indexed;
  if (!audience) return false;
  if (audience === indexed) return Boolean(read.team && read.membership && membershipItem.parse(read.membership));
  return (await roleIn(audience, caller.userId)) !== undefined;
}

export async function getIncident(caller: Caller, incidentId: string): Promise<IncidentDetailView> {
  const collection = await repository.getIncidentCollection(incidentId);
  if (!collection || !(await maySee(caller, collection.incident))) throw incidentNotFound();
  return incidentDetailView(collection.incident, collection.acknowledgement, collection.escalationSteps);
}

type Guard = readonly (readonly [GuardOutcome | 'moved', TransactItem])[];

/** ConditionCheck: the incident's audience is still `teamId` (its monitor is there, or was when deleted). */
const audienceIs = (monitorId: string, teamId: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: keys.monitor(monitorId),
    ConditionExpression: `attribute_not_exists(${attributes.pk}) OR team_id = :team`,
    ExpressionAttributeValues: { ':team': teamId },
  },
});

/** Changes of one incident conflict only on what they depend on; busy incidents get a few more tries. */
const CHANGE_ATTEMPTS = 8;
/**
 * ... and, past those, more while this much time has not passed since the first (within the
 * function's 10 s): twenty people writing to one incident at once on a loaded machine still all
 * get their answer, never a 500 for having lost races.
 */
const CHANGE_BUDGET_MS = 6_000;

/**
 * Runs a write on the incident as the caller. The monitor's owner writes with no guard; anyone
 * else writes through the incident's audience team, with a guard in the same transaction: the
 * team exists, the caller is OWNER, ADMIN or MEMBER there, and the monitor is still in that team.
 * A VIEWER gets 403 Not authorized; anyone else 404 Incident not found. If the monitor moved
 * between the read and the write, the write is tried again through its new team.
 */
async function writeAs<O extends string>(
  caller: Caller,
  incident: Incident,
  write: (guard: Guard) => Promise<{ outcome: O | GuardOutcome | 'moved'; item?: Item }>,
): Promise<{ outcome: O; item?: Item }> {
  if (incident.owner_id === caller.userId) return (await write([])) as { outcome: O; item?: Item };
  let teamId = incident.team_id ?? (await getMonitor(incident.monitor_id))?.team_id ?? null;
  return retryOnConflict(async () => {
    if (!teamId) throw incidentNotFound();
    // The move check first: a monitor that moved is retried through its new team before any role counts.
    const result = await write([['moved', audienceIs(incident.monitor_id, teamId)], ...teamGuard(teamId, caller.userId, OPERATORS)]);
    if (result.outcome === 'team_gone' || result.outcome === 'team_role') {
      throw accessRefusal(result.outcome as GuardOutcome, result.item, incidentNotFound);
    }
    if (result.outcome !== 'moved') return result as { outcome: O; item?: Item };
    teamId = (await getMonitor(incident.monitor_id))?.team_id ?? null;
    return undefined;
  }, (attempts) => `Incident ${incident.id}: its monitor kept moving; gave up after ${attempts} attempts`);
}

/**
 * A manual incident on a monitor the caller owns or operates through its team (OWNER, ADMIN,
 * MEMBER). Manual incidents never escalate. The incident is indexed in the monitor's scope,
 * which the write checks has not changed since it was read.
 */
export async function createIncident(caller: Caller, input: CreateIncidentInput): Promise<IncidentView> {
  return retryOnConflict(async () => {
    const read = await getByKeys({ monitor: keys.monitor(input.monitorId), account: keys.account(caller.userId) });
    const monitor = read.monitor ? monitorItem.parse(read.monitor) : undefined;
    const guard = monitorWriteGuard(caller, monitor, OPERATORS);
    const now = clock.nowIso();
    const incident = manualIncident(monitor!, { title: input.title, message: input.message ?? null, severity: input.severity }, now);
    const { outcome, item } = await repository.insertIncident(incident, [
      ...guard,
      ['moved', countIncident(monitor!)],
      // It e-mails every subscriber: counted against the caller's daily quota, in the same transaction.
      ['quota', quotaCharge(caller.userId, 'incidents', new Date(now))],
      ['conflict', outboxPut('incident.created', { incident: incidentSnapshot(incident), escalation: null }, now)],
      ['conflict', timelinePut(createdEntry(incident, actorOf(caller, accountFrom(read.account))))],
    ]);
    if (outcome === 'ok') {
      countMetric('IncidentCreated', { kind: 'manual' });
      return incidentView(incident);
    }
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome === 'quota') throw quotaExceeded('incidents', new Date(now));
    if (outcome !== 'moved') throw new Error(`Unexpected conflict creating incident ${incident.id}`);
    return undefined;
  }, (attempts) => `Monitor ${input.monitorId} kept moving; gave up after ${attempts} attempts`);
}

const accountFrom = (item: Item | undefined): Account | undefined => (item ? accountItem.parse(item) : undefined);

/** The caller as a timeline names them: their account's name, else their token's. */
const actorOf = (caller: Caller, account: Account | undefined): Actor => ({ id: caller.userId, name: identityOf(caller, account).name });

/**
 * Changes an incident and records the status-change event and the timeline entries (or the
 * caller's note) in the same transaction. Optimistic: read, then write on the condition that
 * nothing changed since; retried if something did.
 */
async function changeIncident(
  caller: Caller,
  incidentId: string,
  changes: UpdateIncidentInput,
  options: { note?: string; resolvedAt?: 'kept' | 'now' } = {},
): Promise<{ incident: Incident; note?: TimelineEntry }> {
  const { note, resolvedAt } = options;
  return retryOnConflict(async () => {
    const { account, incident: current } = await repository.getAccountAndIncident(caller.userId, incidentId);
    if (!current) throw incidentNotFound();
    const now = repository.writeInstant(current);
    const next = applyChanges(current, changes, now, resolvedAt);
    const actor = actorOf(caller, account);
    // A note first; then what the service records of the change itself (a note's status change too).
    const noteEntry = note === undefined ? undefined : timelineEntry({ kind: 'note', incident: next, at: now, actor, message: note });
    const entries = [
      ...(noteEntry ? [entryPut(noteEntry)] : []),
      ...changeEntries(current, next, actor, now, noteEntry ? 1 : 0).map(timelinePut),
    ];
    const { outcome } = await writeAs(caller, current, (guard) =>
      repository.writeIncidentChange(current, next, [...statusEvents(current, next, now, noteEntry), ...entries], guard),
    );
    if (outcome === 'ok') {
      if (next.status === 'RESOLVED' && current.status !== 'RESOLVED') countMetric('IncidentResolved');
      return { incident: next, note: noteEntry };
    }
    return undefined;
  }, (attempts) => `Incident ${incidentId} kept changing; gave up after ${attempts} attempts`, { attempts: CHANGE_ATTEMPTS, budgetMs: CHANGE_BUDGET_MS, backoff: true });
}

export async function updateIncident(
  caller: Caller,
  incidentId: string,
  changes: UpdateIncidentInput,
): Promise<IncidentView> {
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new BadRequestError('No updates provided');
  }
  // Every change, a new title too, reads the incident first: its timeline entry says what changed from what.
  return incidentView((await changeIncident(caller, incidentId, changes)).incident);
}

/**
 * DELETE resolves: status RESOLVED, `resolved_at` set to now, an already resolved incident's too (a
 * PUT to RESOLVED keeps an earlier time). Only a change of status is notified and entered in the timeline.
 */
export async function resolveIncident(caller: Caller, incidentId: string): Promise<void> {
  await changeIncident(caller, incidentId, { status: 'RESOLVED' }, { resolvedAt: 'now' });
}

/**
 * Acknowledges the incident once: the monitor's owner, or an OWNER, ADMIN or MEMBER of its
 * team. The acknowledgement names the user from their account record (falling back to the
 * token's claims for users without one).
 */
export async function acknowledgeIncident(
  caller: Caller,
  incidentId: string,
  input: AcknowledgeIncidentInput,
): Promise<IncidentView> {
  return retryOnConflict(async () => {
    const { account, incident } = await repository.getAccountAndIncident(caller.userId, incidentId);
    if (!incident) throw incidentNotFound();
    return tryAcknowledge(caller, incident, account, input);
  }, (attempts) => `Incident ${incidentId} kept moving; gave up after ${attempts} attempts`);
}

/**
 * Acknowledges as a person who was paged for the incident (issue 43: an SMS reply `<n>a`). The page is
 * the right, as an e-mailed link's token is (`acknowledge-link.ts`), not a role: `proof`, checked in the
 * same transaction, is what still says the person was paged for it (their reply code naming it).
 */
export async function acknowledgeAsPaged(
  userId: string,
  incidentId: string,
  method: AcknowledgeIncidentInput['method'],
  proof: TransactItem,
): Promise<'acknowledged' | 'already_acknowledged' | 'resolved' | 'not_found' | 'no_longer_paged'> {
  return retryOnConflict(async () => {
    const { account, incident } = await repository.getAccountAndIncident(userId, incidentId);
    if (!incident) return 'not_found';
    if (incident.acknowledged) return 'already_acknowledged';
    if (incident.status === 'RESOLVED') return 'resolved';
    const now = repository.writeInstant(incident);
    const { name: userName, email: userEmail } = identityOf({ userId }, account);
    const acknowledgement = { id: randomUUID(), incident_id: incident.id, user_id: userId, user_name: userName, user_email: userEmail, method, acknowledged_at: now };
    const { outcome } = await repository.acknowledgeIncident(incident, acknowledgement, now, acknowledgementRecords(incident, acknowledgement), [['paged', proof]]);
    if (outcome === 'rescoped') return undefined;
    if (outcome === 'paged') return 'no_longer_paged';
    if (outcome === 'acknowledged') countMetric('IncidentAcknowledged', { method });
    return outcome;
  }, (attempts) => `Incident ${incidentId} kept moving; gave up after ${attempts} attempts`);
}

/** One attempt: undefined when the incident was re-scoped since it was read (read again). */
async function tryAcknowledge(
  caller: Caller,
  incident: Incident,
  account: Parameters<typeof identityOf>[1],
  input: AcknowledgeIncidentInput,
): Promise<IncidentView | undefined> {
  const now = repository.writeInstant(incident);
  const { name: userName, email: userEmail } = identityOf(caller, account);
  const acknowledgement = {
    id: randomUUID(),
    incident_id: incident.id,
    user_id: caller.userId,
    user_name: userName,
    user_email: userEmail,
    method: input.method,
    acknowledged_at: now,
  };
  const { outcome } = await writeAs(caller, incident, (guard) =>
    repository.acknowledgeIncident(incident, acknowledgement, now, acknowledgementRecords(incident, acknowledgement), guard),
  );
  if (outcome === 'rescoped') return undefined;
  if (outcome === 'not_found') throw incidentNotFound();
  if (outcome === 'already_acknowledged') throw new BadRequestError('Incident already acknowledged');
  countMetric('IncidentAcknowledged', { method: input.method });
  return incidentView({ ...incident, acknowledged: true, updated_at: now });
}

/**
 * Posts a note on the incident's timeline: whoever may update the incident (its monitor's owner;
 * OWNER, ADMIN or MEMBER of its team). With `status`, it changes the status exactly as `PUT` does,
 * in the same transaction; subscribers get the note either way.
 */
export async function postUpdate(caller: Caller, incidentId: string, input: PostUpdateInput): Promise<TimelineEntry> {
  const changed = await changeIncident(caller, incidentId, { status: input.status }, { note: input.message });
  return changed.note!;
}

/**
 * A page of the incident's timeline, oldest first, for whoever may see the incident. The first
 * page is one Query with the incident (it sorts just before the entries); a later one reads the
 * incident and the page in parallel. Either is O(limit) whatever the history.
 */
export async function listUpdates(caller: Caller, incidentId: string, query: ListUpdatesQuery): Promise<PageView<TimelineEntry>> {
  const binding = { list: `incidents/${incidentId}/updates`, callerId: caller.userId };
  const window: PageWindow = { limit: query.limit, order: 'asc', after: decodeCursor(query.cursor, binding) };
  const { incident, read } =
    window.after === undefined
      ? await repository.getIncidentAndFirstEntries(incidentId, window.limit)
      : await Promise.all([repository.getIncidentItem(incidentId), readSource(repository.timelineSource(incidentId), window)]).then(([incident, read]) => ({ incident, read }));
  if (!incident || !(await maySee(caller, incident))) throw incidentNotFound();
  const page = mergePage([read], window);
  return pageView({ items: page.items.map((item) => timelineEntryItem.parse(item)), next: page.next }, binding, timelineEntryView);
}

/** The texts of `POST /api/incidents/{id}/escalate`'s refusals (409). */
export const escalateTexts = {
  acknowledged: 'Incident already acknowledged',
  resolved: 'Incident already resolved',
  noMoreSteps: 'Incident has no further escalation step',
} as const;

/**
 * Whether the caller may escalate the incident now (issue 44's `POST /api/incidents/{id}/escalate`,
 * which `paging/escalate-now.ts` carries out), answering its collection. The right is the acknowledger's (the monitor's owner; OWNER, ADMIN or MEMBER of its team: 403 for a
 * VIEWER, 404 for anyone else), checked with the incident's state in one transaction of
 * ConditionChecks (nothing is written: the step's page writes its own timeline entry). An
 * acknowledged or resolved incident, or one whose steps are all paged (a manual incident has none),
 * answers 409. Asking twice for the same step schedules it once.
 */
export async function escalatableIncident(caller: Caller, incidentId: string): Promise<repository.IncidentCollection> {
  const collection = await repository.getIncidentCollection(incidentId);
  if (!collection) throw incidentNotFound();
  const { incident } = collection;
  const open: TransactItem = {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.incident(incident.id),
      ConditionExpression: `attribute_exists(${attributes.pk}) AND #acknowledged = :no AND #status <> :resolved`,
      ExpressionAttributeNames: { '#acknowledged': 'acknowledged', '#status': 'status' },
      ExpressionAttributeValues: { ':no': false, ':resolved': 'RESOLVED' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
  const { outcome, item } = await writeAs(caller, incident, (guard) => transactOutcome<GuardOutcome | 'moved' | 'closed'>([...guard, ['closed', open]]));
  if (outcome === 'closed') {
    if (!item) throw incidentNotFound();
    throw new ConflictError(item.status === 'RESOLVED' ? escalateTexts.resolved : escalateTexts.acknowledged);
  }
  return collection;
}
