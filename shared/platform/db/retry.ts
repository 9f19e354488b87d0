/**
 * The optimistic write, named once: read, then write on the condition that what was read still
 * holds; when the condition lost to a concurrent writer, read again and go again. Every such loop
 * of the domain is a `retryOnConflict`, with one attempt count and one error when it runs out.
 *
 * This is the retry of a *lost condition* (the domain's decision: read again). A transaction that
 * merely collided with another one on the same items (`TransactionConflict`, nothing decided yet)
 * is retried inside `transactWrite` (`ops.ts`) and never reaches an attempt.
 */
import { backoff } from './ops.js';

/** How many times an optimistic write is tried before the service gives up (a 500: something keeps changing). */
export const MAX_ATTEMPTS = 5;

/** What an attempt with nothing to answer returns once its write went through (`undefined` means: try again). */
export const DONE = 'done' as const;

/** The attempts ran out: the state kept changing under every one of them. */
export class ConflictRetriesExhausted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictRetriesExhausted';
  }
}

export interface RetryOptions {
  /** Attempts before giving up (`MAX_ATTEMPTS`). */
  attempts?: number;
  /** ... and more past those while this much time has not passed since the first. */
  budgetMs?: number;
  /** A jittered wait before every attempt after the first (`backoff`). */
  backoff?: boolean;
}

/**
 * Runs `attempt` (1, 2, …) until it answers something other than `undefined` — its result —, or
 * throws; an `undefined` answer means its conditional write lost to a concurrent writer, and the
 * next attempt reads again. After the last one, throws `ConflictRetriesExhausted` with
 * `gaveUp(attempts made)` as its message.
 */
export async function retryOnConflict<T>(
  attempt: (attempt: number) => Promise<T | undefined>,
  gaveUp: (attempts: number) => string,
  options: RetryOptions = {},
): Promise<T> {
  const { attempts = MAX_ATTEMPTS, budgetMs = 0, backoff: wait = false } = options;
  const started = Date.now();
  let made = 0;
  for (let n = 1; n <= attempts || Date.now() - started < budgetMs; n++) {
    if (wait && n > 1) await backoff(n);
    made = n;
    const result = await attempt(n);
    if (result !== undefined) return result;
  }
  throw new ConflictRetriesExhausted(gaveUp(made));
}
