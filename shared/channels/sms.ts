/** The SMS channel: AWS End User Messaging SMS and Voice v2. (Minimal; the phones helper's version wins at merge.) */
import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { env } from '../system.js';
import { sandboxClient } from '../platform/aws-client.js';
import { requireEnv } from '../platform/config.js';
import { paced, type Channel } from './model.js';
import { channelAvailable } from './availability.js';
import { maskPhone, normalizePhone } from './phone.js';

/** The End User Messaging SMS and Voice v2 client, created once per cold start. */
export const smsVoiceClient = sandboxClient(() => new PinpointSMSVoiceV2Client({}));

export const smsChannel: Channel = {
  type: 'sms',
  normalizeAddress: normalizePhone,
  mask: maskPhone,
  available: () => channelAvailable('sms'),
  send: async (message) => {
    const sent = await paced(() =>
      smsVoiceClient().send(
        new SendTextMessageCommand({
          DestinationPhoneNumber: message.to,
          OriginationIdentity: requireEnv(env.smsOriginationIdentity),
          ConfigurationSetName: requireEnv(env.smsConfigurationSet),
          MessageBody: message.text,
          MessageType: 'TRANSACTIONAL',
          MaxPrice: requireEnv(env.smsMaxPrice),
          Context: message.tags,
        }),
      ),
    );
    return { messageId: sent.MessageId ?? '' };
  },
};
