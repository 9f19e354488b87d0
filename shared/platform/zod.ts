/**
 * zod as this project uses it: `zod/mini` (the core without classic zod's chaining API, a fifth of its
 * size in every bundle) with its English messages, which mini does not load by itself and which a
 * validation error's `details` and a worker's logged error carry. Every module imports zod from here,
 * so every bundle that validates anything configures them.
 *
 * Objects parse as classic zod's do: mini's objects check each field through a generic loop, classic's
 * through a parser compiled once per shape (`$ZodObjectJIT`: the same values and issues, in the same
 * order). An incident item took about 14 µs to parse in a warm handler with mini's, 2 µs compiled, and
 * every item a list returns is parsed (docs/performance.md). It costs each bundle about 3 KB.
 */
import * as z from 'zod/mini';
import { $constructor, $ZodObjectJIT } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

z.config(en());

export * from 'zod/mini';

// (`init` is declared an assertion; called through a plain signature.)
type Init = (inst: never, def: never) => void;
const initCompiled: Init = $ZodObjectJIT.init;
const initMiniObject: Init = z.ZodMiniObject.init;

/**
 * A mini object whose parser is compiled for its shape. Mini's own initialization runs second and
 * keeps the compiled parser (a trait initializes once); what `extend`, `pick` and the like derive from
 * it is built by the same constructor.
 */
const CompiledObject = /* @__PURE__ */ $constructor('ZodMiniObjectJIT', (inst: object, def: object) => {
  initCompiled(inst as never, def as never);
  initMiniObject(inst as never, def as never);
});

const compiled = <T extends { _zod: { def: object } }>(schema: T): T => new CompiledObject(schema._zod.def as never) as never;

export const object: typeof z.object = (shape, params) => compiled(z.object(shape, params));
export const strictObject: typeof z.strictObject = (shape, params) => compiled(z.strictObject(shape, params));
export const looseObject: typeof z.looseObject = (shape, params) => compiled(z.looseObject(shape, params));
