/**
 * The voice channel: AWS End User Messaging SMS and Voice v2 `SendVoiceMessage`, a text read by Amazon
 * Polly (voice Joanna), with a price ceiling per minute. One-way: the call cannot take key presses.
 */
import { SendVoiceMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { paced, type Channel, type OutgoingMessage } from './model.js';
import { channelAvailable } from './availability.js';
import { maskPhone, normalizePhone } from './phone.js';
import { contextOf, messageIdOf, sendSettings, smsVoiceClient } from './sms-voice.js';

/** The voice that reads pages: a clear US English neural voice. */
export const VOICE_ID = 'JOANNA';

export const voiceChannel: Channel = {
  type: 'voice',
  normalizeAddress: normalizePhone,
  mask: maskPhone,
  available: () => channelAvailable('voice'),
  async send(message: OutgoingMessage) {
    const command = new SendVoiceMessageCommand({
      DestinationPhoneNumber: message.to,
      ...sendSettings(),
      MessageBody: message.text,
      MessageBodyTextType: 'TEXT',
      VoiceId: VOICE_ID,
      MaxPricePerMinute: requireEnv(env.voiceMaxPricePerMinute),
      Context: contextOf(message.tags),
    });
    return messageIdOf(await paced(() => smsVoiceClient().send(command)), 'voice message');
  },
};
