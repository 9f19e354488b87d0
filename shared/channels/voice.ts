/** The voice channel: a call that reads the message (End User Messaging SMS and Voice v2). (Minimal; the phones helper's version wins at merge.) */
import { SendVoiceMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { paced, type Channel } from './model.js';
import { channelAvailable } from './availability.js';
import { maskPhone, normalizePhone } from './phone.js';
import { smsVoiceClient } from './sms.js';

export const voiceChannel: Channel = {
  type: 'voice',
  normalizeAddress: normalizePhone,
  mask: maskPhone,
  available: () => channelAvailable('voice'),
  send: async (message) => {
    const sent = await paced(() =>
      smsVoiceClient().send(
        new SendVoiceMessageCommand({
          DestinationPhoneNumber: message.to,
          OriginationIdentity: requireEnv(env.smsOriginationIdentity),
          ConfigurationSetName: requireEnv(env.smsConfigurationSet),
          MessageBody: message.text,
          MessageBodyTextType: 'TEXT',
          MaxPricePerMinute: requireEnv(env.voiceMaxPricePerMinute),
          Context: message.tags,
        }),
      ),
    );
    return { messageId: sent.MessageId ?? '' };
  },
};
