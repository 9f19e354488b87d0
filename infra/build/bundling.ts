/**
 * How every function is bundled, in one place: the CDK stack's asset bundling
 * (`infra/cdk/service-function.ts`, `bundleFunction`) and the size and cold-start measurements (`npm run bench`, the
 * bundle-size test) use these same esbuild settings, so what is measured is what deploys.
 */
import { build, buildSync, type BuildOptions } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { allFunctions } from '../system.js';
import { repositoryRoot } from '../local/paths.js';

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

let deployBundles: Map<string, { name: string; contents: Uint8Array }[]> | undefined;

/**
 * Bundles one function as it deploys: `<outdir>/index.mjs` (ESM, minified, the AWS SDK included)
 * and its source map (without sources). The first call bundles every function of the system
 * description in one in-process esbuild run (about 3 s for all of them, sharing the parsing of the
 * SDK); later calls write what it made. Starting an esbuild process per function through `npx`,
 * as NodejsFunction does with an npm lock file, cost `cdk synth` about 0.45 s a function.
 */
export function bundleFunction(handler: string, outdir: string): void {
  const files = deploymentBundles().get(handler);
  if (!files) throw new Error(`${handler} is not a handler of the system description (infra/system.ts)`);
  mkdirSync(outdir, { recursive: true });
  for (const file of files) writeFileSync(join(outdir, file.name), file.contents);
}

/** Every handler's deployed files (bundle and source map), built once per process. */
const deploymentBundles = () => (deployBundles ??= bundleForDeployment());

function bundleForDeployment() {
  const handlers = [...new Set(allFunctions.map((fn) => fn.handler))];
  const result = buildSync({
    ...esbuildOptions,
    entryPoints: Object.fromEntries(handlers.map((handler, index) => [`${index}/index`, join(repositoryRoot, handler)])),
    // Never written (`write: false`); inside the repository at a fixed depth, so that the source maps
    // name the sources relative to it and the bundles (whose hash is the assets') are the same from
    // any checkout.
    outdir: join(repositoryRoot, 'cdk.out', 'bundles'),
    outExtension: { '.js': '.mjs' },
    sourcemap: true,
    sourcesContent: false,
  });
  const bundles = new Map<string, { name: string; contents: Uint8Array }[]>();
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

/** The baseline, and every function of the system description exactly as it deploys (in memory). */
export async function bundleAll(): Promise<{ baseline: Bundle; functions: Bundle[] }> {
  const baseline = await build({ ...esbuildOptions, stdin: { contents: BASELINE_SOURCE, resolveDir: repositoryRoot, loader: 'js' } });
  const deployed = deploymentBundles();
  return {
    baseline: { name: 'baseline', code: baseline.outputFiles![0]!.contents },
    functions: allFunctions.map((fn) => ({ name: fn.name, code: deployed.get(fn.handler)!.find((file) => file.name === 'index.mjs')!.contents })),
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
