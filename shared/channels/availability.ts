/**
 * Whether this deployment can send on a channel, without loading its client (the escalation scheduler
 * plans a person's rules and sends nothing): e-mail always; SMS and voice when an origination identity
 * is configured. The channels' own `available()` answers this.
 */
import { env } from '../system.js';
import type { ChannelType } from './model.js';

export const channelAvailable = (type: ChannelType): boolean => type === 'email' || Boolean(process.env[env.smsOriginationIdentity]);
