/**
 * cfn-lint (with the serverless rules) cannot be installed here: it is a Python package, PyPI is not
 * reachable and neither Debian nor npm carries it. These are the equivalent checks, run on the
 * synthesized template: template validity (what cfn-lint's default E-rules catch for a CDK template)
 * and the serverless rules' best practices. docs/deployment.md lists them.
 *
 * They run in stack.test.ts, on its synthesis of the default deployment: a file of their own cost a
 * second import of aws-cdk-lib and a second synthesis (about 10 s of CPU).
 */
import { describe, expect, it } from 'vitest';
import { isCdkDeploymentResource, type synthStacks } from './templates.js';
import { queues } from '../../shared/system.js';
const PSEUDO = new Set(['AWS::AccountId', 'AWS::NotificationARNs', 'AWS::NoValue', 'AWS::Partition', 'AWS::Region', 'AWS::StackId', 'AWS::StackName', 'AWS::URLSuffix']);

/** Every Ref, GetAtt and Sub variable in a value. */
function references(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((inner) => references(inner, found));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.push(inner);
      else if (key === 'Fn::GetAtt') found.push(Array.isArray(inner) ? String(inner[0]) : String(inner).split('.')[0]!);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? String(inner[0]) : String(inner);
        for (const [, name] of text.matchAll(/\$\{([^}!.]+)[^}]*\}/g)) if (!(Array.isArray(inner) && inner[1] && name! in inner[1])) found.push(name!);
        references(Array.isArray(inner) ? inner[1] : undefined, found);
      } else references(inner, found);
    }
  }
  return found;
}

/**
 * Declares the checks on a synthesis of the deployment: the validity checks on every template (the root
 * and its nested stacks) alone, the best-practice checks on all resources together.
 */
