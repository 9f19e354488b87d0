/**
 * How every function is bundled, in one place: the CDK stack's asset bundling
 * (`infra/cdk/service-function.ts`, `bundleFunction`) and the size and cold-start measurements (`npm run bench`, the
 * bundle-size check in the synth test) use these same esbuild settings, so what is measured is what deploys.
 */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { allFunctions } from '../../shared/system.js';
import { repositoryRoot } from '../local/paths.js';
import { markConstantsPure, marksConstantsPure } from './pure-constants.js';

/** Node.js 24 on Lambda; ESM bundles of CommonJS dependencies need `require`. */
export const bundleSettings = {
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);",
} as const;

const esbuildOptions: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  minify: true,
  target: bundleSettings.target,
  mainFields: [...bundleSettings.mainFields],
  banner: { js: bundleSettings.banner },
  logLevel: 'error',
  write: false,
};

/**
 * The floor a handler bundle is measured against: a function that reads one item with the
 * DocumentClient, and nothing else, bundled the same way.
 */
export const BASELINE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async (event) => {
  const { Item } = await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }));
  return Item ?? null;
};
`;

/** The modules of `shared/`, with their top-level constants' calls marked pure (`pure-constants.ts`). */
const sharedConstantsPure: Plugin = {
  name: 'shared-constants-pure',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) =>
      marksConstantsPure(args.path, repositoryRoot) ? { contents: markConstantsPure(readFileSync(args.path, 'utf8'), args.path), loader: 'ts' } : undefined,
    );
  },
};

type DeployFiles = Map<string, { name: string; contents: Uint8Array }[]>;

let deployBundles: Promise<DeployFiles> | undefined;
let deployed: DeployFiles | undefined;

/**
 * Bundles every function of the system description, as it deploys, in one esbuild run (about 3 s
 * for all of them, sharing the parsing of the SDK); later calls wait for the same run. Starting an
 * esbuild process per function through `npx`, as NodejsFunction does with an npm lock file, cost
 * `cdk synth` about 0.45 s a function. The CDK app awaits it before it builds the stack, since
 * the CDK's local bundling is synchronous and esbuild runs plugins only asynchronously.
 */
export function prepareBundles(): Promise<DeployFiles> {
  deployBundles ??= bundleForDeployment().then((files) => (deployed = files));
  return deployBundles;
}

/**
 * Writes one function's bundle as it deploys: `<outdir>/index.mjs` (ESM, minified, the AWS SDK
 * included) and its source map (without sources). `prepareBundles()` must have finished.
 */
export function bundleFunction(handler: string, outdir: string): void {
  if (!deployed) throw new Error('The bundles are not built yet: await prepareBundles() before synthesizing the stack');
  const files = deployed.get(handler);
  if (!files) throw new Error(`${handler} is not a handler of the system description (shared/system.ts)`);
  mkdirSync(outdir, { recursive: true });
  for (const file of files) writeFileSync(join(outdir, file.name), file.contents);
}

async function bundleForDeployment(): Promise<DeployFiles> {
  const handlers = [...new Set(allFunctions.map((fn) => fn.handler))];
  const result = await build({
    ...esbuildOptions,
    plugins: [sharedConstantsPure],
    entryPoints: Object.fromEntries(handlers.map((handler, index) => [`${index}/index`, join(repositoryRoot, handler)])),
    // Never written (`write: false`); inside the repository at a fixed depth, so that the source maps
    // name the sources relative to it and the bundles (whose hash is the assets') are the same from
    // any checkout.
    outdir: join(repositoryRoot, 'cdk.out', 'bundles'),
    outExtension: { '.js': '.mjs' },
    sourcemap: true,
    sourcesContent: false,
  });
  const bundles: DeployFiles = new Map();
  for (const file of result.outputFiles ?? []) {
    const index = basename(dirname(file.path));
    const name = basename(file.path);
    const handler = handlers[Number(index)]!;
    bundles.set(handler, [...(bundles.get(handler) ?? []), { name, contents: file.contents }]);
  }
  return bundles;
}

export interface Bundle {
  name: string;
  code: Uint8Array;
}

/** A module of JavaScript source (resolved from the repository's root) bundled as every function is. */
export async function bundleSource(contents: string): Promise<Uint8Array> {
  const result = await build({ ...esbuildOptions, stdin: { contents, resolveDir: repositoryRoot, loader: 'js' } });
  return result.outputFiles![0]!.contents;
}

/** The baseline, and every function of the system description exactly as it deploys (in memory). */
export async function bundleAll(): Promise<{ baseline: Bundle; functions: Bundle[] }> {
  const [baseline, files] = await Promise.all([bundleSource(BASELINE_SOURCE), prepareBundles()]);
  return {
    baseline: { name: 'baseline', code: baseline },
    functions: allFunctions.map((fn) => ({ name: fn.name, code: files.get(fn.handler)!.find((file) => file.name === 'index.mjs')!.contents })),
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
