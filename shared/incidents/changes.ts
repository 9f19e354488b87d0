/**
 * What a change of an incident is, whoever makes it (a person through the API, a signal's recovery):
 * the incident after it, and the outbox events it asks for. Pure; the writes are the caller's.
 */
import { outboxPut } from '../platform/events/outbox.js';
import { incidentSnapshot } from './snapshots.js';
import type { Incident, UpdateIncidentInput } from './model.js';
import type { TimelineEntry } from './timeline.js';

/**
 * The incident after `changes`: RESOLVED sets `resolved_at` (keeping an earlier one, unless
 * `resolvedAt` is `now`: DELETE's "set to now"), other statuses clear it.
 */
export function applyChanges(current: Incident, changes: UpdateIncidentInput, now: string, resolvedAt: 'kept' | 'now' = 'kept'): Incident {
  const status = changes.status ?? current.status;
  return {
    ...current,
    title: changes.title ?? current.title,
    severity: changes.severity ?? current.severity,
    status,
    resolved_at: status === 'RESOLVED' ? (resolvedAt === 'now' ? now : (current.resolved_at ?? now)) : null,
    updated_at: now,
  };
}

/** A note as events carry it. */
const noteOf = (entry: TimelineEntry) => ({
  id: entry.id,
  message: entry.message ?? '',
  user_id: entry.user_id ?? '',
  user_name: entry.user_name ?? '',
  created_at: entry.created_at,
});

/**
 * The notification a change asks for: resolved, status changed, or none; a note travels with
 * the status change it made, and a note without one is an update of its own.
 */
export function statusEvents(current: Incident, next: Incident, now: string, note?: TimelineEntry) {
  const updated = updatedEvent(current, next, now, note);
  if (next.status === current.status) {
    return [...updated, ...(note && updated.length === 0 ? [outboxPut('incident.note_added', { incident: incidentSnapshot(next), note: noteOf(note) }, now)] : [])];
  }
  const payload = { incident: incidentSnapshot(next), previous_status: current.status, ...(note ? { note: noteOf(note) } : {}) };
  return [
    ...updated,
    next.status === 'RESOLVED' ? outboxPut('incident.resolved', payload, now) : outboxPut('incident.status_changed', payload, now),
  ];
}

/**
 * `incident.updated` (outgoing webhooks) when status — other than to RESOLVED, which is
 * `incident.resolved` —, severity or title changed, with each change; none otherwise.
 */
function updatedEvent(current: Incident, next: Incident, now: string, note?: TimelineEntry) {
  const changed = <K extends 'status' | 'severity' | 'title'>(field: K) =>
    current[field] !== next[field] && !(field === 'status' && next.status === 'RESOLVED') ? { [field]: { from: current[field], to: next[field] } } : {};
  const changes = { ...changed('status'), ...changed('severity'), ...changed('title') };
  if (Object.keys(changes).length === 0) return [];
  // A note that changed only severity or title travels here (no other event carries it); with a status change, it travels with that too.
  return [outboxPut('incident.updated', { incident: incidentSnapshot(next), changes, ...(note ? { note: noteOf(note) } : {}) }, now)];
}
