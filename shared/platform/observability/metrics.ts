/**
 * Business metrics, as domain code states them. The handler stack connects a sink (Powertools
 * Metrics, CloudWatch EMF); without one — unit tests, scripts — they go nowhere.
 */
export type MetricName =
  | 'IncidentCreated'
  | 'IncidentResolved'
  | 'IncidentAcknowledged'
  | 'NotificationSent'
  | 'NotificationFailed'
  | 'EscalationStepSent'
  | 'InviteCreated'
  | 'InviteAccepted'
  | 'EmailSuppressed'
  | 'EmailBounced'
  | 'EscalationTargetBounced'
  /** A page found nobody on call in a schedule it targets (its other targets were still paged). */
  | 'ScheduleNobodyOnCall'
  /** An escalation page sent again after a send whose fate was unknown (a crash, an ambiguous SES error): maybe twice. */
  | 'EscalationPagePossibleDuplicate'
  /** A page to an outside address not sent: the address stopped the account, or the account's daily quota was reached (issue 41). */
  | 'EscalationPageWithheld'
  /** Receipts of SMS and calls (issue 43): delivered, or failed (alarmed on AWS). */
  | 'PhoneMessageDelivered'
  | 'PhoneMessageFailed'
  /** What a sent SMS or call cost (USD): its final receipt's price and carrier fee (alarmed per day on AWS). */
  | 'PhoneSpendUSD'
  /** An SMS reply from a person: an action taken (acknowledge, resolve, escalate), STOP, START, or help answered. */
  | 'SmsReply'
  /** A page to a phone method held past its throttle, and a combined message that sent what was held (issue 43 §4). */
  | 'NotificationHeld'
  | 'CombinedMessageSent'
  /** A shift notice sent (issue 45 §3), by channel. */
  | 'ShiftNoticeSent'
  /** A shift notice not sent on a phone method past its throttle, by channel. */
  | 'ShiftNoticeThrottled'
  /** An acknowledgement timed out: its incident unacknowledged, escalation restarted from step 1 (issue 45 §2). */
  | 'AcknowledgementTimedOut';

/** A metric's occurrence: a count of 1 (`value` absent), or an amount (`value`, unitless: e.g. USD). */
export type MetricSink = (name: MetricName, dimensions: Record<string, string>, value?: number) => void;

let sink: MetricSink | undefined;

export function setMetricSink(next: MetricSink | undefined) {
  sink = next;
}

/** Counts one occurrence of `name`, with optional dimensions (e.g. `{ kind: 'manual' }`). */
export function countMetric(name: MetricName, dimensions: Record<string, string> = {}) {
  sink?.(name, dimensions);
}

/** Records an amount of `name` (e.g. a price in USD), with optional dimensions; summed by CloudWatch like a count. */
export function measureMetric(name: MetricName, value: number, dimensions: Record<string, string> = {}) {
  sink?.(name, dimensions, value);
}
