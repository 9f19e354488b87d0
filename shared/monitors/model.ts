import * as z from '../platform/zod.js';
import { described, Id, Timestamp, Text } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { Urgency } from '../platform/vocabulary.js';

export const MonitorName = Text({ min: 1, max: 200, name: true });
export const FailureThreshold = z.int().check(z.minimum(1), z.maximum(10_000));
/**
 * A heartbeat (issue 30 §4): a ping is expected at `POST /heartbeats/{key}` at least every
 * `interval_seconds`, with `grace_seconds` of slack; past both, a "missed its heartbeat" incident opens.
 */
export const HeartbeatSettings = described(
  z.strictObject({
    interval_seconds: z.int().check(z.minimum(60), z.maximum(604_800)),
    grace_seconds: z._default(z.int().check(z.minimum(0), z.maximum(86_400)), 0),
  }),
  { id: 'HeartbeatInput', description: 'Expect a ping at POST /heartbeats/{key} at least every interval_seconds (plus grace_seconds); null: no heartbeat', example: { interval_seconds: 300, grace_seconds: 60 } },
);
export type Heartbeat = z.output<typeof HeartbeatSettings>;

/** A team to share with: a UUID shares the monitor with that team, null keeps it (or takes it back) to its owner alone. */
export const TeamId = z.uuid();

/** `GET /api/monitors?team_id=`: only the monitors shared with that team. */
export const listMonitorsQuery = z.object({ team_id: z.optional(TeamId), ...pageParams });
export type ListMonitorsQuery = z.output<typeof listMonitorsQuery>;

/** The urgency the monitor's incidents open with (issue 43 §3); null: their severity's (CRITICAL and HIGH high, MEDIUM and LOW low). */
export const MonitorUrgency = described(z.nullable(Urgency), {
  description: "The urgency its incidents open with, whatever their severity; null (the default): each incident's severity decides (CRITICAL and HIGH are high, MEDIUM and LOW low)",
  example: null,
});

/**
 * Issue 45 §2: minutes after which an acknowledged, unresolved incident of the monitor becomes
 * unacknowledged again and its escalation restarts from step 1; null: never.
 */
export const AckTimeoutMinutes = described(z.nullable(z.int().check(z.minimum(5), z.maximum(1440))), {
  description: 'Minutes (5-1440) after which an acknowledged, unresolved automatic incident of the monitor is unacknowledged again and its escalation restarts from step 1; taken when the incident opens; null (the default): never',
  example: 30,
});

export const createMonitorInput = described(
  z.strictObject({
    name: MonitorName,
    failure_threshold: z._default(FailureThreshold, 3),
    escalation_policy_id: z._default(z.nullable(z.uuid()), null),
    team_id: z._default(z.nullable(TeamId), null),
    heartbeat: z._default(z.nullable(HeartbeatSettings), null),
    urgency: z._default(MonitorUrgency, null),
    ack_timeout_minutes: z._default(AckTimeoutMinutes, null),
  }),
  { id: 'CreateMonitor', example: { name: 'Checkout API', failure_threshold: 3, escalation_policy_id: null, team_id: null } },
);
export type CreateMonitorInput = z.output<typeof createMonitorInput>;

export const updateMonitorInput = z.prefault(
  described(
    z.partial(
      z.strictObject({
        name: MonitorName,
        failure_threshold: FailureThreshold,
        escalation_policy_id: z.nullable(z.uuid()),
        team_id: z.nullable(TeamId),
        heartbeat: z.nullable(HeartbeatSettings),
        urgency: MonitorUrgency,
        ack_timeout_minutes: AckTimeoutMinutes,
      }),
    ),
    { id: 'UpdateMonitor', minProperties: 1, example: { failure_threshold: 5 } },
  ),
  {},
);
export type UpdateMonitorInput = z.output<typeof updateMonitorInput>;

