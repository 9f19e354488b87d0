/**
 * What a member removed from a team leaves behind (a review run right after the removal): the
 * team's webhooks they created — a team's, or one of a team monitor they do not own — are
 * disabled (`creator_lost_access`) at once, each on the condition that they still have no way to
 * read what it sends (the delivery worker checks the same before every message anyway); the
 * integrations they created on the team's monitors keep working (they serve the team's tools), and
 * are named, so the team can review them (their lists say `created_by_left`).
 */
import * as z from '../platform/zod.js';
import { described, Id } from '../platform/api/common.js';
import { keys, teamIndex } from '../platform/db/keys.js';
import { batchGet, queryIndex } from '../platform/db/ops.js';
import { monitorItem } from '../monitors/model.js';
import { integrationsCreatedBy } from '../integrations/repository.js';
import { reviewCreatorAccess } from './service.js';
import { urlHint, webhookItem } from './model.js';

export const LeftBehindBody = described(
  z.strictObject({
    webhooks_disabled: described(
      z.array(z.strictObject({ id: Id, monitor_id: z.nullable(Id), team_id: z.nullable(Id), url: z.string() })),
      { description: "The team's webhooks they created, disabled now (`creator_lost_access`) until someone who may manage one enables it again" },
    ),
    integrations: described(z.array(z.strictObject({ id: Id, monitor_id: Id, name: z.string(), key_hint: z.string() })), {
      description: "The integrations they created on the team's monitors: their keys keep working (delete one to revoke it)",
    }),
  }),
  { id: 'LeftBehind', description: 'What the removed member created for the team; present only when there is something' },
);
export type LeftBehind = z.output<typeof LeftBehindBody>;

/** Reviews what `userId`, just removed from `teamId`, created for it; undefined when nothing. */
export async function reviewLeaver(teamId: string, userId: string): Promise<LeftBehind | undefined> {
  const [webhookItems, integrations] = await Promise.all([
    queryIndex(teamIndex, teamIndex.partition(teamId), teamIndex.webhookPrefix, { owner_id: userId }),
    integrationsCreatedBy(userId),
  ]);
  const monitorIds = [...new Set(integrations.map((integration) => integration.monitor_id))];
  const monitors = new Map((monitorIds.length ? await batchGet(monitorIds.map(keys.monitor)) : []).map((item) => { const monitor = monitorItem.parse(item); return [monitor.id, monitor]; }));
  const kept = integrations.filter((integration) => {
    const monitor = monitors.get(integration.monitor_id);
    return monitor?.team_id === teamId && monitor.owner_id !== userId;
  });
  const disabled: LeftBehind['webhooks_disabled'] = [];
  for (const webhook of webhookItems.map((item) => webhookItem.parse(item))) {
    if (webhook.status !== 'enabled') continue;
    if ((await reviewCreatorAccess(webhook)) !== 'disabled') continue;
    disabled.push({ id: webhook.id, monitor_id: webhook.monitor_id, team_id: webhook.team_id, url: urlHint(webhook.url) });
  }
  if (disabled.length === 0 && kept.length === 0) return undefined;
  return {
    webhooks_disabled: disabled,
    integrations: kept.map((integration) => ({ id: integration.id, monitor_id: integration.monitor_id, name: integration.name, key_hint: integration.key_hint })),
  };
}
