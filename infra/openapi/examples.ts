/**
 * The OpenAPI document's examples, kept here (imported by the generator alone) so that no Lambda
 * bundle carries them: the models name their schemas (`{ id: 'Incident' }`), and `schemaExamples`
 * gives the example of each named schema, `routeExamples` the success body of a route whose answer
 * is not its schema's example.
 *
 * One consistent story for the OpenAPI document's examples: Alice owns the "Checkout API" monitor,
 * shared with the SRE team; it opened an incident at 10:05 that she acknowledged at 10:09 and that
 * is still being investigated; Bob is invited. Every example obeys the domain's rules (distinct
 * ids, `resolved_at` only when RESOLVED, an acknowledgement only when acknowledged), which
 * test/unit/openapi.test.ts checks, so "Try it out" never shows an impossible object.
 */
export const ids = {
  alice: '0b6f3c1e-6c2a-4d1f-9a5e-2f7d8c9b1a01',
  bob: '0b6f3c1e-6c2a-4d1f-9a5e-2f7d8c9b1a02',
  monitor: '1c7a4d2f-7d3b-4e2a-8b6f-3a8e9d0c2b01',
  incident: '2d8b5e3a-8e4c-4f3b-9c7a-4b9f0e1d3c01',
  acknowledgement: '2d8b5e3a-8e4c-4f3b-9c7a-4b9f0e1d3c02',
  policy: '3e9c6f4b-9f5d-4a4c-8d8b-5c0a1f2e4d01',
  team: '4fad7a5c-a06e-4b5d-9e9c-6d1b2a3f5e01',
  aliceMember: '4fad7a5c-a06e-4b5d-9e9c-6d1b2a3f5e02',
  invite: '4fad7a5c-a06e-4b5d-9e9c-6d1b2a3f5e03',
  subscriber: '5abe8b6d-b17f-4c6e-8fad-7e2c3b4a6f01',
  update: '019aa5d6-1f40-7a3c-9b2e-6f1d0c8e5a01',
  integration: '6bcf9c7e-c280-4d7f-9abe-8f3d4c5b7a01',
  schedule: '6bcf9c7e-c28a-4d7f-9abe-8f3d4c5b7a01',
  override: '6bcf9c7e-c28a-4d7f-9abe-8f3d4c5b7a02',
  contactMethod: '7cd0ad8f-d391-4e80-8bcf-9a4e5d6c8b01',
  notificationRule: '7cd0ad8f-d391-4e80-8bcf-9a4e5d6c8b02',
  maintenanceWindow: '019aa5d6-1f40-7a3c-9b2e-6f1d0c8e5a02',
} as const;

const at = (time: string) => `2026-11-21T${time}:00.000Z`;

export const monitorExample = {
  id: ids.monitor,
  name: 'Checkout API',
  owner_id: ids.alice,
  failure_threshold: 3,
  escalation_policy_id: ids.policy,
  team_id: ids.team,
  heartbeat: null,
  urgency: null,
  ack_timeout_minutes: 30,
  maintenance_until: null,
  last_ping_at: null,
  created_at: at('09:00'),
  updated_at: at('09:30'),
};

export const incidentExample = {
  id: ids.incident,
  monitor_id: ids.monitor,
  title: 'Checkout API is down',
  status: 'INVESTIGATING' as const,
  severity: 'HIGH' as const,
  urgency: 'high' as const,
  acknowledged: true,
  in_maintenance: false,
  started_at: at('10:05'),
  resolved_at: null,
  created_at: at('10:05'),
};

/** The same incident as `POST /api/incidents` answers it at 10:05: nobody has acknowledged it yet. */
export const createdIncidentExample = { ...incidentExample, acknowledged: false };

/** As `PUT /api/incidents/:id` answers the update's example (`IDENTIFIED`, `CRITICAL`). */
export const updatedIncidentExample = { ...incidentExample, status: 'IDENTIFIED' as const, severity: 'CRITICAL' as const };

export const incidentListItemExample = { ...incidentExample, monitor_name: monitorExample.name, escalation_policy_id: ids.policy };

export const acknowledgementExample = {
  id: ids.acknowledgement,
  incident_id: ids.incident,
  user_id: ids.alice,
  user_name: 'Alice Example',
  user_email: 'alice@example.com',
  method: 'api',
  acknowledged_at: at('10:09'),
};

/** Alice's note on the incident, posted at 10:12 while it is still being investigated. */
export const timelineEntryExample = {
  id: ids.update,
  incident_id: ids.incident,
  kind: 'note',
  status: 'INVESTIGATING',
  message: 'Payments return 502s since 10:05; we are looking at the gateway.',
  user_id: ids.alice,
  user_name: 'Alice Example',
  created_at: at('10:12'),
  details: null,
};

export const incidentDetailExample = {
  ...incidentListItemExample,
  acknowledgement: acknowledgementExample,
  escalation_steps: [
    { step_order: 1, delay_minutes: 0 },
    { step_order: 2, delay_minutes: 15 },
  ],
};

export const policyExample = {
  id: ids.policy,
  name: 'Primary on-call',
  owner_id: ids.alice,
  steps: [
    { step_order: 1, delay_minutes: 0, emails: ['oncall@example.com'] },
    { step_order: 2, delay_minutes: 15, emails: ['lead@example.com', 'cto@example.com'] },
  ],
  team_id: ids.team,
  created_at: at('08:45'),
};

