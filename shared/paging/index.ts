/**
 * The paging flow, in the order it happens. What the things are lives in their domains (a monitor,
 * an incident and its timeline, an escalation policy, a schedule); what happens to them over time,
 * from a signal to the incident's resolution, lives here, one file per stage (as GoAlert keeps
 * `alert/`, `escalation/`, `schedule/` apart from its `engine/…manager/`).
 *
 * 1. A signal (`signal.ts`): something says a monitor is failing. Each signal is a `Signal` given to
 *    `raise`, the one entry: it opens the monitor's incident for that signal or adds to the open one,
 *    settled by the signal's claim item. The signals today:
 *    - a monitor check past its threshold (`check.ts`; the `monitor-check` worker);
 *    - an alert from a monitoring tool (`../alerts/ingest.ts`; `POST /v2/enqueue`, `POST /integrations/alertmanager`);
 *    - a missed heartbeat (`../heartbeats/service.ts`; the `heartbeat-sweep` worker, every minute).
 * 2. Open (`open.ts`): one transaction writes the automatic incident, its escalation steps from the
 *    monitor's policy (a step due at once is paged right there — its people read first, `recipients.ts` —
 *    unless it targets a schedule, whose on-call person stage 3 finds), the claim, the monitor's incident
 *    count, the `created` timeline entry and the `incident.created` event in the outbox. The outbox
 *    reaches the bus through the table's stream and the publisher (`functions/events/publisher.ts`);
 *    the notifier e-mails the monitor's subscribers, the webhook worker tells receivers.
 * 3. Escalate (`escalate.ts`): `incident.created` → the `escalation-scheduler` worker makes one
 *    one-time EventBridge Scheduler schedule per step still to come (a step due within 30 s is paged now).
 * 4. Page (`page.ts`, `targets.ts`, `step-page.ts`): a schedule fires → the `escalation-step` worker pages the step,
 *    once, if the incident is neither acknowledged nor resolved (otherwise the step is cancelled): its
 *    targets resolved at that instant (whoever is on call in a schedule, a person, an address), the step
 *    marked sent with the `incident.escalation_step` event (its `recipients`: people and bare
 *    addresses), which the notifier turns into messages through `../channels/`, each carrying an
 *    acknowledge link that acknowledges as its recipient.
 *    Outside addresses (`outside.ts`): a page to an address that is no account's own carries a stop
 *    link and is admitted first, once per event, against the sending account's daily quotas; withheld
 *    (stopped, over the quota), it is on the timeline (`page_withheld`).
 *    A person (`notify-person.ts`): their notification rules for the incident's urgency, each through
 *    its method's channel (e-mail, SMS, a call) after its delay — at once by the `person-notification`
 *    worker (a target of the event), or by a one-time schedule (`schedule-person.ts`: the worker's
 *    `person.notifications_delayed` event, the escalation scheduler its target) to the same worker, which sends only if the incident is
 *    still neither acknowledged nor resolved; no usable rule: their account's e-mail. Each message is a
 *    `notification` timeline entry (its status updated by the provider's receipts). SMS and calls are
 *    throttled per method (`../notifications/throttle.ts`: GoAlert's limits, sliding windows): past
 *    them a page is held and goes out with the others held as one combined message when the window
 *    allows (a `person.messages_held` event, the escalation scheduler its target, schedules it).
 * 5. Acknowledge (`acknowledge.ts`): someone has it; the steps not yet sent will be cancelled. People
 *    acknowledge through the API or the page's link (`../incidents/service.ts`,
 *    `../incidents/acknowledge-link.ts`); a signal's source through `acknowledgeAsSource`.
 * 6. Resolve (`resolve.ts`): the signal recovers (a check's `up`, the tool's resolve, the next ping):
 *    `resolveAutomaticIncident` resolves it and releases the claim in one transaction, so the next
 *    failure opens a new incident. People resolve through the API (`../incidents/service.ts`).
 *
 * Incidents opened by hand (`POST /api/incidents`) notify subscribers but never page: they start at
 * neither stage 1 nor 2.
 *
 * This module is the flow's table of contents; callers import the stage they use (a function's
 * bundle then holds only what it runs).
 */
export { raise, readSignal, type RaiseOutcome, type Signal, type SignalRead } from './signal.js';
export { monitorCheckInput, processMonitorCheck, type CheckOutcome, type CheckResult, type MonitorCheckInput } from './check.js';
export { openAutomaticIncident, type AutomaticIncidentSpec } from './open.js';
export { scheduleEscalation, scheduleName } from './escalate.js';
export { escalationStepInput, sendEscalationStep, type EscalationStepInput, type NobodyOnCallReport, type StepOutcome } from './page.js';
export { resolveTargets } from './targets.js';
export { accountHolders, admitOutsidePage, inspectStopLink, newStopPagingLink, stopPaging, type Admission, type StopLinkState } from './outside.js';
export { planPersonPage, rulesToFire, usable, type PagedPerson, type PersonNotificationInput, type PersonPlan, type RuleToFire } from './notify-person.js';
export { schedulePersonRules, personScheduleName } from './schedule-person.js';
export { acknowledgeAsSource, type SourceAcknowledger } from './acknowledge.js';
export { resolveAutomaticIncident } from './resolve.js';
