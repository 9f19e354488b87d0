/**
 * The CDK app: `npx cdk synth` / `npx cdk deploy -c senderEmail=you@example.com`.
 * cdk-nag's AwsSolutions pack validates the stack on every synth.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { fileURLToPath } from 'node:url';
import { prepareBundles } from '../build/bundling.js';
import { acknowledgeFindings } from './nag.js';
import { IncidentServiceStack } from './stack.js';

export function buildApp(app = new App()) {
  const stack = new IncidentServiceStack(app, app.node.tryGetContext('stackName') ?? 'IncidentService', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'Incident and team management service',
  });
  acknowledgeFindings(stack);
  return { app, stack };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await prepareBundles();
  const { app } = buildApp();
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  app.synth();
}
