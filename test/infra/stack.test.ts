/**
 * The CDK stack, checked with CDK assertions and cdk-nag (bundling skipped here; the synth test
 * bundles for real). Everything is derived from the system description, so is this test.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/cdk/app.js';
import { ACKNOWLEDGED } from '../../infra/cdk/nag.js';
import { allFunctions, eventRules, routes, sesEvents, table as tableDescription, tableActions, workers } from '../../infra/system.js';

function synth(context: Record<string, unknown> = {}) {
  const { stack } = buildApp(new App({ context: { 'aws:cdk:bundling-stacks': [], senderEmail: 'noreply@example.com', ...context } }));
  return { stack, template: Template.fromStack(stack) };
}

const { stack, template } = synth();
const resources = (type: string) => template.findResources(type);

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };
const asList = <T>(value: T | T[]) => (Array.isArray(value) ? value : [value]);

/** Logical id of each function's role, by function name (from the description tag on the function). */
function rolesByFunction(): Map<string, string> {
  const map = new Map<string, string>();
  for (const fn of Object.values(resources('AWS::Lambda::Function'))) {
    const name = String(fn.Properties.Description ?? '').split(' ')[0]!;
    map.set(name, fn.Properties.Role['Fn::GetAtt'][0]);
  }
  return map;
}