export const monitorItem = z.object({
  id: z.string(),
  name: z.string(),
  owner_id: z.string(),
  failure_threshold: z.number(),
  escalation_policy_id: z.nullable(z.string()),
  /** The team the monitor is shared with; stored absent when it is its owner's alone. */
  team_id: z.pipe(
    z.nullish(z.string()),
    z.transform((value) => value ?? null),
  ),
  /** Its heartbeat settings; absent (written before heartbeats existed) counts as none. */
  heartbeat: z.pipe(
    z.nullish(z.object({ interval_seconds: z.number(), grace_seconds: z.number() })),
    z.transform((value) => value ?? null),
  ),
  /** The urgency its incidents open with; absent (written before urgencies) or null: their severity's. */
  urgency: z.pipe(
    z.nullish(Urgency),
    z.transform((value) => value ?? null),
  ),
  /** Issue 45 §2; absent (written before it) or null: off. */
  ack_timeout_minutes: z.pipe(
    z.nullish(z.number()),
    z.transform((value) => value ?? null),
  ),
  /** Issue 45 §1: its maintenance windows not yet ended (id, starts_at, ends_at), and the summary's version. */
  maintenance: z._default(z.array(z.object({ id: z.string(), starts_at: z.string(), ends_at: z.string() })), []),
  maintenance_version: z._default(z.number(), 0),
  /** Counts the monitor's moves between scopes; incidents carry the `team_seq` of the scope they are indexed in. */
  team_seq: z._default(z.number(), 0),
  /** How many incidents the monitor has had (the rescoper knows when it has seen them all). */
  incident_count: z._default(z.number(), 0),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Monitor = z.output<typeof monitorItem>;

export const MonitorBody = described(
  z.strictObject({
    id: Id,
    name: described(z.string(), { example: 'Checkout API' }),
    owner_id: Id,
    failure_threshold: z.int().check(z.minimum(1)),
    escalation_policy_id: z.nullable(Id),
    team_id: described(z.nullable(Id), { description: 'The team the monitor is shared with; null when it is its owner\'s alone' }),
    heartbeat: z.nullable(
      described(z.strictObject({ interval_seconds: z.int(), grace_seconds: z.int() }), {
        id: 'Heartbeat',
        description: 'A ping is expected at POST /heartbeats/{key} (a key of the monitor\'s integrations) at least every interval_seconds, plus grace_seconds; null: no heartbeat',
        example: { interval_seconds: 300, grace_seconds: 60 },
      }),
    ),
    urgency: MonitorUrgency,
    ack_timeout_minutes: AckTimeoutMinutes,
    maintenance_until: described(z.nullable(Timestamp), {
      description: "While a maintenance window (the monitor's or its team's) covers it: when maintenance ends (the end of the windows that overlap one after another); null otherwise",
    }),
    last_ping_at: described(z.nullable(Timestamp), {
      description: 'When the last heartbeat ping arrived; null before the first ping (turning the heartbeat on is not one) and for a monitor without a heartbeat',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  { id: 'Monitor' },
);

/** `lastPingAt`: the heartbeat item's `last_ping_at` (read beside the monitor); shown only while it has a heartbeat. */
export const monitorView = (monitor: Monitor, lastPingAt: string | null = null, maintenanceUntil: string | null = null): z.output<typeof MonitorBody> => ({
  id: monitor.id,
  name: monitor.name,
  owner_id: monitor.owner_id,
  failure_threshold: monitor.failure_threshold,
  escalation_policy_id: monitor.escalation_policy_id,
  team_id: monitor.team_id,
  heartbeat: monitor.heartbeat,
  urgency: monitor.urgency,
  ack_timeout_minutes: monitor.ack_timeout_minutes,
  maintenance_until: maintenanceUntil,
  last_ping_at: monitor.heartbeat ? lastPingAt : null,
  created_at: monitor.created_at,
  updated_at: monitor.updated_at,
});
export type MonitorView = ReturnType<typeof monitorView>;