export const teamExample = {
  id: ids.team,
  name: 'Site Reliability',
  slug: 'sre',
  owner_id: ids.alice,
  created_at: at('08:30'),
  updated_at: at('08:30'),
};

export const teamListItemExample = { ...teamExample, member_count: 1, user_role: 'OWNER' };

export const memberExample = { id: ids.aliceMember, team_id: ids.team, user_id: ids.alice, role: 'OWNER', joined_at: at('08:30') };

export const memberDetailExample = { ...memberExample, name: 'Alice Example', email: 'alice@example.com' };

export const inviteExample = {
  id: ids.invite,
  team_id: ids.team,
  email: 'bob@example.com',
  role: 'MEMBER',
  token: 'kq3C9f1mXh0yJt5u2V8wLz6bN4rP7sA1dE0gH3jK5mQ',
  invited_by: ids.alice,
  expires_at: '2026-11-28T11:00:00.000Z',
  created_at: at('11:00'),
};

export const teamDetailExample = {
  team: teamExample,
  members: [memberDetailExample],
  pendingInvites: [inviteExample],
  userRole: 'OWNER',
  permissions: { rename: true, delete: true, invite: true, cancel_invites: true, remove_members: true, change_roles: true },
};

export const integrationListExample = {
  id: ids.integration,
  monitor_id: ids.monitor,
  name: 'Prometheus Alertmanager',
  key_hint: 'k2m9',
  created_at: at('09:20'),
  created_by: ids.alice,
  last_event_at: at('10:05'),
  created_by_left: false,
};

export const integrationExample = { ...integrationListExample, key: '3xw8e1vz0c6ty5bu4nj7mr9sa2hdk2m9', last_event_at: null };

export const subscriberExample = {
  id: ids.subscriber,
  monitor_id: ids.monitor,
  email: 'customer@example.com',
  created_at: at('09:15'),
  suppression: null,
  status: 'confirmed' as const,
};

export const scheduleExample = {
  id: ids.schedule,
  name: 'Payments primary',
  time_zone: 'Europe/Berlin',
  layers: [
    {
      name: 'Weekly',
      start: '2026-11-02T09:00',
      rotation: { type: 'weekly', length: 1 },
      handoff_time: '09:00',
      members: [ids.alice, ids.bob],
    },
  ],
  owner_id: ids.alice,
  team_id: ids.team,
  created_at: at('08:50'),
  updated_at: at('08:50'),
};

export const overrideExample = {
  id: ids.override,
  user_id: ids.bob,
  start: at('12:00'),
  end: '2026-11-21T18:00:00.000Z',
  created_by: ids.alice,
  created_at: at('10:30'),
};

/** Alice's phone as a contact method: verified, notified 5 minutes into a high-urgency page. */
export const contactMethodExample = {
  id: ids.contactMethod,
  type: 'sms' as const,
  address: '+14155550100',
  name: 'Work phone',
  verified: true,
  disabled: false,
  created_at: at('08:00'),
};

export const notificationRuleExample = { id: ids.notificationRule, contact_method_id: ids.contactMethod, delay_minutes: 5, urgency: 'high' as const, created_at: at('08:05') };

/** The example of each named schema (`described(…, { id })` in the models), by its id. */
/** Alice's window for the database upgrade that night (issue 45 §1). */
export const maintenanceWindowExample = {
  id: ids.maintenanceWindow,
  monitor_id: ids.monitor,
  team_id: null,
  starts_at: '2026-11-21T22:00:00.000Z',
  ends_at: '2026-11-21T23:00:00.000Z',
  reason: 'Database upgrade',
  created_by: ids.alice,
  created_at: at('10:30'),
};

export const schemaExamples: Record<string, unknown> = {
  MaintenanceWindow: maintenanceWindowExample,
  Monitor: monitorExample,
  Incident: incidentExample,
  IncidentListItem: incidentListItemExample,
  Acknowledgement: acknowledgementExample,
  IncidentDetail: incidentDetailExample,
  IncidentUpdate: timelineEntryExample,
  EscalationPolicy: policyExample,
  Team: teamExample,
  TeamListItem: teamListItemExample,
  TeamMember: memberExample,
  TeamMemberDetail: memberDetailExample,
  TeamInvite: inviteExample,
  TeamDetail: teamDetailExample,
  Integration: integrationListExample,
  CreatedIntegration: integrationExample,
  Subscriber: subscriberExample,
  Schedule: scheduleExample,
  ScheduleOverride: overrideExample,
  ContactMethod: contactMethodExample,
  NotificationRule: notificationRuleExample,
};

/**
 * The success body as a route answers it, by route name, where the response schema's own example
 * is not a state this route can answer (a created incident is never acknowledged; an acknowledged
 * one always is).
 */
export const routeExamples: Record<string, unknown> = {
  'incidents-create': { incident: createdIncidentExample },
  // A new contact method waits for its code.
  'contact-methods-create': { contact_method: { ...contactMethodExample, verified: false } },
  'incidents-acknowledge': { incident: incidentExample },
  'incidents-update': { incident: updatedIncidentExample },
};
