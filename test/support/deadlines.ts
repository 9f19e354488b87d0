/**
 * Deadlines that follow the machine. Every wait of the tests for something asynchronous (an e-mail, a
 * webhook, a process coming up) and every test and hook timeout is a deadline: a passing test never
 * waits for one, a failing one reports at it. Each is written as its base, sized on the quiet 2-core
 * machine the README quotes its times on, and runs at base × the run's factor, which is never below 1:
 * a slower or busier machine gets longer deadlines, never shorter ones, and a quiet one today's.
 *
 * The factor is taken once per run, in vitest's main process, when vitest.config.ts loads it
 * (`runScale`): `TEST_DEADLINE_SCALE` if it is set (a number, at least 1), else a quarter of
 * test/calibrate.mjs's fixed CPU loop timed against its time on that machine, at most `MAX_MEASURED`.
 * It is timed at the run's start, under whatever load is there then (`stress-ng` beside `npm run
 * test:stress`, the type check beside `npm test`). The config hands it to every test file as
 * `TEST_DEADLINE_SCALE`, which `within` reads.
 */
import { calibrationMs } from '../calibrate.mjs';
import { parseScale, SCALE_ENV } from '../../infra/testing/deadlines.js';

export { deadlineScale, SCALE_ENV, within } from '../../infra/testing/deadlines.js';


/** The share of test/calibrate.mjs's loop a run times (about 0.1 s here). */
const SHARE = 0.25;
/** That share's time on the quiet 2-core machine the bases are sized on (the whole loop: 413-470 ms). */
export const REFERENCE_MS = 120;
/** A measured factor stops here (a failing test reports within 10× its base); TEST_DEADLINE_SCALE may go past it. */
export const MAX_MEASURED = 10;

export interface RunScale {
  factor: number;
  /** How it was found, for the run's closing line. */
  source: string;
}

const run = globalThis as { deadlineScale?: RunScale };

/** The run's factor (vitest's main process): found once, then the same for the config and the reporter. */
export function runScale(): RunScale {
  if (run.deadlineScale) return run.deadlineScale;
  const given = process.env[SCALE_ENV];
  if (given !== undefined) return (run.deadlineScale = { factor: parseScale(given), source: `${SCALE_ENV}=${given}` });
  const ms = calibrationMs(SHARE);
  const factor = Math.min(MAX_MEASURED, Math.max(1, Math.ceil((ms / REFERENCE_MS) * 10) / 10));
  return (run.deadlineScale = { factor, source: `a quarter of test/calibrate.mjs took ${Math.round(ms)} ms, ${REFERENCE_MS} ms on the reference machine` });
}
