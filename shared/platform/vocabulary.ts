/**
 * The words every floor of shared/ speaks: an incident's statuses, severities and ways of being
 * acknowledged, and a member's team roles. They sit here, on the floor of platform/, so that the
 * events (platform/events/) can name them without importing the incidents or teams that own the
 * rest of those forms; incidents/model.ts and teams/model.ts re-export them.
 */
import * as z from './zod.js';

export const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
export const ACKNOWLEDGEMENT_METHODS = ['web', 'api', 'slack', 'email', 'sms'] as const;

export const Status = z.enum(STATUSES);
export const Severity = z.enum(SEVERITIES);
export const AcknowledgementMethod = z.enum(ACKNOWLEDGEMENT_METHODS);
export type Status = z.output<typeof Status>;
export type Severity = z.output<typeof Severity>;
export type AcknowledgementMethod = z.output<typeof AcknowledgementMethod>;

export const ROLES = ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'] as const;
/** Roles an invite or a role change may give: never OWNER. */
export const ASSIGNABLE_ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
export const Role = z.enum(ROLES);
export const AssignableRole = z.enum(ASSIGNABLE_ROLES);
export type Role = z.output<typeof Role>;

/**
 * How urgently an incident wants a person (issue 43 §3): `high` wakes them (their high-urgency
 * notification rules), `low` does not have to. CRITICAL and HIGH are `high`, MEDIUM and LOW `low`,
 * unless the incident's monitor fixes one.
 */
export const URGENCIES = ['high', 'low'] as const;
export const Urgency = z.enum(URGENCIES);
export type Urgency = z.output<typeof Urgency>;
export const urgencyOfSeverity = (severity: Severity): Urgency => (severity === 'CRITICAL' || severity === 'HIGH' ? 'high' : 'low');
