/**
 * `npm run measure:cold-start`: what the observability stack costs a cold start. Bundles one
 * handler as the CDK stack does (esbuild, ESM, minified, AWS SDK included) twice — as is, and
 * with functions/lib/observability.ts replaced by a no-op — and times loading each bundle in a
 * fresh Node.js process (module load = the cold-start work before the first request).
 */
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../local/paths.js';

const entry = join(repositoryRoot, process.argv[2] ?? 'functions/incidents/get.ts');
const runs = Number(process.argv[3] ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'cold-start-'));

const stub = join(dir, 'observability-stub.ts');
writeFileSync(
  stub,
  `const noop = () => undefined;
export const logger = { info: noop, error: noop, warn: noop, debug: noop };
export const metrics = {};
export const mask = (value) => value;
export const observability = () => [];
export const workerHandler = (_, handle) => handle;
`,
);
const withoutObservability: Plugin = {
  name: 'no-observability',
  setup(builder) {
    builder.onResolve({ filter: /(^\.\/|\/lib\/)observability\.js$/ }, () => ({ path: stub }));
  },
};

async function bundle(name: string, plugins: Plugin[]) {
  const outfile = join(dir, name, 'index.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minify: true,
    mainFields: ['module', 'main'],
    banner: { js: "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);" },
    plugins,
    logLevel: 'error',
  });
  return outfile;
}

function loadTimes(file: string) {
  const script = `const t=performance.now();await import(${JSON.stringify(file)});console.log(performance.now()-t)`;
  const times = Array.from({ length: runs }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TABLE_NAME: 'x', AWS_REGION: 'eu-west-1' } }).toString()),
  );
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const full = await bundle('with', []);
const bare = await bundle('without', [withoutObservability]);
for (const [label, file] of [['with observability', full], ['without observability', bare]] as const) {
  console.log(`${label.padEnd(24)} ${(statSync(file).size / 1024).toFixed(0).padStart(5)} KB   median module load ${loadTimes(file).toFixed(1)} ms (${runs} runs)`);
}
