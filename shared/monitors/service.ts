import { randomUUID } from 'node:crypto';
import { clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
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
  await repository.insertMonitor(monitor);
  return monitorView(monitor);
}

export async function getMonitor(caller: Caller, monitorId: string): Promise<MonitorView> {
  return monitorView(await requireOwnedMonitor(caller, monitorId));
}

export async function listMonitors(caller: Caller): Promise<MonitorView[]> {
  return (await repository.listMonitors(caller.userId)).map(monitorView);
}

export async function updateMonitor(
  caller: Caller,
  monitorId: string,
  changes: UpdateMonitorInput,
): Promise<MonitorView> {
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new BadRequestError('No updates provided');
  }
  const monitor = await repository.updateMonitor(caller.userId, monitorId, changes, clock.nowIso());
  if (!monitor) throw monitorNotFound();
  return monitorView(monitor);
}

export async function deleteMonitor(caller: Caller, monitorId: string): Promise<void> {
  if (!(await repository.deleteMonitor(caller.userId, monitorId))) throw monitorNotFound();
}
