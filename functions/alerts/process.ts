/**
 * `alert-processor`: reads the table's stream (only new alert batches, written by
 * `POST /integrations/alertmanager`) and applies each batch's alerts (`shared/alerts/intake.ts`). A
 * failure throws, so the stream mapping retries the batch (applying an alert state twice does nothing)
 * and, past its retries, gives it to the on-failure queue.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { ALERT_BATCH_ITEM_TYPE, processAlertBatch } from '../../shared/alerts/intake.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler('alert-processor', async (event: DynamoDBStreamEvent, context: Context) => {
  const totals: Record<string, number> = {};
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.type?.S !== ALERT_BATCH_ITEM_TYPE) continue;
    // Within its time: what it cannot reach goes on as a batch of its own (issue 46 §4).
    const outcomes = await processAlertBatch(unmarshall(image as Record<string, AttributeValue>), { remainingMs: () => context.getRemainingTimeInMillis() });
    for (const [outcome, count] of Object.entries(outcomes)) totals[outcome] = (totals[outcome] ?? 0) + count;
  }
  return totals;
}, (totals) => Object.entries(totals).map(([outcome, count]) => `${outcome} ${count}`).join(', ') || 'none');
