/**
 * Outgoing webhooks, shared by the one protocol of `teams/sharing.ts`: a webhook is its creator's,
 * shared with the team it covers (a monitor's webhook: the monitor's team, whose owner keeps every
 * right on it). OWNER, ADMIN or MEMBER of that team change it in place; its creator or an OWNER or
 * ADMIN deletes it; an owner's webhook is that owner's alone; any member of the team (VIEWER
 * included) reads it. Rights are checked inside each write's transaction (the team and the
 * membership's role), never by a read before it.
 */
import { randomUUID } from 'node:crypto';
import { env } from '../system.js';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { itemAbsent, itemPresent, keys, teamSeqIs } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';
import { BadRequestError, NotFoundError, ValidationError } from '../platform/errors.js';
import { monitorNotFound } from '../monitors/service.js';
import { getMonitor } from '../monitors/repository.js';
import type { Monitor } from '../monitors/model.js';
import { accessRefusal, accessTo, allows, OPERATORS, pageOfScopes, READERS, roleIn, shareRefusal, teamGuard, type GuardOutcome } from '../teams/access.js';
import { deleteGuard, updateAccess, updateRefusal } from '../teams/sharing.js';
import type { PageView } from '../platform/api/pagination.js';
import { generateSecret } from './signing.js';
import { checkTarget, loopbackPortsFrom, TargetRefused, type TargetOptions } from './target.js';
import * as repository from './repository.js';
import { auditPut, changesOf, SECRET_SHOWN, type AuditSpec } from '../audit/entry.js';
import {
  CREATOR_LOST_ACCESS,
  urlHint,
  webhookItem,
  webhookView,
  type CreateWebhookInput,
  type ListWebhooksQuery,
  type UpdateWebhookInput,
  type Webhook,
  type WebhookView,
} from './model.js';

export const webhookNotFound = () => new NotFoundError('Webhook not found');

/** The deployed stack never sets it: only the local runtime lets a webhook reach the same machine. */
export const targetOptions = (): TargetOptions => {
  const ports = process.env[env.webhooksLoopbackPorts];
  return ports === undefined ? {} : { loopbackPorts: loopbackPortsFrom(ports) };
};

/** The URL checked as at delivery time (scheme, credentials, every address its name resolves to): a refusal is a 400 on `url`. */
async function checkUrl(url: string) {
  try {
    await checkTarget(url, targetOptions());
  } catch (error) {
    if (error instanceof TargetRefused) throw new ValidationError([{ field: 'url', message: error.message }]);
    throw error;
  }
}

/** `AND` the monitor has not moved since `seq` (a new webhook is listed where the monitor was read). */
const unmoved = (seq: number | undefined) =>
  seq === undefined ? { expression: '', values: {} } : { expression: ` AND ${teamSeqIs(seq, ':seq')}`, values: { ':seq': seq } };

/** ConditionCheck: the monitor is still in `teamId` (moving it out takes the team's rights on its webhooks with it). */
const monitorInTeam = (monitorId: string, teamId: string, seq?: number): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: keys.monitor(monitorId),
    ConditionExpression: `${itemPresent} AND team_id = :team${unmoved(seq).expression}`,
    ExpressionAttributeValues: { ':team': teamId, ...unmoved(seq).values },
  },
});

/** ConditionCheck: the monitor still exists and belongs to `ownerId`. */
const monitorOwnedBy = (monitorId: string, ownerId: string, seq?: number): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: keys.monitor(monitorId),
    ConditionExpression: `${itemPresent} AND owner_id = :owner${unmoved(seq).expression}`,
    ExpressionAttributeValues: { ':owner': ownerId, ...unmoved(seq).values },
  },
});

/** A create's guards refuse by the team it joins (`team_*`); a change's by the team it is in (`from_*`). */
type CreateOutcome = GuardOutcome | 'moved';
type WriteOutcome = CreateOutcome | 'from_gone' | 'from_role';
type Guards = repository.Guard<WriteOutcome>;

