/**
 * Builds the console into `console/dist`: one JavaScript bundle and one style sheet (content-hashed,
 * so CloudFront and browsers may keep them for a year), `index.html` naming them, and the files of
 * `public/` (the web app manifest, icons). No inline script or style anywhere: the hosting's
 * Content-Security-Policy (`consoleHosting` in shared/system.ts) allows none.
 * The runtime settings (`config.json`: the API's URL, the sign-in's endpoints) are never built in:
 * the local host serves them, the deployment writes them beside the build.
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const consoleRoot = fileURLToPath(new URL('..', import.meta.url));
export const consoleDist = join(consoleRoot, 'dist');

export interface ConsoleBuild {
  outDir: string;
  /** The first screen's files as served, with their bytes (the bench weighs them gzipped). */
  assets: { path: string; bytes: number }[];
}

export async function buildConsole(outDir = consoleDist): Promise<ConsoleBuild> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(consoleRoot, 'src/main.tsx') },
    bundle: true,
    format: 'esm',
    splitting: false,
    minify: true,
    sourcemap: false,
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    write: true,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => path.slice(path.indexOf('assets/')));
  const script = outputs.find((path) => path.endsWith('.js'));
  const style = outputs.find((path) => path.endsWith('.css'));
  if (!script || !style) throw new Error(`the console's build made no script or style sheet: ${outputs.join(', ')}`);
  const html = readFileSync(join(consoleRoot, 'index.html'), 'utf8').replace('%SCRIPT%', `/${script}`).replace('%STYLE%', `/${style}`);
  writeFileSync(join(outDir, 'index.html'), html);
  cpSync(join(consoleRoot, 'public'), outDir, { recursive: true });
  const sizes = [script, style].map((path) => ({ path: `/${path}`, bytes: readFileSync(join(outDir, path)).length }));
  return { outDir, assets: sizes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `tsx console/build/build.ts [outDir]`: the CDK asset's bundling passes its output folder.
  const built = await buildConsole(process.argv[2] ?? consoleDist);
  for (const asset of built.assets) console.log(`${asset.path}  ${(asset.bytes / 1024).toFixed(1)} KB`);
}
