/**
 * How every function is bundled, in one place: the CDK stack's NodejsFunction bundling
 * (`infra/cdk/service-function.ts`) and the size and cold-start measurements (`npm run bench`, the
 * bundle-size test) use these same esbuild settings, so what is measured is what deploys.
 */
import { build, type BuildOptions } from 'esbuild';
import { join } from 'node:path';
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

export interface Bundle {
  name: string;
  code: Uint8Array;
}

/** The baseline and every function of the system description, bundled as they deploy (in memory). */
export async function bundleAll(): Promise<{ baseline: Bundle; functions: Bundle[] }> {
  const baseline = await build({ ...esbuildOptions, stdin: { contents: BASELINE_SOURCE, resolveDir: repositoryRoot, loader: 'js' } });
  const functions = await build({
    ...esbuildOptions,
    entryPoints: Object.fromEntries(allFunctions.map((fn) => [fn.name, join(repositoryRoot, fn.handler)])),
    outdir: '/bundles',
    outExtension: { '.js': '.mjs' },
  });
  return {
    baseline: { name: 'baseline', code: baseline.outputFiles![0]!.contents },
    functions: functions.outputFiles!.map((file) => ({ name: file.path.split('/').pop()!.replace(/\.mjs$/, ''), code: file.contents })),
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
