/** The channels, by type (`model.ts` says what a channel is). */
import { emailChannel } from './email.js';
import type { Channel, ChannelType } from './model.js';
import { smsChannel } from './sms.js';
import { voiceChannel } from './voice.js';

export { channelTypes, type Channel, type ChannelType, type OutgoingMessage } from './model.js';

const channels: Record<ChannelType, Channel> = { email: emailChannel, sms: smsChannel, voice: voiceChannel };

export const channelFor = (type: ChannelType): Channel => channels[type];
