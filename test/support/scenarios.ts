/** Set-ups that go through the API, shared by tests and the bench. */
import { randomUUID } from 'node:crypto';

/** Sends one API request as some caller and answers its JSON body (the caller checks the status). */
export type Send = (method: string, path: string, body: unknown) => Promise<any>;

export interface PagingMonitor {
  /** In every name and address below, so that a run finds its own mail. */
  tag: string;
  subscriber: string;
  oncall: string;
  policyId: string;
  monitorId: string;
}

/**
 * A monitor whose first failed check opens an incident, with an escalation policy that pages
 * `oncall` at once and one subscriber: the whole e-mail path of a down check.
 */
export async function pagingMonitor(send: Send, domain = 'example.com'): Promise<PagingMonitor> {
  const tag = randomUUID().slice(0, 8);
  const [subscriber, oncall] = [`sub-${tag}@${domain}`, `oncall-${tag}@${domain}`];
  const policy = (await send('POST', '/api/escalation-policies', { name: `Pages ${tag}`, steps: [{ delay_minutes: 0, emails: [oncall] }] })).escalation_policy;
  const monitor = (await send('POST', '/api/monitors', { name: `Check ${tag}`, failure_threshold: 1, escalation_policy_id: policy.id })).monitor;
  await send('POST', `/api/monitors/${monitor.id}/subscribers`, { email: subscriber });
  return { tag, subscriber, oncall, policyId: policy.id, monitorId: monitor.id };
}
