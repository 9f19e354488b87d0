/**
 * A stage's settings live in one committed file, `deploy/<stage>.json`, which every synth reads; `-c`
 * only picks the stage (issue 46 §1). A synth that would replace the stage's SES identity is refused
 * unless asked for. These read the settings as the app does first (`readConfig`, before any construct).
 */
import { App } from 'aws-cdk-lib';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/cdk/app.js';
import { readConfig } from '../../infra/cdk/config.js';
import { repositoryRoot } from '../../infra/paths.js';
import { testApp } from './templates.js';

const directories: string[] = [];
afterAll(() => directories.forEach((directory) => rmSync(directory, { recursive: true, force: true })));
/** A settings directory with these stage files. */
function settingsDir(files: Record<string, unknown> = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'stage-settings-'));
  directories.push(directory);
  for (const [name, settings] of Object.entries(files)) writeFileSync(join(directory, `${name}.json`), JSON.stringify(settings));
  return directory;
}
const read = (context: Record<string, unknown>) => readConfig(new App({ context }).node);
const lockOf = (directory: string, stage = 'default') => JSON.parse(readFileSync(join(directory, `${stage}.lock.json`), 'utf8'));

describe("a stage's settings", () => {
  it('are read from deploy/<stage>.json (default.json without a stage) and refused as -c context or cdk.json context', () => {
    const directory = settingsDir({ default: { alarmEmail: 'oncall@example.com' }, staging: { alarmEmail: 'staging@example.com', removalPolicy: 'destroy', pagingConcurrency: 140, accountConcurrency: 3000 } });
    expect(read({ settingsDir: directory })).toMatchObject({ alarmEmail: 'oncall@example.com', removalPolicy: 'retain' });
    expect(read({ settingsDir: directory }).stage).toBeUndefined();
    expect(read({ settingsDir: directory, stage: 'staging' })).toMatchObject({ alarmEmail: 'staging@example.com', removalPolicy: 'destroy', pagingConcurrency: 140, stage: 'staging' });
    // A setting as context: refused, naming the file it belongs in (so nobody relies on remembering it).
    expect(() => read({ settingsDir: directory, stage: 'staging', alarmEmail: 'other@example.com' })).toThrow(
      /^Invalid CDK context: alarmEmail: settings live in .*staging\.json \(commit it\), never in -c or cdk\.json, so no deploy can drop them; -c takes only stage, settingsDir, replaceSenderIdentity$/,
    );
    expect(() => read({ settingsDir: directory, removalPolicy: 'destroy', logLevel: 'DEBUG' })).toThrow(/^Invalid CDK context: removalPolicy, logLevel: settings live in \/.*default\.json/);
    // The repository's cdk.json carries none (it would be refused).
    expect(JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')).context).toBeUndefined();
  });

  it('must exist, be an object of known settings, and not name a stage', () => {
    const directory = settingsDir({ typo: { alarmEmial: 'oncall@example.com' }, named: { stage: 'named' }, list: [], bad: { logRetentionDays: 45 } });
    expect(() => read({ settingsDir: directory, stage: 'prod' })).toThrow(/^No settings for this stage: create .*prod\.json \(e\.g\. \{"alarmEmail": "oncall@yourdomain\.com"\}; every setting: docs\/deployment\.md#settings\) and commit it$/);
    expect(() => read({ settingsDir: directory, stage: 'typo' })).toThrow(/^Invalid settings in .*typo\.json: alarmEmial: Unrecognized key/);
    expect(() => read({ settingsDir: directory, stage: 'named' })).toThrow(/stage: a stage's settings file is named after it/);
    expect(() => read({ settingsDir: directory, stage: 'list' })).toThrow(/^Invalid settings in .*list\.json: an object of settings, e\.g\. \{\}$/);
    expect(() => read({ settingsDir: directory, stage: 'bad' })).toThrow(/logRetentionDays: logRetentionDays must be one of 1, 3/);
    writeFileSync(join(directory, 'broken.json'), '{"alarmEmail": ');
    expect(() => read({ settingsDir: directory, stage: 'broken' })).toThrow(/^Invalid settings in .*broken\.json: not JSON/);
    // A stage name is a file name only when it is a stage name.
    expect(() => read({ settingsDir: directory, stage: '../etc' })).toThrow('Invalid CDK context: stage: stage must be a letter then up to 19 letters, digits or hyphens, e.g. staging');
  });

  it('documented in deploy/example.json are valid', () => {
    const directory = settingsDir();
    copyFileSync(join(repositoryRoot, 'deploy', 'example.json'), join(directory, 'example.json'));
    expect(read({ settingsDir: directory, stage: 'example' })).toMatchObject({ senderDomain: 'yourdomain.com', selfSignUp: false, alarmEmail: 'oncall@yourdomain.com' });
  });
});

describe("the stage's sender identity", () => {
  it('is recorded beside the settings by the first synth, and a synth replacing it is refused unless -c replaceSenderIdentity=true', () => {
    const directory = settingsDir({ default: {} });
    read({ settingsDir: directory });
    expect(lockOf(directory)).toEqual({ senderIdentity: 'address' });
    // The deployed address identity would be replaced by a domain identity: refused, and nothing recorded.
    writeFileSync(join(directory, 'default.json'), JSON.stringify({ senderDomain: 'Status.example.com' }));
    const refusal = /^Refusing to replace the stage's SES sender identity: .*default\.json declares domain:status\.example\.com, the stage has address \(.*default\.lock\.json\)\. .*If that is meant: -c replaceSenderIdentity=true, then commit the updated lock file$/;
    expect(() => read({ settingsDir: directory })).toThrow(refusal);
    // The app refuses at synth, before building anything.
    expect(() => buildApp(testApp({ settingsDir: directory }))).toThrow(refusal);
    expect(() => read({ settingsDir: directory, replaceSenderIdentity: 'false' })).toThrow(refusal);
    expect(lockOf(directory)).toEqual({ senderIdentity: 'address' });
    // Asked for explicitly: accepted and recorded, so the next plain synth goes through.
    expect(read({ settingsDir: directory, replaceSenderIdentity: 'true' }).senderDomain).toBe('Status.example.com');
    expect(lockOf(directory)).toEqual({ senderIdentity: 'domain:status.example.com' });
    expect(() => read({ settingsDir: directory })).not.toThrow();
    // What updates the identity in place (a custom MAIL FROM) is no replacement.
    writeFileSync(join(directory, 'default.json'), JSON.stringify({ senderDomain: 'status.example.com', mailFromDomain: 'mail.status.example.com' }));
    expect(() => read({ settingsDir: directory })).not.toThrow();
    // Another domain, or leaving the identity to another stage (this one's would be deleted): refused.
    for (const settings of [{ senderDomain: 'example.org' }, { senderDomain: 'status.example.com', senderIdentity: 'existing' }, {}]) {
      writeFileSync(join(directory, 'default.json'), JSON.stringify(settings));
      expect(() => read({ settingsDir: directory }), JSON.stringify(settings)).toThrow(/^Refusing to replace the stage's SES sender identity/);
    }
    // Each stage has its own record.
    writeFileSync(join(directory, 'staging.json'), JSON.stringify({ senderDomain: 'example.org' }));
    read({ settingsDir: directory, stage: 'staging' });
    expect(lockOf(directory, 'staging')).toEqual({ senderIdentity: 'domain:example.org' });
    expect(existsSync(join(directory, 'prod.lock.json'))).toBe(false);
  });
});
