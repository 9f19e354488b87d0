import * as z from 'zod';
import { Id, Timestamp } from '../api/common.js';

export const MonitorName = z.string().trim().min(1).max(200);
export const FailureThreshold = z.int().min(1).max(10_000);

export const createMonitorInput = z.strictObject({
  name: MonitorName,
  failure_threshold: FailureThreshold.default(3),
  escalation_policy_id: z.uuid().nullable().default(null),
}).meta({ id: 'CreateMonitor', example: { name: 'Checkout API', failure_threshold: 3, escalation_policy_id: null } });
export type CreateMonitorInput = z.output<typeof createMonitorInput>;

export const updateMonitorInput = z
  .strictObject({
    name: MonitorName,
    failure_threshold: FailureThreshold,
    escalation_policy_id: z.uuid().nullable(),
  })
  .partial()
  .prefault({});
export type UpdateMonitorInput = z.output<typeof updateMonitorInput>;

export const monitorItem = z.object({
  id: z.string(),
  name: z.string(),
  owner_id: z.string(),
  failure_threshold: z.number(),
  escalation_policy_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Monitor = z.output<typeof monitorItem>;

export const MonitorBody = z
  .strictObject({
    id: Id,
    name: z.string().meta({ example: 'Checkout API' }),
    owner_id: Id,
    failure_threshold: z.int().min(1),
    escalation_policy_id: Id.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Monitor' });

export const monitorView = (monitor: Monitor): z.output<typeof MonitorBody> => ({
  id: monitor.id,
  name: monitor.name,
  owner_id: monitor.owner_id,
  failure_threshold: monitor.failure_threshold,
  escalation_policy_id: monitor.escalation_policy_id,
  created_at: monitor.created_at,
  updated_at: monitor.updated_at,
});
export type MonitorView = ReturnType<typeof monitorView>;