/**
 * The guards of a write about `monitor`'s webhooks by the caller (with `unmovedSince`: and the
 * monitor has not moved since it was read); null when the caller cannot reach the monitor at all.
 */
function monitorGuards(caller: Caller, monitor: Monitor, unmovedSince?: number): repository.Guard<CreateOutcome> | null {
  if (monitor.owner_id === caller.userId) return [['moved', monitorOwnedBy(monitor.id, caller.userId, unmovedSince)]];
  if (!monitor.team_id) return null;
  return [...teamGuard(monitor.team_id, caller.userId, OPERATORS), ['moved', monitorInTeam(monitor.id, monitor.team_id, unmovedSince)]];
}

/** `400` when the webhook's scope already holds its limit. */
export const webhookLimitReached = (scope: repository.WebhookScope) =>
  new BadRequestError(`Webhook limit reached: at most ${repository.WEBHOOK_LIMITS[scope]} per ${scope === 'owner' ? 'account' : scope}`);

/** What a write does to an existing webhook: change it in place (PUT, a new secret, a test or redelivery) or delete it. */
export type WebhookWrite = 'change' | 'delete';

/** The guards of a write to an existing webhook, and whether the caller acts as its owner (for `refusal`). */
export interface WriteGuards {
  guards: Guards;
  owner: boolean;
}

/**
 * The guards of a write to an existing webhook by the caller, by the one sharing protocol
 * (`teams/sharing.ts`): a webhook is its creator's (`owner_id`), shared with the team it covers, a
 * monitor's webhook with the monitor's team, whose owner keeps every right on it. Changing it in
 * place takes OWNER, ADMIN or MEMBER of that team (its creator too: it sends the team's incidents);
 * deleting it, its creator or an OWNER or ADMIN. It never moves by a write of its own (it moves with
 * its monitor). 404 Webhook not found when the caller cannot reach it.
 */
export async function writeGuards(caller: Caller, webhook: Webhook, write: WebhookWrite): Promise<WriteGuards> {
  let teamId: string | null = null;
  let monitor: Monitor | undefined;
  switch (repository.scopeOfWebhook(webhook)) {
    case 'owner':
      break;
    case 'team':
      teamId = webhook.team_id!;
      break;
    case 'monitor': {
      monitor = await getMonitor(webhook.monitor_id!);
      // A deleted monitor's webhook stays its creator's alone.
      if (!monitor) break;
      if (monitor.owner_id === caller.userId) return { guards: [['moved', monitorOwnedBy(monitor.id, caller.userId)]], owner: true };
      // On a monitor of its owner alone, the webhook is the monitor owner's to manage: its creator keeps only the delete.
      if (!monitor.team_id && !(write === 'delete' && webhook.owner_id === caller.userId)) throw webhookNotFound();
      teamId = monitor.team_id;
    }
  }
  const shared = { owner_id: webhook.owner_id, team_id: teamId };
  const { owner, guard } =
    write === 'delete'
      ? deleteGuard(caller.userId, shared, webhookNotFound)
      : (({ owner, from }) => ({ owner, guard: from.map(([outcome, item]) => [outcome === 'team_gone' ? 'from_gone' : 'from_role', item] as const) }))(
          updateAccess(caller.userId, shared, undefined, webhookNotFound, { ownerThroughTeam: true }),
        );
  // Through the monitor's team: and the monitor is still in it (moving it out takes the team's rights on its webhooks with it).
  const inTeam: Guards = monitor && teamId && guard.length > 0 ? [['moved', monitorInTeam(monitor.id, teamId)]] : [];
  return { guards: [...guard, ...inTeam], owner };
}

/** The webhook, if the caller may read it; `404 Webhook not found` otherwise, as for one that never existed. */
export async function visibleWebhook(caller: Caller, webhookId: string): Promise<Webhook> {
  const webhook = await repository.getWebhook(webhookId);
  if (!webhook || !(await mayRead(caller, webhook))) throw webhookNotFound();
  return webhook;
}

