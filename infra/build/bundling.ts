/**
 * How every function is bundled, in one place: the CDK stack's asset bundling
 * (`infra/cdk/service-function.ts`, `bundleFunction`) and the size and cold-start measurements (`npm run bench`, the
 * bundle-size check in the synth test) use these same esbuild settings, so what is measured is what deploys.
 */
import { build, version as esbuildVersion, type BuildOptions, type Plugin } from 'esbuild';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import ts from 'typescript';
import { allFunctions, type Capability } from '../../shared/system.js';
import { repositoryRoot } from '../paths.js';
import { withFileLock } from './file-lock.js';
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

/** The AWS SDK client a capability needs, and one command it sends (what a function with it minimally bundles). */
const CAPABILITY_CLIENTS: Record<Capability, { module: string; client: string; command: string }> = {
  'publish-events': { module: '@aws-sdk/client-eventbridge', client: 'EventBridgeClient', command: 'PutEventsCommand' },
  'send-email': { module: '@aws-sdk/client-ses', client: 'SESClient', command: 'SendEmailCommand' },
  'send-sms-voice': { module: '@aws-sdk/client-pinpoint-sms-voice-v2', client: 'PinpointSMSVoiceV2Client', command: 'SendTextMessageCommand' },
  'manage-schedules': { module: '@aws-sdk/client-scheduler', client: 'SchedulerClient', command: 'CreateScheduleCommand' },
};

/**
 * A function's own floor: the baseline, plus one send of each AWS client its capabilities need
 * (a function that e-mails carries SES's client however lean its code; issue 43 gave one function two).
 */
export function floorSource(capabilities: readonly Capability[] = []): string {
  const clients = [...new Set(capabilities)].map((capability) => CAPABILITY_CLIENTS[capability]);
  if (clients.length === 0) return BASELINE_SOURCE;
  const imports = clients.map(({ module, client, command }) => `import { ${client}, ${command} } from '${module}';`).join('\n');
  const sends = clients.map(({ client, command }, index) => `  if (event.c${index}) await new ${client}({}).send(new ${command}(event.c${index}));`).join('\n');
  return BASELINE_SOURCE.replace('export const handler = async (event) => {\n', `${imports}\nexport const handler = async (event) => {\n${sends}\n`);
}

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

/**
 * The last deployment bundles, kept under node_modules/.cache/bundles with the content hash of every
 * file esbuild read for them (its metafile's inputs: our sources and the dependencies'). They are
 * used again only when the settings are the same (esbuild's version, the options, the handlers, the
 * pure-constants marking) and every one of those files still has its hash, which is exactly when
 * esbuild would write the same bytes; anything else builds afresh. The synth test, the deployed
 * bundles test and a second `cdk synth` so skip a 10 s (CPU) esbuild run.
 */
const BUNDLE_CACHE = join(repositoryRoot, 'node_modules', '.cache', 'bundles');

interface CachedBundles {
  inputs: Record<string, string>;
  files: { handler: string; name: string; path: string }[];
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const inputPath = (input: string) => (isAbsolute(input) ? input : join(repositoryRoot, input));

function readCachedBundles(directory: string): DeployFiles | undefined {
  const manifestFile = join(directory, 'manifest.json');
  if (!existsSync(manifestFile)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as CachedBundles;
    for (const [input, hash] of Object.entries(manifest.inputs)) {
      if (!existsSync(inputPath(input)) || sha256(readFileSync(inputPath(input))) !== hash) return undefined;
    }
    const bundles: DeployFiles = new Map();
    for (const file of manifest.files) {
      bundles.set(file.handler, [...(bundles.get(file.handler) ?? []), { name: file.name, contents: readFileSync(join(directory, file.path)) }]);
    }
    return bundles;
  } catch {
    return undefined;
  }
}

/** Writes the bundles and their manifest to a fresh folder, then puts it in place in one rename. */
function writeCachedBundles(directory: string, bundles: DeployFiles, inputs: string[]) {
  try {
    const staging = `${directory}.${randomUUID()}`;
    mkdirSync(staging, { recursive: true });
    const manifest: CachedBundles = { inputs: {}, files: [] };
    for (const input of inputs) manifest.inputs[input] = sha256(readFileSync(inputPath(input)));
    let index = 0;
    for (const [handler, files] of bundles) {
      for (const file of files) {
        const path = `${index++}-${file.name}`;
        writeFileSync(join(staging, path), file.contents);
        manifest.files.push({ handler, name: file.name, path });
      }
    }
    writeFileSync(join(staging, 'manifest.json'), JSON.stringify(manifest));
    rmSync(directory, { recursive: true, force: true });
    renameSync(staging, directory);
    // Bundles of other settings are never used again.
    for (const entry of readdirSync(BUNDLE_CACHE)) {
      if (entry !== basename(directory) && !entry.includes('.')) rmSync(join(BUNDLE_CACHE, entry), { recursive: true, force: true });
    }
  } catch {
    // A cache only: a run beside this one may have put its own in place first.
  }
}

async function bundleForDeployment(): Promise<DeployFiles> {
  const handlers = [...new Set(allFunctions.map((fn) => fn.handler))];
  const options: BuildOptions = {
    ...esbuildOptions,
    entryPoints: Object.fromEntries(handlers.map((handler, index) => [`${index}/index`, join(repositoryRoot, handler)])),
    // Never written (`write: false`); inside the repository at a fixed depth, so that the source maps
    // name the sources relative to it and the bundles (whose hash is the assets') are the same from
    // any checkout.
    outdir: join(repositoryRoot, 'cdk.out', 'bundles'),
    outExtension: { '.js': '.mjs' },
    sourcemap: true,
    sourcesContent: false,
    absWorkingDir: repositoryRoot,
  };
  // What else decides the bytes: esbuild, the marking of constants (this module's plugin, its
  // module and the TypeScript parser it uses).
  const settings = sha256(
    JSON.stringify({
      esbuildVersion,
      typescript: ts.version,
      options,
      code: ['bundling.ts', 'pure-constants.ts'].map((file) => readFileSync(join(repositoryRoot, 'infra', 'build', file), 'utf8')),
    }),
  );
  const cached = join(BUNDLE_CACHE, settings.slice(0, 24));
  mkdirSync(BUNDLE_CACHE, { recursive: true });
  // One bundling at a time: a process that finds another bundling the same sources (the synth test's
  // `cdk synth` beside the deployed-bundles test, on a fresh checkout) waits for its bundles.
  return withFileLock(`${cached}.lock`, () => readCachedBundles(cached), async () => {
    const result = await build({ ...options, plugins: [sharedConstantsPure], metafile: true });
    const bundles: DeployFiles = new Map();
    for (const file of result.outputFiles ?? []) {
      const index = basename(dirname(file.path));
      const name = basename(file.path);
      const handler = handlers[Number(index)]!;
      bundles.set(handler, [...(bundles.get(handler) ?? []), { name, contents: file.contents }]);
    }
    writeCachedBundles(cached, bundles, Object.keys(result.metafile.inputs));
    return bundles;
  });
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
