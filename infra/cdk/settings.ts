/**
 * Where a stage's settings live (issue 46 §1): `deploy/<stage>.json`, committed with the code, read by
 * every synth (so every `cdk deploy`, `cdk diff`, `cdk destroy`); `-c stage=<stage>` picks the file
 * (no stage: `deploy/default.json`, the stack `IncidentService`). A setting given as `-c` context
 * (or in cdk.json's context) is refused: settings that must be remembered on every command are the
 * ones a plain deploy silently drops.
 *
 * Beside it, `deploy/<stage>.lock.json` records the stage's SES sender identity, written by the first
 * synth of the stage and committed too: a synth whose settings would replace (or delete) that
 * identity is refused unless `-c replaceSenderIdentity=true` says so, which then records the new one.
 * (Like CDK's own `cdk.context.json`: a file the synth writes and the repository keeps.)
 */
import type { Node } from 'constructs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repositoryRoot } from '../paths.js';

/** The stage whose file is read when `-c stage` is not given. */
export const DEFAULT_STAGE = 'default';
/** The context the app still takes: the stage, where its files are (tests), and the one-off override. */
const CONTEXT_KEYS = ['stage', 'settingsDir', 'replaceSenderIdentity'] as const;
const STAGE = /^[a-z][a-z0-9-]{0,19}$/i;

export interface StageFiles {
  /** `-c stage`, when given. */
  stage: string | undefined;
  settings: string;
  lock: string;
  /** The settings file as messages name it (relative to the working directory). */
  shown: string;
}

export function stageFiles(node: Node): StageFiles {
  const stage = node.tryGetContext('stage') as unknown;
  if (stage !== undefined && (typeof stage !== 'string' || !STAGE.test(stage))) {
    throw new Error('Invalid CDK context: stage: stage must be a letter then up to 19 letters, digits or hyphens, e.g. staging');
  }
  const directory = (node.tryGetContext('settingsDir') as string | undefined) ?? join(repositoryRoot, 'deploy');
  const name = stage ?? DEFAULT_STAGE;
  const settings = join(directory, `${name}.json`);
  return { stage, settings, lock: join(directory, `${name}.lock.json`), shown: shown(settings) };
}

/** A path as messages name it: relative to the working directory when under it (`deploy/prod.json`), else whole. */
const shown = (path: string) => {
  const relativePath = relative(process.cwd(), path);
  return relativePath && !relativePath.startsWith('..') ? relativePath : path;
};

/** Refuses any setting given as context, naming the file it belongs in. */
export function refuseSettingsInContext(node: Node, settingNames: string[], files: StageFiles) {
  if (node.tryGetContext('senderEmail') !== undefined) {
    throw new Error('Invalid CDK context: senderEmail is a stack parameter now: npx cdk deploy --parameters SenderEmail=you@yourdomain.com (given once; later deploys keep it)');
  }
  const given = settingNames.filter((name) => !(CONTEXT_KEYS as readonly string[]).includes(name) && node.tryGetContext(name) !== undefined);
  if (given.length) {
    throw new Error(
      `Invalid CDK context: ${given.join(', ')}: settings live in ${files.shown} (commit it), never in -c or cdk.json, so no deploy can drop them; -c takes only ${CONTEXT_KEYS.join(', ')}`,
    );
  }
}

/** The stage's settings file, parsed (validation is the schema's); a clear error when it is missing or not JSON. */
export function readStageSettings(files: StageFiles): Record<string, unknown> {
  if (!existsSync(files.settings)) {
    throw new Error(
      `No settings for this stage: create ${files.shown} (e.g. {"alarmEmail": "oncall@yourdomain.com"}; every setting: docs/deployment.md#settings) and commit it`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(files.settings, 'utf8'));
  } catch (error) {
    throw new Error(`Invalid settings in ${files.shown}: not JSON (${(error as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`Invalid settings in ${files.shown}: an object of settings, e.g. {}`);
  return parsed as Record<string, unknown>;
}

/**
 * Compares the identity the settings declare with the one the stage recorded, and records it when
 * the stage has none yet (its first synth) or when the replacement is asked for.
 */
export function guardSenderIdentity(node: Node, files: StageFiles, identity: string) {
  const replace = [true, 'true'].includes(node.tryGetContext('replaceSenderIdentity') as boolean | string);
  const recorded = existsSync(files.lock) ? (JSON.parse(readFileSync(files.lock, 'utf8')) as { senderIdentity?: string }).senderIdentity : undefined;
  if (recorded === identity) return;
  if (recorded !== undefined && !replace) {
    throw new Error(
      `Refusing to replace the stage's SES sender identity: ${files.shown} declares ${identity}, the stage has ${recorded} (${shown(files.lock)}). ` +
        'Replacing it deletes the verified identity (all mail stops until the new one is verified; a domain needs new DKIM records). ' +
        'If that is meant: -c replaceSenderIdentity=true, then commit the updated lock file',
    );
  }
  writeFileSync(files.lock, `${JSON.stringify({ senderIdentity: identity }, null, 2)}\n`);
}
