import { randomUUID } from 'node:crypto';
import { clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { policyNotFound } from '../escalation/service.js';
import type { Caller } from '../caller.js';
import * as repository from './repository.js';
import {
  monitorView,
  type CreateMonitorInput,
  type Monitor,
  type MonitorView,
  type UpdateMonitorInput,
} from './model.js';

export const monitorNotFound = () => new NotFoundError('Monitor not found');

/** The caller's monitor, or `404 Monitor not found` (another owner's monitor is indistinguishable). */
export async function requireOwnedMonitor(caller: Caller, monitorId: string): Promise<Monitor> {
  const monitor = await repository.getMonitor(monitorId);
  if (!monitor || monitor.owner_id !== caller.userId) throw monitorNotFound();
  return monitor;
}

export async function createMonitor(caller: Caller, input: CreateMonitorInput): Promise<MonitorView> {
  const now = clock.nowIso();
  const monitor: Monitor = {
    id: randomUUID(),
    name: input.name,
    owner_id: caller.userId,
    failure_threshold: input.failure_threshold,
    escalation_policy_id: input.escalation_policy_id,
    created_at: now,
    updated_at: now,
  };
  if ((await repository.insertMonitor(monitor)) === 'policy_not_found') throw policyNotFound();
  return monitorView(monitor);
}

export async function getMonitor(caller: Caller, monitorId: string): Promise<MonitorView> {
  return monitorView(await requireOwnedMonitor(caller, monitorId));
}

export async function listMonitors(caller: Caller): Promise<MonitorView[]> {
  return (await repository.listMonitors(caller.userId)).map(monitorView);
}

const MAX_ATTEMPTS = 5;

export async function updateMonitor(
  caller: Caller,
  monitorId: string,
  changes: UpdateMonitorInput,
): Promise<MonitorView> {
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new BadRequestError('No updates provided');
  }
  const { escalation_policy_id: policyId, ...others } = changes;
  if (policyId === undefined) {
    // The policy stays: one conditional UpdateItem.
    const monitor = await repository.updateMonitor(caller.userId, monitorId, others, clock.nowIso());
    if (!monitor) throw monitorNotFound();
    return monitorView(monitor);
  }
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await requireOwnedMonitor(caller, monitorId);
    const next: Monitor = { ...current, ...others, escalation_policy_id: policyId, updated_at: clock.nowIso() };
    if (current.escalation_policy_id === policyId) {
      const monitor = await repository.updateMonitor(caller.userId, monitorId, others, next.updated_at);
      if (!monitor) throw monitorNotFound();
      return monitorView(monitor);
    }
    const outcome = await repository.replaceMonitor(current, next);
    if (outcome === 'policy_not_found') throw policyNotFound();
    if (outcome === 'ok') return monitorView(next);
  }
  throw new Error(`Monitor ${monitorId} kept changing; gave up after ${MAX_ATTEMPTS} attempts`);
}

/** Deletes the monitor with its subscribers; its incidents stay, as history. */
export async function deleteMonitor(caller: Caller, monitorId: string): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await requireOwnedMonitor(caller, monitorId);
    if (await repository.deleteMonitor(current)) {
      await repository.purgeMonitorItems(monitorId);
      return;
    }
  }
  throw new Error(`Monitor ${monitorId} kept changing; gave up after ${MAX_ATTEMPTS} attempts`);
}
