/**
 * Bundles drop the `shared/` constants their function never reads (`infra/build/pure-constants.ts`).
 * That is only right while those constants' initializers build values and do nothing else, so every
 * module of `shared/` is held to the calls `PURE_CALLEES` allows; and the marking itself must
 * leave every value as it was.
 */
import { buildSync, transformSync } from 'esbuild';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { constantInitializerCalls, markConstantsPure, marksConstantsPure, PURE_CALLEES } from '../../infra/build/pure-constants.js';
import { repositoryRoot } from '../../infra/paths.js';

const sharedModules = (dir = join(repositoryRoot, 'shared')): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sharedModules(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  ).filter((file) => marksConstantsPure(file, repositoryRoot));

describe('constants marked pure in bundles', () => {
  it('are built by no call outside PURE_CALLEES anywhere in shared/ (move a call with an effect into a statement of its own)', () => {
    const modules = sharedModules();
    expect(modules.length).toBeGreaterThan(30);
    const strays = modules.flatMap((file) =>
      constantInitializerCalls(readFileSync(file, 'utf8'), file)
        .filter(({ callee }) => !PURE_CALLEES.some((pattern) => pattern.test(callee)))
        .map(({ callee }) => `${relative(repositoryRoot, file)}: ${callee}(…)`),
    );
    expect(strays).toEqual([]);
    // Effects zod offers are not builders.
    for (const callee of ['z.config', 'z.globalRegistry.add', 'z.string().register', 'z.registry']) {
      expect(PURE_CALLEES.some((pattern) => pattern.test(callee)), callee).toBe(false);
    }
    for (const callee of ['z.string', 'z.iso.datetime', 'z.coerce.number', 'z.string().check', 'described']) {
      expect(PURE_CALLEES.some((pattern) => pattern.test(callee)), callee).toBe(true);
    }
    // The rule is not vacuous: the schemas are there to be marked.
    const marked = constantInitializerCalls(readFileSync(join(repositoryRoot, 'shared/incidents/model.ts'), 'utf8'), 'model.ts');
    expect(marked.length).toBeGreaterThan(50);
  });

  const source = `
    const z = { string: () => ({ check: (...checks) => ['string', ...checks] }), min: (n) => 'min' + n, object: (shape) => ({ shape }) };
    const f = (...args) => ['f', ...args];
    export const chained = z.string().check(z.min(1), z.min(2));
    export const nested = f(f(1), f(f(2)), [f(3),f(4)]);
    export const object = z.object({ a: f(), b: z.string().check() });
    export const later = (x) => f(x);
    const registry = { get: (id) => (id === 'Id' ? { description: ' an id ' } : undefined) };
    export const present = registry.get('Id')?.description.trim().length;
    export const absent = registry.get('Nope')?.description.trim().length;
    export const comma = (log.push('comma'), f(5));
    log.push('effect');
  `;

  it('leaves every value as it was, chains and adjacent calls included', () => {
    const marked = markConstantsPure(source, 'sample.ts');
    expect(marked).toContain('/* @__PURE__ */ (/* @__PURE__ */ (z.string()).check(');
    expect(marked).toContain("log.push('effect')");
    expect(marked).not.toContain('/* @__PURE__ */ (log.push');
    const evaluate = (code: string) => {
      const js = transformSync(code, { loader: 'ts', format: 'cjs' }).code;
      const module = { exports: {} as Record<string, unknown> };
      const log: string[] = [];
      new Function('module', 'exports', 'log', js)(module, module.exports, log);
      const { later, ...values } = module.exports;
      return { values, later: typeof later, log };
    };
    const before = evaluate(source);
    expect(before).toMatchObject({
      values: { chained: ['string', 'min1', 'min2'], nested: ['f', ['f', 1], ['f', ['f', 2]], [['f', 3], ['f', 4]]], present: 5, absent: undefined, comma: ['f', 5] },
      log: ['comma', 'effect'],
    });
    // An optional chain's links and a comma's left stay unmarked: parentheses would change the one, a mark would drop the other.
    expect(marked).not.toContain("(log.push('comma'))");
    expect(marked).not.toMatch(/\(registry\.get\('Nope'\)\?\.description\.trim\(\)\)/);
    expect(evaluate(marked)).toEqual(before);
  });

  it('lets a bundle drop the constants it never reads, and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pure-constants-'));
    const bundled = (sample: string) => {
      writeFileSync(join(dir, 'sample.ts'), sample);
      writeFileSync(join(dir, 'entry.ts'), "import { object } from './sample.ts';\nconsole.log(object);\n");
      return buildSync({ entryPoints: [join(dir, 'entry.ts')], bundle: true, write: false, format: 'esm' }).outputFiles[0]!.text;
    };
    try {
      const plain = bundled(source);
      const marked = bundled(markConstantsPure(source, 'sample.ts'));
      expect(plain).toContain('nested');
      expect(marked).not.toContain('nested');
      expect(marked).not.toContain('chained');
      expect(marked).toContain('var object');
      expect(marked).toContain('log.push("effect")');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
