/** The heartbeat item's keys and the write that arms it (the monitor's transactions carry it). */
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { keys } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { NotFoundError } from '../platform/errors.js';
import type { Heartbeat } from './model.js';

export const HEARTBEAT_INDEX = 'heartbeat-due';
export const SHARDS = '0123456789abcdef';
const shardOf = (monitorId: string) => `HEARTBEAT#${monitorId[0]!.toLowerCase()}`;
export const epochSeconds = () => Math.floor(clock.now().getTime() / 1000);

export const heartbeatNotFound = () => new NotFoundError('Heartbeat not found');

/**
 * The transaction action that arms (or re-arms) a monitor's heartbeat with `settings`: the deadline
 * is a period from now (enabling counts as a ping). An Update, so a missed incident it remembers is
 * kept for the next ping to resolve. `null`: the heartbeat item goes (its open missed-heartbeat incident is
 * resolved in the same transaction: `missedIncidentResolution` in service.ts).
 */
export function heartbeatWrite(monitorId: string, settings: Heartbeat | null): TransactItem {
  const key = keys.monitorHeartbeat(monitorId);
  if (!settings) return { Delete: { TableName: tableName(), Key: key } };
  const period = settings.interval_seconds + settings.grace_seconds;
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression:
        'SET #type = :type, monitor_id = :monitor, period_seconds = :period, hb_shard = :shard, hb_due_pk = :shard, hb_deadline = :deadline, armed_at = :now',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':type': 'heartbeat',
        ':monitor': monitorId,
        ':period': period,
        ':shard': shardOf(monitorId),
        ':deadline': epochSeconds() + period,
        ':now': clock.nowIso(),
      },
    },
  };
}

