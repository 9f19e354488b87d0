// A fixed CPU loop (300,000 SHA-256s and 2 million small objects), timed: machines of one kind differ by up
// to 2× in speed, and one machine by as much within a day, so a test run's time is quoted beside this.
// `node test/calibrate.mjs`; `npm run test:stress` prints it before its runs.
import { createHash } from 'node:crypto';

const started = process.hrtime.bigint();
let digest = Buffer.alloc(64);
for (let index = 0; index < 300_000; index++) digest = createHash('sha256').update(digest).digest();
const objects = [];
for (let index = 0; index < 2_000_000; index++) {
  objects.push({ index, text: String(index) });
  if (objects.length > 1000) objects.length = 0;
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
console.log(`calibration: a fixed CPU loop took ${Math.round(ms)} ms`);