export function templateLintChecks({ templates, merged }: Pick<ReturnType<typeof synthStacks>, 'templates' | 'merged'>) {
  const resources = Object.entries(merged.Resources);
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);

  describe('template checks (cfn-lint equivalents)', () => {
    it.each(templates.map(({ stack, json }) => [stack.node.path, json] as const))('%s is a valid template: references resolve, limits hold, no unused parameters or conditions (E1002, E1010, E3005, E1012, W2001, W8001)', (_, template) => {
      const resources = Object.entries(template.Resources);
      const known = new Set([...Object.keys(template.Resources), ...Object.keys(template.Parameters ?? {}), ...PSEUDO]);
      const referenced = references({ Resources: template.Resources, Outputs: template.Outputs });
      expect(referenced.length).toBeGreaterThan(20);
      expect(referenced.filter((name) => !known.has(name))).toEqual([]);
      for (const [id, resource] of resources) {
        for (const dependency of [resource.DependsOn ?? []].flat()) expect(template.Resources, `${id} DependsOn`).toHaveProperty(dependency);
        expect(id).toMatch(/^[A-Za-z0-9]{1,255}$/);
        if (resource.Condition) expect(template.Conditions ?? {}).toHaveProperty(resource.Condition);
      }
      expect(JSON.stringify(template).length).toBeLessThan(1_000_000);
      // CloudFormation's limit is 500; the deployment keeps each template at 300 (stack.test.ts prints the headroom).
      expect(resources.length).toBeLessThanOrEqual(300);
      expect(Object.keys(template.Outputs ?? {}).length).toBeLessThanOrEqual(200);
      const used = new Set(references(template));
      for (const parameter of Object.keys(template.Parameters ?? {})) if (parameter !== 'BootstrapVersion') expect(used, parameter).toContain(parameter);
      for (const condition of Object.keys(template.Conditions ?? {})) expect(JSON.stringify(template.Resources) + JSON.stringify(template.Outputs)).toContain(condition);
    });

    it('has no IAM statement that allows with NotAction/NotResource, or a wildcard action (W11, E3012)', () => {
      const documents = [
        ...ofType('AWS::IAM::Policy').map(([, policy]) => policy.Properties!.PolicyDocument),
        ...ofType('AWS::IAM::ManagedPolicy').map(([, policy]) => policy.Properties!.PolicyDocument),
        ...ofType('AWS::IAM::Role').map(([, role]) => role.Properties!.AssumeRolePolicyDocument),
      ];
      for (const document of documents) {
        for (const statement of document.Statement as Record<string, unknown>[]) {
          if (statement.Effect !== 'Allow') continue;
          expect(statement).not.toHaveProperty('NotAction');
          expect(statement).not.toHaveProperty('NotResource');
          for (const action of [statement.Action ?? []].flat() as string[]) expect(action).not.toMatch(/^\*$|^[a-z0-9-]+:\*$/);
        }
      }
    });

    it('gives every function explicit memory and timeout, active tracing, a current runtime and a log group with retention (serverless rules: Lambda)', () => {
      const logGroups = new Map(ofType('AWS::Logs::LogGroup'));
      for (const [id, fn] of ofType('AWS::Lambda::Function')) {
        if (isCdkDeploymentResource(id)) continue;
        const properties = fn.Properties!;
        expect(properties.MemorySize, id).toBeGreaterThanOrEqual(128);
        expect(properties.Timeout, id).toBeGreaterThan(3);
        expect(properties.TracingConfig, id).toEqual({ Mode: 'Active' });
        expect(properties.Runtime, id).toBe('nodejs24.x');
        const logGroup = logGroups.get(properties.LoggingConfig.LogGroup.Ref)!;
        expect(logGroup.Properties!.RetentionInDays, id).toBeGreaterThan(0);
      }
    });

    it('lets services invoke a function only from its own resource (serverless rules: Lambda permission source)', () => {
      expect(ofType('AWS::Lambda::Permission').length).toBeGreaterThan(30);
      for (const [id, permission] of ofType('AWS::Lambda::Permission')) {
        const principal = String(permission.Properties!.Principal);
        if (principal.endsWith('.amazonaws.com')) expect(permission.Properties!.SourceArn ?? permission.Properties!.SourceAccount, id).toBeDefined();
      }
    });

    it('gives every asynchronous path a failure destination, and every queue encryption and TLS (serverless rules: ESM, EventBridge, SQS)', () => {
      // The table's stream into the outbox publisher and into the alert processor; each queue of the
      // description into its consumer (issue 46 §5), its failures the queue's own redrive into its dead letters.
      const mappings = ofType('AWS::Lambda::EventSourceMapping');
      const streamMappings = mappings.filter(([, mapping]) => mapping.Properties!.StartingPosition);
      expect(streamMappings).toHaveLength(2);
      expect(mappings.length - streamMappings.length).toBe(Object.keys(queues).length);
      expect(ofType('AWS::SQS::Queue').length).toBeGreaterThan(5);
      for (const [id, mapping] of streamMappings) {
        expect(mapping.Properties!.DestinationConfig?.OnFailure?.Destination, id).toBeDefined();
        expect(mapping.Properties!.MaximumRetryAttempts, id).toBeGreaterThan(0);
      }
      const sourceQueues = ofType('AWS::SQS::Queue').filter(([id]) => !/Dlq[0-9A-F]{8}$/.test(id));
      expect(sourceQueues).toHaveLength(Object.keys(queues).length);
      for (const [id, queue] of sourceQueues) expect(queue.Properties!.RedrivePolicy?.deadLetterTargetArn, id).toBeDefined();
      for (const [id, rule] of ofType('AWS::Events::Rule')) {
        for (const target of rule.Properties!.Targets) {
          expect(target.DeadLetterConfig?.Arn, id).toBeDefined();
          expect(target.RetryPolicy, id).toBeDefined();
        }
      }
      const asyncTargets = new Set(ofType('AWS::Events::Rule').flatMap(([, rule]) => rule.Properties!.Targets.map((target: any) => target.Arn['Fn::GetAtt'][0])));
      const configured = new Set(ofType('AWS::Lambda::EventInvokeConfig').map(([, config]) => config.Properties!.FunctionName.Ref));
      for (const target of asyncTargets) expect(configured, target).toContain(target);
      for (const [, config] of ofType('AWS::Lambda::EventInvokeConfig')) expect(config.Properties!.DestinationConfig.OnFailure.Destination).toBeDefined();
      const sslPolicies = ofType('AWS::SQS::QueuePolicy').flatMap(([, policy]) => policy.Properties!.Queues.map((queue: { Ref: string }) => queue.Ref));
      for (const [id, queue] of ofType('AWS::SQS::Queue')) {
        expect(queue.Properties!.SqsManagedSseEnabled ?? queue.Properties!.KmsMasterKeyId, id).toBeTruthy();
        expect(sslPolicies, id).toContain(id);
      }
    });

    it('logs API access, throttles the default stage and protects data (serverless rules: API Gateway; checkov: DynamoDB, SNS)', () => {
      for (const [id, stage] of ofType('AWS::ApiGatewayV2::Stage')) {
        expect(stage.Properties!.AccessLogSettings?.DestinationArn, id).toBeDefined();
        expect(stage.Properties!.DefaultRouteSettings?.ThrottlingRateLimit, id).toBeGreaterThan(0);
        expect(stage.Properties!.DefaultRouteSettings?.ThrottlingBurstLimit, id).toBeGreaterThan(0);
      }
      for (const [id, table] of ofType('AWS::DynamoDB::Table')) {
        expect(table.Properties!.PointInTimeRecoverySpecification, id).toEqual({ PointInTimeRecoveryEnabled: true });
        expect(table.Properties!.DeletionProtectionEnabled, id).toBe(true);
      }
      for (const [id, topic] of ofType('AWS::SNS::Topic')) expect(topic.Properties!.KmsMasterKeyId, id).toBeDefined();
      for (const [id, alarm] of ofType('AWS::CloudWatch::Alarm')) expect(alarm.Properties!.AlarmActions?.length, id).toBeGreaterThan(0);
    });
  });
}
