/**
 * `cdk synth` works offline with no AWS credentials, bundling every function locally with
 * esbuild (never Docker) into one small ESM file each.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFunctions } from '../../infra/system.js';
import { repositoryRoot } from '../../infra/local/paths.js';

// About 470 KB of AWS SDK, zod and our code (docs/deployment.md#bundle-sizes; the ratio is held by bundle-size.test.ts).
const MAX_BUNDLE_BYTES = 560 * 1024;

describe('cdk synth', () => {
  it('synthesizes offline and bundles each function into a small ESM file', () => {
    const out = mkdtempSync(join(tmpdir(), 'cdk-out-'));
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
    const result = spawnSync('npm', ['run', '-s', 'synth', '--', '--output', out], {
      env: { ...environment, CDK_DISABLE_VERSION_CHECK: 'true', CI: 'true' },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const bundles = readdirSync(out)
      .filter((entry) => entry.startsWith('asset.'))
      .map((entry) => join(out, entry, 'index.mjs'))
      .filter((file) => existsSync(file));
    expect(bundles).toHaveLength(allFunctions.length);
    for (const bundle of bundles) expect(statSync(bundle).size).toBeLessThan(MAX_BUNDLE_BYTES);
    // Each function deploys its own handler: its asset's source map names the handler's module. The
    // functions are in the root stack's template and its nested stacks' (one per function group).
    type Template = { Resources: Record<string, { Type: string; Properties: { Description?: string; Code?: { S3Key?: string } } }> };
    const templateFiles = readdirSync(out).filter((entry) => /^IncidentService.*\.template\.json$/.test(entry));
    expect(templateFiles).toContain('IncidentService.template.json');
    expect(templateFiles.filter((entry) => entry.endsWith('.nested.template.json')).length).toBeGreaterThan(1);
    const lambdas = templateFiles
      .flatMap((file) => Object.values((JSON.parse(readFileSync(join(out, file), 'utf8')) as Template).Resources))
      .filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Description);
    for (const description of allFunctions) {
      const lambda = lambdas.find((candidate) => candidate.Properties.Description === `${description.name} (${description.handler})`);
      expect(lambda, description.name).toBeDefined();
      const asset = `asset.${String(lambda!.Properties.Code!.S3Key).replace(/\.zip$/, '')}`;
      const sources = (JSON.parse(readFileSync(join(out, asset, 'index.mjs.map'), 'utf8')) as { sources: string[] }).sources;
      expect(sources.some((source) => source.endsWith(description.handler)), `${description.name}: ${asset}`).toBe(true);
      // Relative to the repository: the same bundle (and asset hash) from any checkout.
      expect(sources.filter((source) => source.includes(repositoryRoot)), description.name).toEqual([]);
    }
  }, 240_000);
});
