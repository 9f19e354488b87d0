/**
 * Bundle size against its floor (deterministic, so asserted; timings never are): the median function
 * bundle over a bundle that only reads one item with the DocumentClient, both built exactly as the
 * stack builds them. A dependency that bloats every function fails here.
 */
import { describe, expect, it } from 'vitest';
import { bundleAll, median } from '../../infra/build/bundling.js';
import { allFunctions } from '../../infra/system.js';

/** Issue 12's goal (1.19 today, docs/performance.md). */
const LIMIT = 1.25;

describe('bundle size', () => {
  it(`keeps the median function bundle within ${LIMIT}× of a DocumentClient + GetItem bundle`, async () => {
    const { baseline, functions } = await bundleAll();
    expect(functions.map((bundle) => bundle.name).sort()).toEqual(allFunctions.map((fn) => fn.name).sort());
    const ratio = median(functions.map((bundle) => bundle.code.length)) / baseline.code.length;
    expect(baseline.code.length).toBeGreaterThan(200 * 1024);
    expect(ratio).toBeLessThanOrEqual(LIMIT);
    // No function strays far from the others (one bloated import shows here even if the median holds).
    for (const bundle of functions) expect(bundle.code.length / baseline.code.length, bundle.name).toBeLessThanOrEqual(LIMIT + 0.1);
    // The X-Ray SDK stays out (issue 11): Lambda's active tracing needs no SDK.
    for (const bundle of functions) expect(new TextDecoder().decode(bundle.code).includes('AWS_XRAY_CONTEXT_MISSING'), bundle.name).toBe(false);
    for (const bundle of functions) {
      const code = new TextDecoder().decode(bundle.code);
      // Contracts use zod/mini; classic zod (a method-chaining API around the same core, about 70 KB more) stays out.
      expect(code.includes('"ZodString"'), bundle.name).toBe(false);
      // zod's English messages go wherever zod does (shared/zod.ts): a worker's logged error reads like the API's.
      if (code.includes('"$ZodType"')) expect(code.includes('Too small: expected'), bundle.name).toBe(true);
    }
  });
});
