/**
 * Sends an e-mail through SES at most once per (event, recipient): a conditional write of a
 * delivery record comes first; if sending fails the record is removed so a retry sends again.
 */
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { env } from '../../infra/system.js';
import { leanClient } from '../aws-client.js';
import { clock } from '../clock.js';
import { requireEnv } from '../config.js';
import { db, tableName } from '../db/client.js';
import { attributes, itemAbsent, keys } from '../db/keys.js';
import { conditionFailure, TransactionCancelled, transactWrite, type TransactItem } from '../db/ops.js';
import type { Email } from './emails.js';

let client: SESClient | undefined;
/** The SES client, created once per cold start. */
export const sesClient = () => (client ??= leanClient(new SESClient({})));

/** SES refusing a send for the account's sending rate (1/s in the sandbox, 14/s by default). */
const isThrottling = (error: unknown) =>
  error instanceof Error && (error.name === 'Throttling' || error.name === 'ThrottlingException' || /rate exceeded/i.test(error.message));

const THROTTLED_ATTEMPTS = 8;

/** Sends, waiting and trying again (exponential backoff with jitter, up to 8 tries) while SES throttles. */
async function sendPaced(command: SendEmailCommand) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sesClient().send(command);
    } catch (error) {
      if (!isThrottling(error) || attempt >= THROTTLED_ATTEMPTS) throw error;
      const wait = Math.min(4_000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

const keyOf = (item: Record<string, unknown> | undefined) => ({ [attributes.pk]: item?.[attributes.pk], [attributes.sk]: item?.[attributes.sk] });

/** Delivery records outlive any redelivery of the event. */
const DELIVERY_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/**
 * `records` are written with the delivery record, in one transaction (the acknowledge link an
 * escalation e-mail carries): a duplicate writes none, and a failed send removes them again.
 */
export async function deliverOnce(eventId: string, email: Email, records: TransactItem[] = []): Promise<'sent' | 'duplicate'> {
  const key = keys.delivery(eventId, email.to);
  const now = clock.now();
  const delivery = {
    TableName: tableName(),
    Item: {
      ...key,
      type: 'delivery',
      recipient: email.to,
      subject: email.subject,
      sent_at: now.toISOString(),
      [attributes.ttl]: Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS,
    },
    ConditionExpression: itemAbsent,
  };
  try {
    if (records.length === 0) await db().send(new PutCommand(delivery));
    else await transactWrite([{ Put: delivery }, ...records]);
  } catch (error) {
    if (conditionFailure(error) || (error instanceof TransactionCancelled && error.reasons[0]?.code === 'ConditionalCheckFailed')) return 'duplicate';
    throw error;
  }
  try {
    await sendPaced(
      new SendEmailCommand({
        Source: requireEnv(env.senderEmail),
        Destination: { ToAddresses: [email.to] },
        // Bounces and complaints come back through the configuration set, tagged with what the e-mail was about.
        ConfigurationSetName: requireEnv(env.sesConfigurationSet),
        Tags: Object.entries(email.tags).map(([Name, Value]) => ({ Name, Value })),
        Message: {
          Subject: { Data: email.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: email.text, Charset: 'UTF-8' }, Html: { Data: email.html, Charset: 'UTF-8' } },
        },
      }),
    );
    return 'sent';
  } catch (error) {
    // The delivery record goes (so a retry sends), with what was written beside it, at once.
    const doomed = [key, ...records.flatMap((record) => (record.Put ? [keyOf(record.Put.Item)] : []))];
    try {
      if (doomed.length === 1) await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
      else await transactWrite(doomed.map((Key) => ({ Delete: { TableName: tableName(), Key } })));
    } catch (cleanup) {
      throw new AggregateError([error, cleanup], `Sending to ${email.to} failed, and so did removing its delivery record: a retry will not send it`);
    }
    throw error;
  }
}
