/** A monitor's heartbeat as a responder reads it. Pure (no DOM): tested beside it. */

export interface HeartbeatFields {
  heartbeat: { interval_seconds: number; grace_seconds: number } | null;
  last_ping_at: string | null;
}

export type HeartbeatState =
  | { kind: 'off' }
  /** On, no ping yet (turning it on is not a ping): the service counts from when it was turned on. */
  | { kind: 'waiting' }
  | { kind: 'ok'; dueAt: Date }
  | { kind: 'missed'; dueAt: Date };

/** Whether the last ping is older than interval + grace at `now`. */
export function heartbeatState(monitor: HeartbeatFields, now: Date): HeartbeatState {
  if (!monitor.heartbeat) return { kind: 'off' };
  if (!monitor.last_ping_at) return { kind: 'waiting' };
  const dueAt = new Date(Date.parse(monitor.last_ping_at) + (monitor.heartbeat.interval_seconds + monitor.heartbeat.grace_seconds) * 1000);
  return now.getTime() > dueAt.getTime() ? { kind: 'missed', dueAt } : { kind: 'ok', dueAt };
}

/** A span of seconds in the largest whole unit that fits ("5 minutes", "1 hour", "90 seconds"). */
export function formatSeconds(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
