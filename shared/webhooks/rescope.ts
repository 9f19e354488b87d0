/**
 * After a monitor moved between scopes (a team, or its owner alone), lists its webhooks where it
 * now is: in its new team's index, or in none but its owner's. Run by the rescoper off the request
 * path (`monitor.team_changed`); idempotent and ordered by the monitor's `team_seq`, like the
 * incidents' re-scoping. It finishes only when it has seen as many webhooks as the monitor's
 * counter holds (the monitor index is eventually consistent); otherwise it throws, and the event
 * is retried. Whether a webhook may still deliver is not decided here: every delivery checks its
 * creator's access at the time.
 */
import { getMonitor } from '../monitors/repository.js';
import { monitorWebhookCount, monitorWebhooks, rescopeMonitorWebhook } from './repository.js';

const PASSES = 5;

export async function rescopeWebhooks(monitorId: string, options: { pauseMs?: number } = {}): Promise<{ moved: number; seen: number }> {
  const monitor = await getMonitor(monitorId);
  // A deleted monitor's webhooks stay where they were: nothing more reaches them.
  if (!monitor) return { moved: 0, seen: 0 };
  const place = { owner_id: monitor.owner_id, team_id: monitor.team_id, team_seq: monitor.team_seq };
  const expected = await monitorWebhookCount(monitorId);
  let moved = 0;
  let seen = 0;
  for (let pass = 1; pass <= PASSES; pass++) {
    const webhooks = await monitorWebhooks(monitorId);
    seen = webhooks.length;
    moved += (await Promise.all(webhooks.map((webhook) => rescopeMonitorWebhook(webhook, place)))).filter(Boolean).length;
    if (seen >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, (options.pauseMs ?? 500) * pass));
  }
  if (seen < expected) throw new Error(`Monitor ${monitorId}: saw ${seen} of ${expected} webhooks in the monitor index; will retry`);
  return { moved, seen };
}
