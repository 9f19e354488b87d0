/**
 * `shared/platform/zod.ts` builds objects whose parser is compiled for their shape (classic zod's
 * `$ZodObjectJIT`) in place of mini's generic loop. They must answer exactly as mini's objects do:
 * the same values (unknown keys stripped, defaults filled) and the same issues in the same order.
 */
import * as mini from 'zod/mini';
import { describe, expect, it } from 'vitest';
import * as z from '../../shared/platform/zod.js';

const shape = () => ({
  id: z.string(),
  count: z._default(z.number(), 0),
  note: z.optional(z.nullable(z.string())),
  status: z.enum(['OPEN', 'CLOSED']),
  nested: z.optional(z.object({ flag: z.boolean() })),
});

const inputs: unknown[] = [
  { id: 'a', status: 'OPEN' },
  { id: 'a', status: 'OPEN', count: 3, note: null, pk: 'ITEM#a', sk: 'ITEM' },
  { id: 'a', status: 'OPEN', nested: { flag: true, extra: 1 } },
  { id: 1, status: 'SHUT', count: 'x' },
  { status: 'OPEN', nested: { flag: 'no' } },
  { id: 'a', status: 'OPEN', note: undefined },
  {},
  null,
  'text',
  [],
];

const outcome = (schema: { safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } } }, input: unknown) => {
  const result = schema.safeParse(input);
  return result.success ? { data: result.data } : { issues: result.error!.issues };
};

describe('objects compiled for their shape (shared/platform/zod.ts)', () => {
  const builders = [
    ['object', z.object, mini.object],
    ['strictObject', z.strictObject, mini.strictObject],
    ['looseObject', z.looseObject, mini.looseObject],
  ] as const;

  for (const [name, ours, theirs] of builders) {
    it(`${name}: the same values and issues as zod/mini's, through the compiled parser`, () => {
      const compiled = ours(shape());
      const reference = theirs(shape());
      expect(compiled._zod.constr.name).toBe('ZodMiniObjectJIT');
      expect(reference._zod.constr.name).toBe('ZodMiniObject');
      // Mini's initialization, which runs second, left the compiled parser in place.
      expect(String(compiled._zod.parse)).toContain('fastpass');
      expect(String(reference._zod.parse)).not.toContain('fastpass');
      for (const input of inputs) expect(outcome(compiled, input), JSON.stringify(input)).toEqual(outcome(reference, input));
      // Some inputs parse and some fail, so the comparison above covers both.
      expect(inputs.filter((input) => compiled.safeParse(input).success).length).toBeGreaterThan(0);
      expect(inputs.filter((input) => !compiled.safeParse(input).success).length).toBeGreaterThan(0);
    });
  }

  it('what is derived from a compiled object stays compiled, and keeps its shape', () => {
    const base = z.object(shape());
    for (const derived of [z.extend(base, { more: z.string() }), z.pick(base, { id: true }), z.omit(base, { id: true }), z.partial(base)]) {
      expect(derived._zod.constr.name).toBe('ZodMiniObjectJIT');
      expect(Object.keys(derived.shape).length).toBeGreaterThan(0);
    }
    expect(z.partial(base).parse({})).toEqual({ count: 0 });
    expect(z.extend(base, { more: z.string() }).safeParse({ id: 'a', status: 'OPEN' }).error?.issues[0]?.path).toEqual(['more']);
  });
});