async function mayRead(caller: Caller, webhook: Webhook): Promise<boolean> {
  switch (repository.scopeOfWebhook(webhook)) {
    case 'owner':
      return webhook.owner_id === caller.userId;
    case 'team':
      return (await roleIn(webhook.team_id!, caller.userId)) !== undefined;
    case 'monitor': {
      const monitor = await getMonitor(webhook.monitor_id!);
      if (!monitor) return webhook.owner_id === caller.userId;
      return allows(await accessTo(caller.userId, monitor), READERS);
    }
  }
}

/**
 * Whether the webhook's creator (`owner_id`) may still read what it sends, read consistently now:
 * an owner's webhook, always (their own monitors); a team's, while they are a member of the team;
 * a monitor's, while they own the monitor or are a member of its team. Answers the monitor as read
 * (a monitor's webhook), which the disabling write holds to.
 */
async function creatorAccess(webhook: Webhook): Promise<{ mayRead: boolean; monitor?: Monitor }> {
  switch (repository.scopeOfWebhook(webhook)) {
    case 'owner':
      return { mayRead: true };
    case 'team':
      return { mayRead: (await roleIn(webhook.team_id!, webhook.owner_id)) !== undefined };
    case 'monitor': {
      // Its monitor's owner always may (a monitor's owner never changes): no read.
      if (webhook.monitor_owner_id === webhook.owner_id) return { mayRead: true };
      const monitor = await getMonitor(webhook.monitor_id!);
      // A deleted monitor has no more incidents to send.
      if (!monitor) return { mayRead: true };
      return { mayRead: allows(await accessTo(webhook.owner_id, monitor), READERS), monitor };
    }
  }
}

/**
 * Disables the webhook (`creator_lost_access`) on the conditions, checked by the same transaction,
 * that it is still enabled with the same creator and that the creator still has no way to read
 * what it sends: no membership in the team (of the monitor, still where it was read). Answers
 * whether it did; a PUT by someone who may manage it enables it again.
 */
async function disableForLostAccess(webhook: Webhook, monitor: Monitor | undefined): Promise<boolean> {
  const teamId = repository.scopeOfWebhook(webhook) === 'team' ? webhook.team_id! : monitor?.team_id;
  const checks: TransactItem[] = [];
  if (monitor) {
    checks.push({
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.monitor(monitor.id),
        ConditionExpression: `${itemPresent} AND owner_id <> :creator AND ${teamSeqIs(monitor.team_seq, ':seq')}`,
        ExpressionAttributeValues: { ':creator': webhook.owner_id, ':seq': monitor.team_seq },
      },
    });
  }
  if (teamId) checks.push({ ConditionCheck: { TableName: tableName(), Key: keys.teamMembership(teamId, webhook.owner_id), ConditionExpression: itemAbsent } });
  const { outcome } = await repository.disableWebhook(webhook, CREATOR_LOST_ACCESS, clock.nowIso(), checks);
  return outcome === 'ok';
}

/**
 * Whether the webhook's creator may still read what it sends, read now (`may_read`); when not, the
 * webhook is disabled (`disabled`), unless something changed between the read and the write
 * (`changed`: read it again). The delivery worker, a redelivery and a member's removal all ask this.
 */
export async function reviewCreatorAccess(webhook: Webhook): Promise<'may_read' | 'disabled' | 'changed'> {
  const access = await creatorAccess(webhook);
  if (access.mayRead) return 'may_read';
  return (await disableForLostAccess(webhook, access.monitor)) ? 'disabled' : 'changed';
}

/**
 * A refused write's error, as for every shared resource (`teams/sharing.ts`): the monitor moved
 * meanwhile (404), the team it is in (`from_*`, a change: `updateRefusal`), or the delete's guard
 * (403 to a member short of OWNER or ADMIN, else 404).
 */
