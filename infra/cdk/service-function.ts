/**
 * The project's function defaults in one construct (Node.js 24 on arm64, ESM bundle built locally
 * with esbuild — minified, source maps, AWS SDK bundled so the tested version is the deployed one —
 * an explicit log group with retention, X-Ray tracing, timeout and memory from the system
 * description), and the one way a function gets the table: its name injected and exactly the
 * access its description names granted.
 */
import { AssetHashType, DockerImage, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { dirname, join } from 'node:path';
import { bundleFunction } from '../build/bundling.js';
import { repositoryRoot } from '../paths.js';
import { env, functionDefaults, grantedTableActions, table as tableDescription, type FunctionDescription } from '../../shared/system.js';


export interface ServiceFunctionProps {
  description: FunctionDescription;
  table: ITable;
  logRetention: RetentionDays;
  /** RETAIN keeps the log group when the stack is deleted (the default); DESTROY for throwaway stacks. */
  logRemovalPolicy: RemovalPolicy;
  environment?: Record<string, string>;
  /** Concurrency reserved for this function alone (the paging path's, when `pagingConcurrency` is given). */
  reservedConcurrency?: number;
  /** A physical name, for the one function reached by name from outside (monitor-check); the others are named by CloudFormation. */
  functionName?: string;
}

export class ServiceFunction extends Construct {
  readonly fn: LambdaFunction;
  /** Its log group (the stage's failure and near-timeout metric filters read it). */
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const logGroup = (this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy }));
    this.fn = new LambdaFunction(this, 'Function', {
      description: `${props.description.name} (${props.description.handler})`,
      code: bundledCode(props.description.handler),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: functionDefaults.memoryMb,
      timeout: Duration.seconds(props.description.timeoutSeconds ?? functionDefaults.timeoutSeconds),
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      reservedConcurrentExecutions: props.reservedConcurrency,
      functionName: props.functionName,
    });
    grantTable(this.fn, props.table, props.description);
  }
}

/**
 * The function's code: its handler bundled locally with esbuild, in-process (`infra/build/bundling.ts`:
 * the settings the synth test's bundle-size check and the bench measure), never in Docker. The asset's hash is the
 * bundle's, so an unchanged bundle is not uploaded again. Stacks that skip bundling (the CDK
 * assertion tests) never run it.
 */
function bundledCode(handler: string): Code {
  return Code.fromAsset(join(repositoryRoot, dirname(handler)), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type; never pulled, since local bundling always succeeds.
      image: DockerImage.fromRegistry('local-esbuild'),
      // Several handlers share a directory: the handler is part of the bundling options, which the
      // CDK's staging cache is keyed on, or it would reuse a directory's first bundle for all of them.
      environment: { HANDLER: handler },
      local: {
        tryBundle(outputDir: string) {
          bundleFunction(handler, outputDir);
          return true;
        },
      },
    },
  });
}

/**
 * Injects the table name and grants exactly the access the description names (none for `none`):
 * reads, writes, batch writes only where collections are deleted, and only the leading keys given
 * (plus Query of the indexes named, of the index partitions named, for a confined function that reads an index).
 */
export function grantTable(fn: LambdaFunction, table: ITable, description: Pick<FunctionDescription, 'name' | 'table' | 'batchWrite' | 'leadingKeys' | 'indexes' | 'indexLeadingKeys'>) {
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
  // A confined function's index Queries: their own statement, Query only, on the indexes it names, of the
  // index partitions it names (for a Query of an index, dynamodb:LeadingKeys is the index's partition key).
  if (description.leadingKeys && description.indexes?.length) {
    if (!description.indexLeadingKeys?.length) throw new Error(`${description.name} reads indexes (${description.indexes.join(', ')}) but declares no indexLeadingKeys (shared/system.ts)`);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: description.indexes.map((name) => `${table.tableArn}/index/${name}`),
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': description.indexLeadingKeys.map((prefix) => `${prefix}*`) } },
      }),
    );
  }
}
