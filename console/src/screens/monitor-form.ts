/**
 * A monitor's form as a person fills it (strings, minutes) and the API's bodies (numbers, seconds, null
 * for "none"). An edit sends only what changed, so re-saving leaves a heartbeat's deadline and the team
 * alone. Pure (no DOM): tested beside it.
 */

export interface MonitorValues {
  name: string;
  failure_threshold: string;
  /** '' for none. */
  escalation_policy_id: string;
  /** '' for the owner's alone. */
  team_id: string;
  /** '' for "each incident's severity decides". */
  urgency: '' | 'high' | 'low';
  heartbeat: boolean;
  interval_minutes: string;
  grace_minutes: string;
  /** '' for none: an acknowledgement never times out (issue 45 §2). */
  ack_timeout_minutes: string;
}

export interface MonitorFields {
  name: string;
  failure_threshold: number;
  escalation_policy_id: string | null;
  team_id: string | null;
  urgency: 'high' | 'low' | null;
  heartbeat: { interval_seconds: number; grace_seconds: number } | null;
  ack_timeout_minutes?: number | null;
}

export interface MonitorBody {
  name?: string;
  failure_threshold?: number;
  escalation_policy_id?: string | null;
  team_id?: string | null;
  urgency?: 'high' | 'low' | null;
  heartbeat?: { interval_seconds: number; grace_seconds: number } | null;
  ack_timeout_minutes?: number | null;
}

export const emptyMonitor: MonitorValues = {
  name: '',
  failure_threshold: '3',
  escalation_policy_id: '',
  team_id: '',
  urgency: '',
  heartbeat: false,
  interval_minutes: '60',
  grace_minutes: '5',
  ack_timeout_minutes: '',
};

/** A number as typed (the API says what is wrong with it: a blank is sent as NaN → its own validation text). */
const number = (typed: string) => (typed.trim() === '' ? Number.NaN : Number(typed));

export function valuesOf(monitor: MonitorFields): MonitorValues {
  return {
    name: monitor.name,
    failure_threshold: String(monitor.failure_threshold),
    escalation_policy_id: monitor.escalation_policy_id ?? '',
    team_id: monitor.team_id ?? '',
    urgency: monitor.urgency ?? '',
    heartbeat: monitor.heartbeat !== null,
    interval_minutes: monitor.heartbeat ? String(monitor.heartbeat.interval_seconds / 60) : emptyMonitor.interval_minutes,
    grace_minutes: monitor.heartbeat ? String(monitor.heartbeat.grace_seconds / 60) : emptyMonitor.grace_minutes,
    ack_timeout_minutes: monitor.ack_timeout_minutes == null ? '' : String(monitor.ack_timeout_minutes),
  };
}

/** The whole body of a new monitor. */
export function createBody(values: MonitorValues): Required<MonitorBody> & { name: string } {
  return {
    name: values.name,
    failure_threshold: number(values.failure_threshold),
    escalation_policy_id: values.escalation_policy_id || null,
    team_id: values.team_id || null,
    urgency: values.urgency || null,
    heartbeat: values.heartbeat
      ? { interval_seconds: Math.round(number(values.interval_minutes) * 60), grace_seconds: Math.round(number(values.grace_minutes || '0') * 60) }
      : null,
    ack_timeout_minutes: values.ack_timeout_minutes.trim() === '' ? null : number(values.ack_timeout_minutes),
  };
}

/** Only the fields that differ from the monitor as read (an empty object: nothing changed). */
export function changesOf(monitor: MonitorFields, values: MonitorValues): MonitorBody {
  const next = createBody(values);
  const changes: MonitorBody = {};
  if (next.name !== monitor.name) changes.name = next.name;
  if (next.failure_threshold !== monitor.failure_threshold) changes.failure_threshold = next.failure_threshold;
  if (next.escalation_policy_id !== monitor.escalation_policy_id) changes.escalation_policy_id = next.escalation_policy_id;
  if (next.team_id !== monitor.team_id) changes.team_id = next.team_id;
  if (next.urgency !== monitor.urgency) changes.urgency = next.urgency;
  if (next.ack_timeout_minutes !== (monitor.ack_timeout_minutes ?? null)) changes.ack_timeout_minutes = next.ack_timeout_minutes;
  const before = monitor.heartbeat;
  const after = next.heartbeat;
  if ((before === null) !== (after === null) || (before && after && (before.interval_seconds !== after.interval_seconds || before.grace_seconds !== after.grace_seconds))) {
    changes.heartbeat = after;
  }
  return changes;
}
