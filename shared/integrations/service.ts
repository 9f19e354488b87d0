import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { timeOrderedUuid } from '../platform/ids.js';
import { NotFoundError } from '../platform/errors.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { identityOf } from '../accounts/service.js';
import { integrationKeyHash, integrationKeyHint, newIntegrationKey } from './keys.js';
import { getMonitor } from '../monitors/repository.js';
import { missingRefusal, monitorNotFound, monitorWriteGuard } from '../monitors/service.js';
import { accessRefusal, allows, OPERATORS, READERS, type Access } from '../teams/access.js';
import type { Role } from '../teams/model.js';
import { keys } from '../platform/db/keys.js';
import * as repository from './repository.js';
import { auditPut, SECRET_SHOWN, type AuditSpec } from '../audit/entry.js';
import type { Monitor } from '../monitors/model.js';
import { integrationView, type CreateIntegrationInput, type Integration, type IntegrationView } from './model.js';

/** An integration's entry: its monitor's team and owner; its key only ever as "[set]". */
const integrationAudit = (monitor: Monitor, integration: Integration, created: boolean): AuditSpec => ({
  action: created ? 'integration.created' : 'integration.deleted',
  resource: { type: 'integration', id: integration.id, name: integration.name },
  team_id: monitor.team_id,
  owner_id: monitor.owner_id,
  changes: created
    ? { name: { from: null, to: integration.name }, monitor_id: { from: null, to: monitor.id }, key: { from: null, to: SECRET_SHOWN } }
    : { name: { from: integration.name, to: null }, key: { from: SECRET_SHOWN, to: null } },
});

const integrationNotFound = () => new NotFoundError('Integration not found');
const gaveUp = (monitorId: string) => (attempts: number) => `Monitor ${monitorId} kept changing; gave up after ${attempts} attempts`;

/**
 * A new integration of the monitor with a fresh key (answered once): whoever may update the monitor
 * (its owner; OWNER, ADMIN, MEMBER of its team), checked in the same transaction as the write.
 */
export async function createIntegration(caller: Caller, monitorId: string, input: CreateIntegrationInput): Promise<IntegrationView & { key: string }> {
  return retryOnConflict(async () => {
    const monitor = await getMonitor(monitorId);
    const guard = monitorWriteGuard(caller, monitor, OPERATORS);
    const key = newIntegrationKey();
    const integration: Integration = {
      id: timeOrderedUuid(),
      monitor_id: monitorId,
      name: input.name,
      key_hash: integrationKeyHash(key),
      key_hint: integrationKeyHint(key),
      created_at: clock.nowIso(),
      created_by: caller.userId,
      created_by_email: identityOf(caller, undefined).email,
    };
    const { outcome, item } = await repository.insertIntegration(monitor!, integration, guard, auditPut(caller, integrationAudit(monitor!, integration, true), integration.created_at));
    if (outcome === 'ok') return { ...integrationView(integration, undefined), key };
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome !== 'moved') throw new Error(`Unexpected conflict creating integration ${integration.id}`);
    return undefined;
  }, gaveUp(monitorId));
}

/**
 * The monitor's integrations, oldest first, without their keys: whoever may see the monitor. Each
 * says whether its creator has left (may no longer read the monitor). The caller's membership, the
 * team, the keys' lookups and the creators' memberships are one consistent BatchGetItem.
 */
export async function listIntegrations(caller: Caller, monitorId: string): Promise<IntegrationView[]> {
  const [monitor, integrations] = await Promise.all([getMonitor(monitorId), repository.queryIntegrations(monitorId)]);
  if (!monitor) throw monitorNotFound();
  const teamId = monitor.team_id;
  const creators = [...new Set(integrations.map((integration) => integration.created_by))].filter((userId) => userId !== monitor.owner_id);
  const memberships = teamId ? [caller.userId, ...creators.filter((userId) => userId !== caller.userId)].map((userId) => keys.teamMembership(teamId, userId)) : [];
  const { lookups, extra } = await repository.lookupsAnd(integrations, teamId ? [keys.team(teamId), ...memberships] : []);
  const [team, ...found] = extra;
  const member = new Set(team ? found.flatMap((item) => (item ? [String(item.user_id)] : [])) : []);
  const access: Access | undefined = monitor.owner_id === caller.userId ? { via: 'owner' } : team && member.has(caller.userId) ? { via: 'team', teamId: teamId!, role: String(found[0]!.role) as Role } : undefined;
  if (!allows(access, READERS)) throw monitorNotFound();
  const left = (userId: string) => userId !== monitor.owner_id && !member.has(userId);
  return integrations.map((integration) => integrationView(integration, lookups.get(integration.id), left(integration.created_by)));
}

/** Deletes an integration, which revokes its key at once: whoever may update the monitor. */
export async function deleteIntegration(caller: Caller, monitorId: string, integrationId: string): Promise<void> {
  await retryOnConflict(async () => {
    const { monitor, integration } = await repository.getMonitorAndIntegration(monitorId, integrationId);
    const guard = monitorWriteGuard(caller, monitor, OPERATORS);
    if (!integration) throw await missingRefusal(caller, monitor!, guard, integrationNotFound);
    const { outcome, item } = await repository.deleteIntegration(monitor!, integration, guard, auditPut(caller, integrationAudit(monitor!, integration, false)));
    if (outcome === 'ok') return DONE;
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome === 'gone') throw integrationNotFound();
    return undefined;
  }, gaveUp(monitorId));
}
