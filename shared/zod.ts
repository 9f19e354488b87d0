/**
 * zod as this project uses it: `zod/mini` (the core without classic zod's chaining API, a fifth of its
 * size in every bundle) with its English messages, which mini does not load by itself and which a
 * validation error's `details` and a worker's logged error carry. Every module imports zod from here,
 * so every bundle that validates anything configures them.
 *
 * Objects parse as classic zod's do: mini's objects check each field through a generic loop, classic's
 * through a parser compiled once per shape (`$ZodObjectJIT`, the same issues, in the same order). An
 * incident item took about 14 µs to parse in a warm handler with mini's, and every item a list returns is
 * parsed (docs/performance.md).
 */
import * as z from 'zod/mini';
import * as core from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

z.config(en());

export * from 'zod/mini';

// (`init` is declared an assertion; called through a plain signature.)
type Init = (inst: never, def: never) => void;
const initCompiled: Init = core.$ZodObjectJIT.init;
const initMini: Init = z.ZodMiniType.init;

/** A mini object whose parser is compiled for its shape (what `extend`, `pick` and the like derive from it keeps it). */
const CompiledObject = /* @__PURE__ */ core.$constructor('ZodMiniObjectJIT', (inst: core.$ZodObject, def: core.$ZodObjectDef) => {
  initCompiled(inst as never, def as never);
  initMini(inst as never, def as never);
  core.util.installLazyProp(inst, 'shape', (self: core.$ZodObject) => self._zod.def.shape, false);
});

const compiled = (def: Omit<core.$ZodObjectDef, 'type'>) => new CompiledObject({ type: 'object', ...def }) as never;

export const object: typeof z.object = (shape, params) => compiled({ shape: shape ?? {}, ...core.util.normalizeParams(params) });
export const strictObject: typeof z.strictObject = (shape, params) => compiled({ shape, catchall: z.never(), ...core.util.normalizeParams(params) });
export const looseObject: typeof z.looseObject = (shape, params) => compiled({ shape, catchall: z.unknown(), ...core.util.normalizeParams(params) });
