/**
 * The heavy tier's sizes. Its files are slow for a reason they name: a size (500 subscribers, 1,000
 * incidents, 1,000 members). `npm test` runs each of them at a size that still crosses every page,
 * batch and concurrency bound the code has, so that CI checks the same behaviour on every change;
 * `npm run test:heavy` (TEST_SCALE=full) runs them at the size they name.
 */
export const fullScale = process.env.TEST_SCALE === 'full';

/** `full` under `npm run test:heavy`, `quick` otherwise. */
export const scaled = (full: number, quick: number) => (fullScale ? full : quick);

/** 1000 → "1,000", for test names that say the size they run at. */
export const count = (n: number) => n.toLocaleString('en-US');
