/**
 * `cdk synth` works offline with no AWS credentials, bundling every function locally with
 * esbuild (never Docker) into one small ESM file each; and those very files hold the bundle-size
 * ratio against its floor (deterministic, so asserted; timings never are): the median function
 * bundle over a bundle that only reads one item with the DocumentClient, built with the same
 * settings. A dependency that bloats every function fails here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASELINE_SOURCE, bundleSource, floorSource, median } from '../../infra/build/bundling.js';
import { allFunctions, type Capability } from '../../shared/system.js';
import { ids } from '../../infra/openapi/examples.js';
import { repositoryRoot } from '../../infra/paths.js';
import { within } from '../support/deadlines.js';

// About 470 KB of AWS SDK, zod and our code (docs/deployment.md#bundle-sizes).
const MAX_BUNDLE_BYTES = 560 * 1024;
/** Issue 12's goal for the median bundle over the DocumentClient + GetItem floor (docs/performance.md). */
const LIMIT = 1.25;
/** No function's bundle past this over its own floor (`floorSource`: the baseline and the AWS clients its capabilities need). */
const STRAY_LIMIT = 1.35;

type Template = { Resources: Record<string, { Type: string; Properties: { Description?: string; Code?: { S3Key?: string } } }> };

let out: string;
let settings: string;
let synthesized: ReturnType<typeof spawnSync>;
/** Each function of the description and the asset folder the stack deploys it from. */
const assets = new Map<string, string>();

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  // The default stage's settings, as a deployer commits them in deploy/default.json (here a file of its own: the synth records the sender identity beside it).
  settings = mkdtempSync(join(tmpdir(), 'cdk-settings-'));
  writeFileSync(join(settings, 'default.json'), '{}\n');
  synthesized = spawnSync('npm', ['run', '-s', 'synth', '--', '--output', out, '-c', `settingsDir=${settings}`], {
    // CDK_VALIDATION=false skips the CDK's built-in CloudFormation validation, about half of this
    // synth's CPU (6 of 12 s), and nothing else: it cannot change the synth's outcome here (without
    // @aws-cdk/core:validateAgainstDefaultRules its findings, and its own failure, become warnings;
    // on this app it finds nothing), while cdk-nag and error annotations still fail the synth.
    env: { ...environment, CDK_DISABLE_VERSION_CHECK: 'true', CI: 'true', CDK_VALIDATION: 'false' },
    encoding: 'utf8',
    timeout: within(240_000),
  });
  if (synthesized.status !== 0) return;
  // The functions are in the root stack's template and its nested stacks' (one per function group).
  const lambdas = readdirSync(out)
    .filter((entry) => /^IncidentService.*\.template\.json$/.test(entry))
    .flatMap((file) => Object.values((JSON.parse(readFileSync(join(out, file), 'utf8')) as Template).Resources))
    .filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Description);
  for (const description of allFunctions) {
    const lambda = lambdas.find((candidate) => candidate.Properties.Description === `${description.name} (${description.handler})`);
    if (lambda) assets.set(description.name, join(out, `asset.${String(lambda.Properties.Code!.S3Key).replace(/\.zip$/, '')}`));
  }
}, within(240_000));
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(settings, { recursive: true, force: true });
});

describe('cdk synth', () => {
  it('synthesizes offline and bundles each function into a small ESM file', () => {
    expect(synthesized.status, `${synthesized.stdout}\n${synthesized.stderr}`).toBe(0);
    const bundles = readdirSync(out)
      .filter((entry) => entry.startsWith('asset.'))
      .map((entry) => join(out, entry, 'index.mjs'))
      .filter((file) => existsSync(file));
    expect(bundles).toHaveLength(allFunctions.length);
    for (const bundle of bundles) expect(statSync(bundle).size).toBeLessThan(MAX_BUNDLE_BYTES);
    const templateFiles = readdirSync(out).filter((entry) => /^IncidentService.*\.template\.json$/.test(entry));
    expect(templateFiles).toContain('IncidentService.template.json');
    expect(templateFiles.filter((entry) => entry.endsWith('.nested.template.json')).length).toBeGreaterThan(1);
    // Each function deploys its own handler: its asset's source map names the handler's module.
    for (const description of allFunctions) {
      const asset = assets.get(description.name);
      expect(asset, description.name).toBeDefined();
      const sources = (JSON.parse(readFileSync(join(asset!, 'index.mjs.map'), 'utf8')) as { sources: string[] }).sources;
      expect(sources.some((source) => source.endsWith(description.handler)), `${description.name}: ${asset}`).toBe(true);
      // Relative to the repository: the same bundle (and asset hash) from any checkout.
      expect(sources.filter((source) => source.includes(repositoryRoot)), description.name).toEqual([]);
      // infra/ (the OpenAPI generator and its examples among it) is never part of a function.
      expect(sources.filter((source) => /(^|\/)infra\//.test(source)), description.name).toEqual([]);
    }
  });

  it(`keeps the median function bundle within ${LIMIT}× of a DocumentClient + GetItem bundle`, async () => {
    expect(synthesized.status).toBe(0);
    const baseline = await bundleSource(BASELINE_SOURCE);
    const functions = allFunctions.map((fn) => ({ name: fn.name, code: readFileSync(join(assets.get(fn.name)!, 'index.mjs')) }));
    const ratio = median(functions.map((bundle) => bundle.code.length)) / baseline.length;
    expect(baseline.length).toBeGreaterThan(200 * 1024);
    expect(ratio).toBeLessThanOrEqual(LIMIT);
    // No function strays far from the others (one bloated import shows here even if the median holds).
    const floors = new Map<string, number>();
    const floorOf = async (capabilities: readonly Capability[] = []) => {
      const source = floorSource(capabilities);
      if (!floors.has(source)) floors.set(source, (await bundleSource(source)).length);
      return floors.get(source)!;
    };
    const ratios = [];
    for (const bundle of functions) {
      const floor = await floorOf(allFunctions.find((fn) => fn.name === bundle.name)!.capabilities);
      ratios.push({ name: bundle.name, ratio: Number((bundle.code.length / floor).toFixed(4)) });
    }
    expect(ratios.filter(({ ratio }) => ratio > STRAY_LIMIT)).toEqual([]);
    for (const bundle of functions) {
      const code = bundle.code.toString('utf8');
      // The X-Ray SDK stays out (issue 11): Lambda's active tracing needs no SDK.
      expect(code.includes('AWS_XRAY_CONTEXT_MISSING'), bundle.name).toBe(false);
      // Contracts use zod/mini; classic zod (a method-chaining API around the same core, about 70 KB more) stays out.
      expect(code.includes('"ZodString"'), bundle.name).toBe(false);
      // zod's English messages go wherever zod does (shared/platform/zod.ts): a worker's logged error reads like the API's.
      if (code.includes('"$ZodType"')) expect(code.includes('Too small: expected'), bundle.name).toBe(true);
      // The OpenAPI examples (infra/openapi/examples.ts, about 3.4 KB) are the generator's alone: the models name their schemas only.
      expect(code.includes(ids.incident), bundle.name).toBe(false);
    }
  });
});