/** Every statement attached to a role (inline policies of the stack). */
function statementsOf(roleId: string): Statement[] {
  return Object.values(resources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

describe('CDK stack', () => {
  it('has one function per route and worker: Node.js 24 on arm64, traced, with an explicit log group', () => {
    const functions = Object.values(resources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(allFunctions.length);
    for (const fn of functions) {
      const description = allFunctions.find((candidate) => String(fn.Properties.Description).startsWith(`${candidate.name} `))!;
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Timeout: description.timeoutSeconds ?? 10,
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: expect.anything() },
        Environment: { Variables: expect.objectContaining({ POWERTOOLS_SERVICE_NAME: 'incident-service', POWERTOOLS_LOG_LEVEL: 'INFO' }) },
      });
    }
    const names = [...rolesByFunction().keys()].sort();
    expect(names).toEqual(allFunctions.map((fn) => fn.name).sort());
    template.resourceCountIs('AWS::Logs::LogGroup', allFunctions.length + 1);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('routes every route of the description, JWT-protected except the public links of e-mails (unsubscribe, acknowledge, confirm)', () => {
    const apiRoutes = Object.values(resources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties);
    expect(apiRoutes.map((route) => route.RouteKey).sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    for (const route of apiRoutes) {
      const public_ = ['GET /unsubscribe/{token}', 'POST /unsubscribe/{token}', 'GET /acknowledge/{token}', 'POST /acknowledge/{token}', 'GET /confirm/{token}', 'POST /confirm/{token}'].includes(route.RouteKey);
      expect(route.AuthorizationType).toBe(public_ ? 'NONE' : 'JWT');
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: Match.anyValue(), Audience: [{ Ref: Match.stringLikeRegexp('UsersApiClient') }] },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    const api = Object.values(resources('AWS::ApiGatewayV2::Api'))[0]!;
    expect(api.Properties.CorsConfiguration).toBeUndefined();
  });

  it('uses an external OIDC issuer instead of Cognito when given, and CORS when asked', () => {
    const external = synth({ jwtIssuer: 'https://issuer.example.com/', jwtAudience: 'incidents', corsOrigins: 'https://app.example.com' }).template;
    external.resourceCountIs('AWS::Cognito::UserPool', 0);
    external.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: 'https://issuer.example.com/', Audience: ['incidents'] },
    });
    external.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['https://app.example.com'], ExposeHeaders: ['x-request-id', 'link'] }),
    });
    expect(Object.keys(external.findOutputs('UserPoolId'))).toEqual([]);
  });

  it('refuses to build without a sender e-mail, saying how to give one', () => {
    expect(() => buildApp(new App({ context: { 'aws:cdk:bundling-stacks': [] } }))).toThrow(/senderEmail is required: npx cdk deploy -c senderEmail=/);
  });

  it('creates the Cognito user pool with the account-creating post-confirmation trigger', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: { PostConfirmation: Match.anyValue() },
      UsernameAttributes: ['email'],
    });
  });

  it('builds the one table from the description: on demand, PITR, TTL, stream, GSI, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        GlobalSecondaryIndexes: tableDescription.globalIndexes.map(({ name }) => Match.objectLike({ IndexName: name, Projection: { ProjectionType: 'ALL' } })),
      },
    });
    synth({ removalPolicy: 'destroy' }).template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  it('protects the table and the user pool from deletion, unless removalPolicy=destroy', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    template.hasResourceProperties('AWS::Cognito::UserPool', { DeletionProtection: 'ACTIVE' });
    const throwaway = synth({ removalPolicy: 'destroy' }).template;
    throwaway.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    throwaway.hasResourceProperties('AWS::Cognito::UserPool', { DeletionProtection: 'INACTIVE' });
    // A throwaway stack leaves nothing behind; a production one keeps its data and logs.
    for (const type of ['AWS::DynamoDB::Table', 'AWS::Cognito::UserPool', 'AWS::Logs::LogGroup', 'AWS::KMS::Key']) {
      for (const resource of Object.values(throwaway.findResources(type))) expect(resource.DeletionPolicy, type).toBe('Delete');
      for (const resource of Object.values(template.findResources(type))) expect(resource.DeletionPolicy, type).toBe('Retain');
    }
  });

  it('logs every API request as one JSON line with route, status, latency and the authorizer and integration errors', () => {
    const stage = Object.values(resources('AWS::ApiGatewayV2::Stage'))[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      authorizerError: '$context.authorizer.error',
      integrationErrorMessage: '$context.integrationErrorMessage',
    });
  });

  it('accepts only the log retention periods CloudWatch accepts, saying which', () => {
    expect(() => synth({ logRetentionDays: '45' })).toThrow(/logRetentionDays must be one of 1, 3, 5, 7, 14, 30, 60/);
    expect(() => synth({ logRetentionDays: '90' })).not.toThrow();
  });

  it('grants each function exactly the table access its description names, and nothing broad', () => {
    const roles = rolesByFunction();
    for (const description of allFunctions) {
      const statements = statementsOf(roles.get(description.name)!);
      const granted = statements
        .flatMap((statement) => asList(statement.Action))
        .filter((action) => action.startsWith('dynamodb:') && !action.match(/Stream|Shard|GetRecords/));
      const expected =
        description.table === 'none'
          ? []
          : [...tableActions.read, ...(description.table === 'readwrite' ? tableActions.write : []), ...(description.batchWrite ? tableActions.batchWrite : [])];
      expect(granted.sort(), description.name).toEqual([...expected].sort());
    }
    // BatchWriteItem only where whole collections are deleted; no schedule deletion (schedules delete themselves).
    const holders = (action: string) => [...roles].filter(([, role]) => statementsOf(role).some((statement) => asList(statement.Action).includes(action))).map(([name]) => name);
    expect(holders('dynamodb:BatchWriteItem').sort()).toEqual(['monitors-delete', 'teams-delete']);
    expect(holders('scheduler:DeleteSchedule')).toEqual([]);
  });

  it('confines every function whose key space is known to its partitions (dynamodb:LeadingKeys), on the table only', () => {
    const confined = allFunctions.filter((description) => description.leadingKeys);
    expect(confined.map((description) => description.name).sort()).toEqual(
      [
        'accounts-post-confirmation',
        'acknowledge-link-confirm',
        'acknowledge-link-open',
        'email-feedback',
        'escalation-scheduler',
        'escalation-step',
        'monitor-check',
        'notifier',
        'subscription-confirm',
        'subscription-confirm-open',
        'unsubscribe',
        'unsubscribe-confirm',
      ].sort(),
    );
    for (const description of confined) {
      const statements = statementsOf(rolesByFunction().get(description.name)!).filter((statement) => asList(statement.Action).some((action) => action.startsWith('dynamodb:')));
      expect(statements, description.name).toHaveLength(1);
      expect(statements[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': description.leadingKeys!.map((prefix) => `${prefix}*`) } });
      expect(asList(statements[0]!.Resource)).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/^Table/), 'Arn'] }]);
    }
    // The public unsubscribe link: opening it reads tokens only; its button touches tokens and monitors' collections.
    expect(routes.find((route) => route.name === 'unsubscribe')!).toMatchObject({ table: 'read', leadingKeys: ['UNSUB#'] });
    expect(routes.find((route) => route.name === 'unsubscribe-confirm')!.leadingKeys).toEqual(['UNSUB#', 'MONITOR#']);
    // The public acknowledge link: opening it reads links, incidents and e-mail claims only; its button also
    // reads the account and writes the outbox.
    expect(routes.find((route) => route.name === 'acknowledge-link-open')!).toMatchObject({ table: 'read', leadingKeys: ['ACKLINK#', 'INCIDENT#', 'EMAIL#'] });
    expect(routes.find((route) => route.name === 'acknowledge-link-confirm')!.leadingKeys).toEqual(['ACKLINK#', 'INCIDENT#', 'EMAIL#', 'USER#', 'OUTBOX#']);
  });

  it('has no wildcard actions and "*" resources only where AWS requires them', () => {
    const starAllowed = new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'dynamodb:ListStreams']);
    for (const policy of Object.values(resources('AWS::IAM::Policy'))) {
      for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
        const actions = asList(statement.Action);
        for (const action of actions) expect(action).not.toMatch(/(^\*$|:\*$)/);
        if (asList(statement.Resource).includes('*')) {
          // ses:SendEmail on every identity (the SES sandbox checks recipients' too), narrowed to the sender address.
          if (actions.includes('ses:SendEmail')) {
            expect(statement.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'noreply@example.com' } });
            continue;
          }
          for (const action of actions) expect(starAllowed, action).toContain(action);
        }
      }
    }
  });

  it('lets only the notifier send e-mail, only the publisher put events, only the escalation scheduler manage schedules', () => {
    const roles = rolesByFunction();
    const holders = (action: string) =>
      [...roles].filter(([, role]) => statementsOf(role).some((statement) => asList(statement.Action).includes(action))).map(([name]) => name);
    expect(holders('ses:SendEmail')).toEqual([workers.notifier.name]);
    expect(holders('events:PutEvents')).toEqual([workers.publisher.name]);
    expect(holders('scheduler:CreateSchedule')).toEqual([workers.escalationScheduler.name]);
    expect(holders('iam:PassRole')).toEqual([workers.escalationScheduler.name]);
    const passRole = statementsOf(roles.get(workers.escalationScheduler.name)!).find((statement) => asList(statement.Action).includes('iam:PassRole'))!;
    expect(passRole.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    const ses = statementsOf(roles.get(workers.notifier.name)!).find((statement) => asList(statement.Action).includes('ses:SendEmail'))!;
    expect(ses.Resource).toBe('*');
    expect(ses.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'noreply@example.com' } });
  });

  it('gives the monitoring system a managed policy that invokes monitor-check and nothing else', () => {
    const policies = Object.values(resources('AWS::IAM::ManagedPolicy'));
    expect(policies).toHaveLength(1);
    expect(policies[0]!.Properties.PolicyDocument.Statement).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^MonitorCheck/), 'Arn'] } },
    ]);
  });

  it('wires the stream to the publisher (outbox inserts only) with bisect, bounded retries and a DLQ', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 20,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['outbox'] } } } }) }] },
    });
  });

  it('declares the bus rules of the description, each target with retries and a dead-letter queue', () => {
    const rules = Object.values(resources('AWS::Events::Rule'));
    expect(rules).toHaveLength(eventRules.length);
    for (const rule of eventRules) {
      const match = rules.find((candidate) => JSON.stringify(candidate.Properties.EventPattern['detail-type']) === JSON.stringify(rule.detailTypes))!;
      if (rule.from === 'ses') {
        // SES's events, on the default bus, for this stack's configuration set only.
        expect(match.Properties.EventBusName).toBe(sesEvents.bus);
        expect(match.Properties.EventPattern).toEqual({
          source: [sesEvents.source],
          'detail-type': [sesEvents.bounced, sesEvents.complained],
          detail: { mail: { tags: { 'ses:configuration-set': [expect.anything()] } } },
        });
      } else {
        expect(match.Properties.EventBusName, rule.name).toEqual({ Ref: expect.stringMatching(/^EventBus/) });
        expect(match.Properties.EventPattern.source).toEqual(['incident-service']);
      }
      expect(match.Properties.Targets).toEqual([
        expect.objectContaining({ DeadLetterConfig: { Arn: expect.anything() }, RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 86400 } }),
      ]);
    }
    // Every asynchronously invoked function (the rules' targets, and escalation-step) has bounded retries and an on-failure queue.
    const asyncTargets = new Set([...eventRules.map((rule) => rule.target), workers.escalationStep.name]);
    const invokeConfigs = Object.values(resources('AWS::Lambda::EventInvokeConfig')).map((config) => config.Properties);
    expect(invokeConfigs).toHaveLength(asyncTargets.size);
    const functionIds = Object.fromEntries(Object.entries(resources('AWS::Lambda::Function')).map(([id, fn]) => [String(fn.Properties.Description ?? '').split(' ')[0], id]));
    for (const target of asyncTargets) {
      const config = invokeConfigs.find((candidate) => candidate.FunctionName.Ref === functionIds[target])!;
      expect(config, target).toBeDefined();
      expect(config.MaximumRetryAttempts, target).toBe(2);
      expect(config.DestinationConfig.OnFailure.Destination, target).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Dlq/), 'Arn'] });
    }
    template.resourceCountIs('AWS::SQS::Queue', eventRules.length + 2 + new Set(eventRules.map((rule) => rule.target)).size);
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
  });

  it('alarms on API 5xx, every function\'s errors and throttles, every dead-letter queue, the outbox falling behind and DynamoDB trouble', () => {
    const alarms = Object.values(resources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    const queues = Object.keys(resources('AWS::SQS::Queue')).length;
    expect(alarms.filter((alarm) => alarm.MetricName === '5xx' || alarm.MetricName === '5XXError')).toHaveLength(1);
    expect(alarms.filter((alarm) => alarm.MetricName === 'Errors')).toHaveLength(allFunctions.length);
    expect(alarms.filter((alarm) => alarm.MetricName === 'Throttles')).toHaveLength(allFunctions.length);
    expect(alarms.filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible')).toHaveLength(queues);
    expect(alarms.filter((alarm) => alarm.MetricName === 'IteratorAge')).toEqual([expect.objectContaining({ Statistic: 'Maximum', Threshold: 300_000 })]);
    expect(alarms.filter((alarm) => alarm.MetricName === 'EscalationTargetBounced')).toHaveLength(1);
    const expressions = alarms.filter((alarm) => alarm.Metrics).map((alarm) => JSON.stringify(alarm.Metrics));
    expect(expressions.filter((metrics) => metrics.includes('ThrottledRequests'))).toHaveLength(1);
    expect(expressions.filter((metrics) => metrics.includes('SystemErrors'))).toHaveLength(1);
    for (const alarm of alarms) expect(alarm.AlarmActions).toHaveLength(1);
  });

  it('sends alarms to a topic CloudWatch may publish to: its own KMS key and a topic policy for this account', () => {
    const topic = Object.values(resources('AWS::SNS::Topic'))[0]!;
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const key = resources('AWS::KMS::Key')[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: { StringEquals: { 'aws:SourceAccount': expect.anything() } },
      }),
    );
    const policies = Object.values(resources('AWS::SNS::TopicPolicy')).flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    expect(policies).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Condition: { StringEquals: { 'aws:SourceAccount': expect.anything() } },
      }),
    );
  });

  it('creates the sender identity and a configuration set whose bounces and complaints reach email-feedback', () => {
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'noreply@example.com', ConfigurationSetAttributes: { ConfigurationSetName: Match.anyValue() } });
    template.hasResourceProperties('AWS::SES::ConfigurationSet', { SuppressionOptions: { SuppressedReasons: ['BOUNCE', 'COMPLAINT'] } });
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: ['bounce', 'complaint'],
        EventBridgeDestination: { EventBusArn: { 'Fn::Join': ['', Match.arrayWith([':event-bus/default'])] } },
      },
    });
    // Every function sends (or could) with the set; the domain identity when a domain is given.
    for (const fn of Object.values(resources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.SES_CONFIGURATION_SET).toEqual({ Ref: expect.stringMatching(/^EmailConfiguration/) });
    }
    const withDomain = synth({ senderEmail: 'oncall@status.example.com', senderDomain: 'status.example.com' }).template;
    withDomain.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'status.example.com' });
    expect(() => synth({ senderEmail: 'oncall@elsewhere.example', senderDomain: 'status.example.com' })).toThrow(/senderEmail must be an address of senderDomain/);
    // A bounced page alarms.
    const alarms = Object.values(resources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({ Namespace: 'IncidentService', MetricName: 'EscalationTargetBounced', Dimensions: [{ Name: 'service', Value: 'incident-service' }], Threshold: 0 }),
    );
  });

  it('has Cognito e-mail through SES from the sender, and an app client with only SRP and admin password sign-in', () => {
    const pool = Object.values(resources('AWS::Cognito::UserPool'))[0]!;
    expect(pool.Properties.EmailConfiguration).toMatchObject({
      EmailSendingAccount: 'DEVELOPER',
      From: 'Incident service <noreply@example.com>',
      ConfigurationSet: { Ref: expect.stringMatching(/^EmailConfiguration/) },
    });
    expect(pool.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^SenderIdentity/)]));
    const client = Object.values(resources('AWS::Cognito::UserPoolClient'))[0]!;
    expect(client.Properties.ExplicitAuthFlows.sort()).toEqual(['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_USER_SRP_AUTH']);
    expect(client.Properties.AllowedOAuthFlows).toBeUndefined();
    expect(client.Properties.AllowedOAuthFlowsUserPoolClient).toBe(false);
    expect(client.Properties.GenerateSecret).toBe(false);
  });

  it('outputs what deployers and the monitoring system need', () => {
    for (const output of ['ApiUrl', 'UserPoolId', 'UserPoolClientId', 'MonitorCheckFunctionArn', 'EventBusName', 'TableName', 'MonitorCheckInvokePolicyArn']) {
      expect(Object.keys(template.findOutputs(output)), output).toHaveLength(1);
    }
  });

  it('passes cdk-nag (AwsSolutions) with every acknowledgement reasoned', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    expect(report.success).toBe(true);
    for (const reason of Object.values(ACKNOWLEDGED)) expect(reason.length).toBeGreaterThan(30);
  });
});
