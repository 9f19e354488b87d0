/**
 * infra/local reads top down: no module imports (even for types) one that imports it back, so
 * the gateway uses the function registry and never the other way round.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/local/paths.js';

const directory = join(repositoryRoot, 'infra/local');
const modules = readdirSync(directory).filter((file) => file.endsWith('.ts'));
const importsOf = (file: string) =>
  [...readFileSync(join(directory, file), 'utf8').matchAll(/^(?:import|export)[^;]*?from '\.\/([\w-]+)\.js'/gm)].map((match) => `${match[1]}.ts`);

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
  it('form no circle', () => {
    expect(cycles()).toEqual([]);
  });

  it('has the gateway depend on the function registry, not the reverse', () => {
    expect(importsOf('gateway.ts')).toContain('functions.ts');
    expect(importsOf('functions.ts')).not.toContain('gateway.ts');
  });
});
