/**
 * The optimistic write's one loop (`shared/platform/db/retry.ts`): an attempt that answers nothing
 * lost its condition and is tried again; anything else is the answer; the attempts run out into
 * one error whose text the call site gives.
 */
import { describe, expect, it } from 'vitest';
import { ConflictRetriesExhausted, DONE, MAX_ATTEMPTS, retryOnConflict } from '../../shared/platform/db/retry.js';

describe('retryOnConflict', () => {
  it('answers the first attempt that settles, having made no more attempts than that', async () => {
    const made: number[] = [];
    const answer = await retryOnConflict(async (attempt) => {
      made.push(attempt);
      return attempt === 3 ? 'written' : undefined;
    }, () => 'never');
    expect(answer).toBe('written');
    expect(made).toEqual([1, 2, 3]);
    // Falsy answers other than undefined settle too.
    await expect(retryOnConflict(async () => false, () => 'never')).resolves.toBe(false);
    await expect(retryOnConflict(async () => DONE, () => 'never')).resolves.toBe(DONE);
  });

  it('gives up after MAX_ATTEMPTS with the call site’s text, naming the attempts made', async () => {
    let made = 0;
    const run = retryOnConflict(async () => {
      made++;
      return undefined;
    }, (attempts) => `Thing 42 kept changing; gave up after ${attempts} attempts`);
    await expect(run).rejects.toThrow(new ConflictRetriesExhausted(`Thing 42 kept changing; gave up after ${MAX_ATTEMPTS} attempts`));
    await expect(run).rejects.toBeInstanceOf(ConflictRetriesExhausted);
    expect(made).toBe(MAX_ATTEMPTS);
    expect(MAX_ATTEMPTS).toBe(5);
  });

  it('lets an attempt’s own error through at once', async () => {
    let made = 0;
    const run = retryOnConflict(async () => {
      made++;
      throw new Error('Monitor not found');
    }, () => 'never');
    await expect(run).rejects.toThrow('Monitor not found');
    expect(made).toBe(1);
  });

  it('goes on past `attempts` while the budget lasts, with backoff', async () => {
    const made: number[] = [];
    const answer = await retryOnConflict(async (attempt) => {
      made.push(attempt);
      return attempt === 4 ? 'written' : undefined;
    }, () => 'never', { attempts: 2, budgetMs: 60_000, backoff: true });
    expect(answer).toBe('written');
    expect(made).toEqual([1, 2, 3, 4]);
    // Without a budget, `attempts` is the limit.
    await expect(retryOnConflict(async () => undefined, (attempts) => `after ${attempts}`, { attempts: 2 })).rejects.toThrow('after 2');
  });
});
