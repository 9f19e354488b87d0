/**
 * What AWS End User Messaging SMS and Voice v2 publishes to SNS, as the service reads it:
 * - a two-way number's inbound message (https://docs.aws.amazon.com/sms-voice/latest/userguide/two-way-sms-payload.html):
 *   `{"originationNumber","destinationNumber","messageKeyword","messageBody","inboundMessageId","previousPublishedMessageId"}`;
 * - a configuration set's event record (https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html):
 *   `{"eventType":"TEXT_DELIVERED",…,"messageId","destinationPhoneNumber","messageStatus",…}`;
 * each as the `Message` (JSON text) of an SNS notification, which SNS hands Lambda as
 * `{"Records":[{"EventSource":"aws:sns","Sns":{"Type":"Notification","MessageId","TopicArn","Message",…}}]}`.
 */
import * as z from '../platform/zod.js';

/** The SNS event Lambda receives from a topic subscription (fields the service reads). */
export const snsEvent = z.object({
  Records: z.array(
    z.object({
      EventSource: z.literal('aws:sns'),
      Sns: z.object({ Type: z.string(), MessageId: z.string(), TopicArn: z.string(), Message: z.string(), Timestamp: z.string() }),
    }),
  ),
});
export type SnsEvent = z.output<typeof snsEvent>;

/** An SMS a person sent to the service's number (its two-way channel). */
export const twoWayMessage = z.object({
  originationNumber: z.string(),
  destinationNumber: z.string(),
  messageKeyword: z.optional(z.string()),
  messageBody: z.string(),
  inboundMessageId: z.string(),
  previousPublishedMessageId: z.optional(z.string()),
});
export type TwoWayMessage = z.output<typeof twoWayMessage>;

/** A configuration set's event record for an SMS or a call (fields the service reads). */
export const messageEvent = z.object({
  eventType: z.string(),
  eventVersion: z.optional(z.string()),
  eventTimestamp: z.optional(z.number()),
  isFinal: z.optional(z.boolean()),
  messageId: z.string(),
  destinationPhoneNumber: z.optional(z.string()),
  originationPhoneNumber: z.optional(z.string()),
  messageStatus: z.optional(z.string()),
  messageStatusDescription: z.optional(z.string()),
  context: z.optional(z.record(z.string(), z.string())),
  /** What the message cost (USD), on its final event: the price and the carriers' fee. */
  totalMessagePrice: z.optional(z.number()),
  totalCarrierFee: z.optional(z.number()),
});
export type MessageEvent = z.output<typeof messageEvent>;

/** Parses each SNS record's `Message` (JSON text) with `schema`; a record that is not JSON or not of that form throws. */
export function snsMessages<S extends z.ZodMiniType>(event: SnsEvent, schema: S): z.output<S>[] {
  return event.Records.map((record) => {
    let body: unknown;
    try {
      body = JSON.parse(record.Sns.Message);
    } catch {
      throw new Error(`SNS message ${record.Sns.MessageId} is not JSON`);
    }
    return z.parse(schema, body);
  });
}
