/**
 * The seam between a page and how it reaches someone (issue 43 §1): a channel validates an address,
 * masks it for the timeline, says whether this deployment can send on it, and sends one message.
 * The delivery guarantees (at least once towards a person, no duplicate on redelivery) are kept
 * above it, by `notifications/delivery.ts`, for every channel alike. A new channel is one file here,
 * one entry in `index.ts`, one contact-method type, one local stand-in and one grant.
 */
export const channelTypes = ['email', 'sms', 'voice'] as const;
export type ChannelType = (typeof channelTypes)[number];

export interface OutgoingMessage {
  /** The address, canonical (e-mail as given; phone E.164). */
  to: string;
  /** E-mail: the text part; SMS: the message; voice: what is read. */
  text: string;
  /** E-mail only. */
  subject?: string;
  /** E-mail only. */
  html?: string;
  /** What it is about (kind, incident id…), for receipts and SES tags. */
  tags?: Record<string, string>;
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

/** Whether an error is the provider refusing for its sending rate (SES, End User Messaging). */
export const isThrottling = (error: unknown) =>
  error instanceof Error && (error.name === 'Throttling' || error.name === 'ThrottlingException' || /rate exceeded/i.test(error.message));

const THROTTLED_ATTEMPTS = 8;

/** Sends, waiting and trying again (exponential backoff with jitter, up to 8 tries) while the provider throttles. */
export async function paced<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isThrottling(error) || attempt >= THROTTLED_ATTEMPTS) throw error;
      const wait = Math.min(4_000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
