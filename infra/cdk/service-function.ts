/**
 * The project's function defaults in one construct (Node.js 24 on arm64, ESM bundle built locally
 * with esbuild — minified, source maps, AWS SDK bundled so the tested version is the deployed one —
 * an explicit log group with retention, X-Ray tracing, timeout and memory from the system
 * description), and the one way a function gets the table: its name injected and exactly the
 * access its description names granted.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { bundleSettings } from '../build/bundling.js';
import { repositoryRoot } from '../local/paths.js';
import { env, functionDefaults, grantedTableActions, table as tableDescription, type FunctionDescription } from '../system.js';


export interface ServiceFunctionProps {
  description: FunctionDescription;
  table: ITable;
  logRetention: RetentionDays;
  /** RETAIN keeps the log group when the stack is deleted (the default); DESTROY for throwaway stacks. */
  logRemovalPolicy: RemovalPolicy;
  environment?: Record<string, string>;
}

export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    this.fn = new NodejsFunction(this, 'Function', {
      description: `${props.description.name} (${props.description.handler})`,
      entry: join(repositoryRoot, props.description.handler),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: join(repositoryRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: functionDefaults.memoryMb,
      timeout: Duration.seconds(props.description.timeoutSeconds ?? functionDefaults.timeoutSeconds),
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        // The settings `npm run bench` and the bundle-size test measure with (infra/build/bundling.ts).
        format: OutputFormat.ESM,
        target: bundleSettings.target,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        mainFields: [...bundleSettings.mainFields],
        bundleAwsSDK: true,
        externalModules: [],
        forceDockerBundling: false,
        banner: bundleSettings.banner,
      },
    });
    grantTable(this.fn, props.table, props.description);
  }
}

/**
 * Injects the table name and grants exactly the access the description names (none for `none`):
 * reads, writes, batch writes only where collections are deleted, and only the leading keys given.
 */
export function grantTable(fn: NodejsFunction, table: ITable, description: Pick<FunctionDescription, 'table' | 'batchWrite' | 'leadingKeys'>) {
  if (description.table === 'none') return;
  fn.addEnvironment(env.tableName, table.tableName);
  const indexes = tableDescription.globalIndexes.map((index) => `${table.tableArn}/index/${index.name}`);
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: grantedTableActions(description),
      resources: description.leadingKeys ? [table.tableArn] : [table.tableArn, ...indexes],
      conditions: description.leadingKeys
        ? { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': description.leadingKeys.map((prefix) => `${prefix}*`) } }
        : undefined,
    }),
  );
}
