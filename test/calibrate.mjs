// A fixed CPU loop (300,000 SHA-256s and 2 million small objects), timed: machines of one kind differ by up
// to 2× in speed, and one machine by as much within a day, so a test run's time is quoted beside this.
// `node test/calibrate.mjs`; `npm run test:stress` prints it before its runs, and every test run times a
// quarter of it to scale its deadlines (test/support/deadlines.ts).
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** Milliseconds the loop takes, or `share` of it (0.25: a quarter). */
export function calibrationMs(share = 1) {
  const started = process.hrtime.bigint();
  let digest = Buffer.alloc(64);
  for (let index = 0; index < 300_000 * share; index++) digest = createHash('sha256').update(digest).digest();
  const objects = [];
  for (let index = 0; index < 2_000_000 * share; index++) {
    objects.push({ index, text: String(index) });
    if (objects.length > 1000) objects.length = 0;
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`calibration: a fixed CPU loop took ${Math.round(calibrationMs())} ms`);
}
