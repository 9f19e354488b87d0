export type ChannelType = 'email' | 'sms' | 'voice';
export interface OutgoingMessage {
  to: string;                 // the address, canonical (e-mail as given; phone E.164)
  text: string;               // e-mail: the text part; SMS: the message; voice: what is read
  subject?: string;           // e-mail only
  html?: string;              // e-mail only
  tags?: Record<string, string>; // what it is about (kind, incident id…), for receipts and SES tags
}
export interface Channel {
  readonly type: ChannelType;
  /** Canonical address, or the validation message for a 400. */
  normalizeAddress(raw: string): { address: string } | { error: string };
  /** For the timeline: `+1•••0100`; e-mail `a•••@example.com`. */
  mask(address: string): string;
  /** Whether this deployment can send on it (SMS/voice: an origination identity is configured). */
  available(): boolean;
  /** One send (waits and retries while throttled by the provider); the provider's message id. Throws on failure. */
  send(message: OutgoingMessage): Promise<{ messageId: string }>;
}
