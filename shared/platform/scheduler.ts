/**
 * EventBridge Scheduler, as the service uses it: one-time schedules (an escalation step's page, a
 * webhook delivery's retry), each created once per cold start's client and named deterministically.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { sandboxClient } from './aws-client.js';

/** The Scheduler client, created once per cold start. */
export const scheduler = sandboxClient(() => new SchedulerClient({}));

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the second: a schedule never fires early. */
export function atExpression(iso: string) {
  const ms = Date.parse(iso);
  return `at(${new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19)})`;
}
