/**
 * What SMS and voice share: AWS End User Messaging SMS and Voice v2 (one client per cold start), the
 * deployment's origination identity, and sending at the provider's pace. Every send names the
 * configuration set (its event destination brings the delivery receipts back) and a price ceiling.
 */
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { env } from '../system.js';
import { sandboxClient } from '../platform/aws-client.js';
import { requireEnv } from '../platform/config.js';

/** The End User Messaging SMS and Voice v2 client, created once per cold start. */
export const smsVoiceClient = sandboxClient(() => new PinpointSMSVoiceV2Client({}));

/** What every send carries besides its message: where it comes from and the configuration set. */
export function sendSettings(): { OriginationIdentity: string; ConfigurationSetName: string } {
  return { OriginationIdentity: requireEnv(env.smsOriginationIdentity), ConfigurationSetName: requireEnv(env.smsConfigurationSet) };
}

/** Tags as End User Messaging's `Context` (logged with the message's events, the receipts). */
export const contextOf = (tags: Record<string, string> | undefined) => (tags && Object.keys(tags).length ? tags : undefined);

/** The provider's id of a sent message, or an error saying it answered none. */
export function messageIdOf(answer: { MessageId?: string }, what: string): { messageId: string } {
  if (!answer.MessageId) throw new Error(`End User Messaging accepted the ${what} but answered no MessageId`);
  return { messageId: answer.MessageId };
}
