import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { timeOrderedUuid } from '../platform/ids.js';
import { NotFoundError } from '../platform/errors.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { identityOf } from '../accounts/service.js';
import { integrationKeyHash, integrationKeyHint, newIntegrationKey } from '../alerts/keys.js';
import { getMonitor } from '../monitors/repository.js';
import { missingRefusal, monitorNotFound, monitorWriteGuard } from '../monitors/service.js';
import { accessRefusal, accessTo, allows, OPERATORS, READERS } from '../teams/access.js';
import * as repository from './repository.js';
import { integrationView, type CreateIntegrationInput, type Integration, type IntegrationView } from './model.js';

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
    const { outcome, item } = await repository.insertIntegration(monitor!, integration, guard);
    if (outcome === 'ok') return { ...integrationView(integration, undefined), key };
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome !== 'moved') throw new Error(`Unexpected conflict creating integration ${integration.id}`);
    return undefined;
  }, gaveUp(monitorId));
}

/** The monitor's integrations, oldest first, without their keys: whoever may see the monitor. */
export async function listIntegrations(caller: Caller, monitorId: string): Promise<IntegrationView[]> {
  const [monitor, integrations] = await Promise.all([getMonitor(monitorId), repository.listIntegrations(monitorId)]);
  if (!monitor || !allows(await accessTo(caller.userId, monitor), READERS)) throw monitorNotFound();
  return integrations.map(({ integration, lookup }) => integrationView(integration, lookup));
}

/** Deletes an integration, which revokes its key at once: whoever may update the monitor. */
export async function deleteIntegration(caller: Caller, monitorId: string, integrationId: string): Promise<void> {
  await retryOnConflict(async () => {
    const { monitor, integration } = await repository.getMonitorAndIntegration(monitorId, integrationId);
    const guard = monitorWriteGuard(caller, monitor, OPERATORS);
    if (!integration) throw await missingRefusal(caller, monitor!, guard, integrationNotFound);
    const { outcome, item } = await repository.deleteIntegration(monitor!, integration, guard);
    if (outcome === 'ok') return DONE;
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome === 'gone') throw integrationNotFound();
    return undefined;
  }, gaveUp(monitorId));
}
