/**
 * The deployment as the infra tests see it: the root stack and its nested stacks, synthesized without
 * bundling, each template on its own (references resolve within one template) and all resources
 * merged into one (logical ids are unique across them), which most assertions read.
 */
import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../infra/cdk/app.js';

export interface TemplateJson {
  Parameters?: Record<string, { Type: string; Default?: unknown; AllowedPattern?: string; AllowedValues?: string[]; ConstraintDescription?: string }>;
  Conditions?: Record<string, unknown>;
  Rules?: Record<string, unknown>;
  Resources: Record<string, { Type: string; Properties?: Record<string, any>; DependsOn?: string | string[]; Condition?: string; DeletionPolicy?: string }>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

/**
 * An app as the tests build it: no bundling, and none of the synthesis by-products no assertion reads
 * (the construct tree file, creation stack traces, CDK's built-in CloudFormation validation, which
 * only warns unless @aws-cdk/core:validateAgainstDefaultRules is set; users' `cdk synth` keeps it).
 * About half of each synthesis's CPU.
 */
export const testApp = (context: Record<string, unknown> = {}) =>
  new App({
    context: { 'aws:cdk:bundling-stacks': [], 'aws:cdk:disable-stack-trace': true, 'aws:cdk:disable-creation-stack-traces': true, ...context },
    treeMetadata: false,
    builtinCloudFormationValidation: false,
  });

/**
 * CDK's own function that copies the console's build into its bucket (`BucketDeployment`, infra/cdk/console.ts),
 * with its role and policy, and the function emptying the bucket of a throwaway stage: CDK's code (Python), not one of the service's functions, which the checks of
 * functions and grants are about. Its own checks are in stack.test.ts ("deploys the web console …").
 */
export const isCdkDeploymentResource = (logicalId: string) => /^Custom(CDKBucketDeployment|S3AutoDeleteObjects)/.test(logicalId);

/** The service's own functions of a template (not CDK's deployment functions). */
export const serviceFunctions = (template: Template) =>
  Object.entries(template.findResources('AWS::Lambda::Function'))
    .filter(([id]) => !isCdkDeploymentResource(id))
    .map(([, fn]) => fn);

/** What the app still takes as context; everything else is a setting, written to the stage's file. */
const CONTEXT = new Set(['stage', 'settingsDir', 'replaceSenderIdentity']);
const directories: string[] = [];
process.on('exit', () => directories.forEach((directory) => rmSync(directory, { recursive: true, force: true })));

/**
 * A settings directory holding `<stage>.json` with the given settings (and no lock yet: the synth
 * records the sender identity there, as a first synth does).
 */
export function settingsDirectory(stage: string | undefined, settings: Record<string, unknown>): string {
  const directory = mkdtempSync(join(tmpdir(), 'incident-settings-'));
  directories.push(directory);
  writeFileSync(join(directory, `${stage ?? 'default'}.json`), JSON.stringify(settings));
  return directory;
}

/**
 * The deployment of these settings (`{alarmEmail: …}`, as in `deploy/<stage>.json`) and context
 * (`stage`, `replaceSenderIdentity`): the settings are written to a stage file of their own, which the
 * app reads as it reads `deploy/` (unless `settingsDir` is given).
 */
export function synthStacks(settingsAndContext: Record<string, unknown> = {}) {
  const context = Object.fromEntries(Object.entries(settingsAndContext).filter(([name]) => CONTEXT.has(name)));
  const settings = Object.fromEntries(Object.entries(settingsAndContext).filter(([name]) => !CONTEXT.has(name)));
  if (!context.settingsDir) context.settingsDir = settingsDirectory(context.stage as string | undefined, settings);
  const { app, stack } = buildApp(testApp(context));
  const stacks: Stack[] = [stack, ...stack.node.findAll().filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))];
  const templates = stacks.map((each) => ({ stack: each, json: Template.fromStack(each).toJSON() as TemplateJson }));
  const root = templates[0]!.json;
  const resources: TemplateJson['Resources'] = {};
  for (const { stack: each, json } of templates) {
    for (const [id, resource] of Object.entries(json.Resources)) {
      if (id in resources) throw new Error(`${id} of ${each.node.path} is also in another template`);
      resources[id] = resource;
    }
  }
  const merged: TemplateJson = { ...root, Resources: resources };
  return { app, stack, stacks, templates, root, merged, template: Template.fromJSON(merged as unknown as Record<string, unknown>) };
}

/** A value that is the given root resource's attribute, seen from any template: a GetAtt or Ref in the root, the parameter CDK passes it through in a nested stack. */
export function refersTo(value: unknown, logicalIdPrefix: string): boolean {
  if (!value || typeof value !== 'object') return false;
  const { Ref, 'Fn::GetAtt': getAtt } = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (getAtt) return getAtt[0].startsWith(logicalIdPrefix);
  if (Ref) return Ref.startsWith(logicalIdPrefix) || new RegExp(`^referenceto[A-Za-z0-9]*?${logicalIdPrefix}`).test(Ref);
  return false;
}
