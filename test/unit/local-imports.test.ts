/**
 * infra/local reads top down. Its folders are layers, each importing only those below it:
 *   cli/      npm start, npm run token, npm run invoke
 *   perf/     the runtime as npm start runs it: the background in a thread, the mailbox in a process, niced
 *   runtime/  the runtime assembled from the stand-ins, all in the caller's thread (the tests')
 *   aws/      the AWS stand-ins, each on its own
 * and no module imports (even for types) one that imports it back, so the gateway uses the
 * function registry and never the other way round.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';

const directory = join(repositoryRoot, 'infra/local');
const LAYERS = ['aws', 'runtime', 'perf', 'cli'];
/** Every module, as a path relative to infra/local (`aws/gateway.ts`). */
const modules = readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((file) => /\.(ts|mjs)$/.test(file));
/** The infra/local modules `file` imports, relative to infra/local (`.js` specifiers name `.ts` sources). */
const importsOf = (file: string) =>
  [...readFileSync(join(directory, file), 'utf8').matchAll(/^(?:import|export)[^;]*?from '(\.\.?\/[\w./-]+)'|import\('(\.\.?\/[\w./-]+)'\)/gm)]
    .map((match) => relative(directory, resolve(join(directory, dirname(file)), match[1] ?? match[2]!)).replace(/\.js$/, '.ts'))
    .filter((target) => !target.startsWith('..'));
const layerOf = (file: string) => LAYERS.indexOf(file.split('/')[0]!);

function cycles(): string[][] {
  const found: string[][] = [];
  const visit = (file: string, path: string[]) => {
    for (const next of importsOf(file)) {
      const at = path.indexOf(next);
      if (at >= 0) found.push([...path.slice(at), next]);
      else visit(next, [...path, next]);
    }
  };
  for (const file of modules) visit(file, [file]);
  return found;
}

describe('infra/local imports', () => {
  it('sorts every module into one of the layers', () => {
    expect(modules.filter((file) => layerOf(file) < 0)).toEqual([]);
    expect(modules.length).toBeGreaterThan(25);
  });

  it('go from a layer only to the ones below it', () => {
    const upward = modules.flatMap((file) => importsOf(file).filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
    // The rule is not vacuous: the layers do use each other.
    expect(importsOf('perf/service.ts')).toEqual(expect.arrayContaining(['runtime/runtime.ts', 'aws/errors.ts']));
  });

  it('form no circle', () => {
    expect(cycles()).toEqual([]);
  });

  it('has the gateway depend on the function registry, not the reverse', () => {
    expect(importsOf('aws/gateway.ts')).toContain('aws/functions.ts');
    expect(importsOf('aws/functions.ts')).not.toContain('aws/gateway.ts');
  });
});
