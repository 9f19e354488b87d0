/**
 * Deadlines that follow the machine, as a test file or a tool reads them: `within(baseMs)` is `baseMs` × the
 * run's factor, which vitest.config.ts takes once per run (test/support/deadlines.ts, `runScale`) and hands
 * to every test file as `TEST_DEADLINE_SCALE`. Outside a vitest run (the bench) deadlines are their bases.
 */
export const SCALE_ENV = 'TEST_DEADLINE_SCALE';

export const parseScale = (value: string): number => {
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor < 1) throw new Error(`${SCALE_ENV} must be a number of at least 1 (deadlines never shrink), not "${value}"`);
  return factor;
};

/**
 * The factor in a test file. Outside a vitest run (the bench imports infra/testing/scenarios.ts) there
 * is none and deadlines are their bases; inside one the config always sets it.
 */
export function deadlineScale(): number {
  const given = process.env[SCALE_ENV];
  if (given !== undefined) return parseScale(given);
  if (process.env.VITEST) throw new Error(`${SCALE_ENV} is not set: vitest.config.ts sets it for every test file`);
  return 1;
}

/** A deadline of `baseMs` on the reference machine, on this one: `baseMs` × the run's factor. */
export const within = (baseMs: number) => Math.ceil(baseMs * deadlineScale());