export function refusal(outcome: WriteOutcome, item: Record<string, unknown> | undefined, owner: boolean): Error {
  if (outcome === 'moved') return webhookNotFound();
  if (outcome === 'from_gone' || outcome === 'from_role') return updateRefusal(outcome, item, { owner }, webhookNotFound)!;
  return accessRefusal(outcome, item, webhookNotFound);
}

const gaveUp = (webhookId: string) => (attempts: number) => `Webhook ${webhookId} kept changing; gave up after ${attempts} attempts`;

/** What a webhook's entry records; its secret only ever as "[set]", its URL as its hint (a URL may carry a token). */
const WEBHOOK_FIELDS = ['url', 'events', 'format', 'description', 'status', 'secret'] as const;
const auditedWebhook = (webhook: Webhook) => ({ ...webhook, url: urlHint(webhook.url) });
const webhookChanges = (before: Webhook | undefined, after: Webhook) =>
  changesOf(before && auditedWebhook(before), auditedWebhook(after), WEBHOOK_FIELDS, ['secret']);

/** A webhook's entry: in its team's log (its own team, or its monitor's) and its owner's. */
const webhookAudit = (webhook: Webhook, action: AuditSpec['action'], changes?: AuditSpec['changes'], teamId?: string | null): AuditSpec => ({
  action,
  resource: { type: 'webhook', id: webhook.id, name: webhook.description ?? urlHint(webhook.url) },
  team_id: teamId !== undefined ? teamId : (webhook.team_id ?? webhook.monitor_team_id ?? null),
  owner_id: webhook.owner_id,
  changes,
});

export async function createWebhook(caller: Caller, input: CreateWebhookInput): Promise<WebhookView & { secret: string }> {
  if (input.monitor_id && input.team_id) {
    throw new ValidationError([{ field: 'team_id', message: 'A webhook covers one monitor (monitor_id) or one team (team_id), not both' }]);
  }
  const secret = generateSecret();
  const id = randomUUID();
  // Again when the monitor moved between its read and the write (it is listed where it was read).
  return retryOnConflict(async (attempt) => {
    let guards: repository.Guard<CreateOutcome> = [];
    let place: repository.MonitorPlace | undefined;
    if (input.monitor_id) {
      const monitor = await getMonitor(input.monitor_id);
      const found = monitor && monitorGuards(caller, monitor, monitor.team_seq);
      if (!found) throw monitorNotFound();
      guards = found;
      place = { owner_id: monitor.owner_id, team_id: monitor.team_id, team_seq: monitor.team_seq };
    } else if (input.team_id) {
      guards = teamGuard(input.team_id, caller.userId, OPERATORS);
    }
    if (attempt === 1) await checkUrl(input.url);
    const now = clock.nowIso();
    const webhook: Webhook = {
      id,
      owner_id: caller.userId,
      monitor_id: input.monitor_id ?? null,
      team_id: input.team_id ?? null,
      url: input.url,
      events: input.events,
      format: input.format,
      description: input.description,
      status: 'enabled',
      disabled_reason: null,
      secret,
      previous_secret: null,
      failing_since: null,
      ...(place ? { monitor_owner_id: place.owner_id } : {}),
      created_at: now,
      updated_at: now,
    };
    const audit = auditPut(caller, webhookAudit(webhook, 'webhook.created', webhookChanges(undefined, webhook), webhook.team_id ?? place?.team_id ?? null), now);
    const { outcome, item } = await repository.insertWebhook(webhook, guards, place, audit);
    if (outcome === 'conflict') throw new Error(`Unexpected conflict creating webhook ${webhook.id}`);
    if (outcome === 'moved') return undefined;
    if (outcome === 'limit') throw webhookLimitReached(repository.scopeOfWebhook(webhook));
    if (outcome !== 'ok') throw input.team_id ? shareRefusal(outcome, item) : accessRefusal(outcome, item, monitorNotFound);
    // The creating response shows the URL as given, and the secret, once.
    return { ...webhookView(webhook), url: webhook.url, secret: webhook.secret };
  }, (attempts) => `Monitor ${input.monitor_id} kept moving; gave up creating a webhook after ${attempts} attempts`);
}

