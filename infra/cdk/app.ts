/**
 * The CDK app: `npx cdk synth` / `npx cdk deploy --parameters SenderEmail=you@example.com` (the first
 * time; later deploys, `cdk diff` and `cdk destroy` need no parameter: the stack keeps it).
 * cdk-nag's AwsSolutions pack validates the stack on every synth.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { fileURLToPath } from 'node:url';
import { prepareBundles } from '../build/bundling.js';
import { readConfig, stackNameOf } from './config.js';
import { acknowledgeFindings } from './nag.js';
import { IncidentServiceStack } from './stack.js';

export function buildApp(app = new App()) {
  const stack = new IncidentServiceStack(app, stackNameOf(readConfig(app.node)), {
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