export async function getWebhook(caller: Caller, webhookId: string): Promise<WebhookView> {
  return webhookView(await visibleWebhook(caller, webhookId));
}

/** A page of the caller's own and monitor webhooks and those of every team they belong to (or of one team), newest first. */
export function listWebhooks(caller: Caller, query: ListWebhooksQuery): Promise<PageView<WebhookView>> {
  return pageOfScopes('webhooks', caller.userId, query, repository.webhookSources, (item) => webhookItem.parse(item), webhookView);
}

/**
 * Runs `write` on the webhook as read, with the guards of the caller's rights, again when the
 * webhook changed in between (a delivery recording its outcome, another update).
 */
async function changeWith(
  caller: Caller,
  webhookId: string,
  kind: WebhookWrite,
  write: (current: Webhook, guards: Guards) => Promise<{ outcome: WriteOutcome | 'changed' | 'ok'; item?: Record<string, unknown> }>,
  prepare?: (current: Webhook) => Promise<void>,
): Promise<Webhook> {
  return retryOnConflict(async () => {
    const current = await repository.getWebhook(webhookId);
    if (!current) throw webhookNotFound();
    const { guards, owner } = await writeGuards(caller, current, kind);
    await prepare?.(current);
    const { outcome, item } = await write(current, guards);
    if (outcome === 'ok') return current;
    if (outcome !== 'changed') throw refusal(outcome, item, owner);
    return undefined;
  }, gaveUp(webhookId));
}

/**
 * Changes URL, events, format or description; every PUT also enables the webhook again (an empty
 * body does only that), clearing `disabled_reason` and the failing streak. Enabling one disabled
 * because its creator lost access makes the caller (who may manage it, so may read what it sends)
 * its creator: deliveries are checked against their access from then on.
 */
export async function updateWebhook(caller: Caller, webhookId: string, changes: UpdateWebhookInput): Promise<WebhookView> {
  let next: Webhook | undefined;
  await changeWith(
    caller,
    webhookId,
    'change',
    (current, guards) => {
      const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<Webhook>;
      if (current.disabled_reason === CREATOR_LOST_ACCESS) set.owner_id = caller.userId;
      next = { ...current, ...set, status: 'enabled', disabled_reason: null, failing_since: null, updated_at: clock.nowIso() };
      const audit = auditPut(caller, webhookAudit(current, 'webhook.updated', webhookChanges(current, next)), next.updated_at);
      return repository.changeWebhook(current, { set: { ...set, status: 'enabled', updated_at: next.updated_at }, remove: ['disabled_reason', 'failing_since'] }, guards, audit);
    },
    async (current) => {
      if (changes.url !== undefined && changes.url !== current.url) await checkUrl(changes.url);
    },
  );
  return webhookView(next!);
}

export async function deleteWebhook(caller: Caller, webhookId: string): Promise<void> {
  await changeWith(caller, webhookId, 'delete', (current, guards) => repository.deleteWebhook(current, guards, auditPut(caller, webhookAudit(current, 'webhook.deleted'))));
}

/** A new secret; the one it replaces keeps signing (a second signature) for 24 hours. */
export async function rotateSecret(caller: Caller, webhookId: string): Promise<{ secret: string }> {
  const secret = generateSecret();
  await changeWith(caller, webhookId, 'change', (current, guards) => {
    const now = clock.nowIso();
    const audit = auditPut(caller, webhookAudit(current, 'webhook.secret_rotated', { secret: { from: SECRET_SHOWN, to: SECRET_SHOWN } }), now);
    return repository.changeWebhook(current, { set: { secret, previous_secret: { secret: current.secret, rotated_at: now }, updated_at: now } }, guards, audit);
  });
  return { secret };
}
