/**
 * The CDK stack, checked with CDK assertions and cdk-nag (bundling skipped here; the synth test
 * bundles for real). Everything is derived from the system description, so is this test.
 */
import { App } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';
import { buildApp } from '../../infra/cdk/app.js';
import { FUNCTION_FAILURE_TERMS } from '../../infra/cdk/stack.js';
import { ACKNOWLEDGED, acknowledgementsFor } from '../../infra/cdk/nag.js';
import { allFunctions, env, eventRules, indexPartitionPrefixes, periodicRules, queues as systemQueues, routes, sesEvents, table as tableDescription, tableActions, workers, type RouteDescription } from '../../shared/system.js';
import { isCdkDeploymentResource, refersTo, serviceFunctions, synthStacks } from './templates.js';
import { routeKeyOf } from '../../infra/cdk/stack.js';
import { templateLintChecks } from './template-lint.js';
import { targetOptions } from '../../shared/webhooks/service.js';
import { deliveryStatusOf } from '../../shared/phones/receipts.js';
import { checkTarget, type TargetOptions } from '../../shared/webhooks/target.js';

/**
 * One synthesis per context: the checks read the templates and never change the app, so a context
 * asked for again (the default one five times) is the same synthesis. The test that adds routes to
 * the description synthesizes afresh (`synthStacks`).
 *
 * The deployment settings whose effects do not touch one another share one synthesis, each test
 * reading its own setting there and comparing with the default where it did: two deployments hold
 * them all, because an external issuer drops the user pool that a throwaway stack's deletion policy,
 * a domain sender's Cognito mail and sign-up turned off are checked on. The second stage stays apart (its point is its difference
 * from the first, and `senderIdentity=existing` refuses a MAIL FROM domain), as does the added route.
 * (5 syntheses instead of 13; a malformed context throws in `readConfig` before any construct.)
 */
const synthesized = new Map<string, ReturnType<typeof synthStacks>>();
const synth = (context: Record<string, unknown> = {}) => {
  const key = JSON.stringify(Object.entries(context).sort());
  let result = synthesized.get(key);
  if (!result) synthesized.set(key, (result = synthStacks(context)));
  return result;
};

/** A deployment with an external OIDC issuer, CORS, a custom API domain and every tunable changed from its default. */
const CUSTOMISED = {
  jwtIssuer: 'https://issuer.example.com/',
  jwtAudience: 'incidents',
  corsOrigins: 'https://app.example.com',
  stackName: 'Incidents-Prod',
  logRetentionDays: '90',
  publicThrottleRate: '2',
  publicThrottleBurst: '4',
  pagingConcurrency: '5',
  accountConcurrency: '1000',
  apiDomain: 'status-api.example.com',
  apiCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
  consoleUrl: 'https://console.example.com/',
};
/** Phone settings changed from their defaults, and self sign-up for some domains only (one synthesis). */
const CUSTOMISED_PHONES = { smsMaxPrice: '0.1', voiceMaxPricePerMinute: '1', phoneDailySpendAlarm: '20', allowedSignUpDomains: ['Example.com', 'example.org'] };
/** A private team's throwaway stack sending from a domain with its own MAIL FROM, self sign-up off. */
const THROWAWAY = { senderDomain: 'status.example.com', mailFromDomain: 'mail.status.example.com', removalPolicy: 'destroy', selfSignUp: false };

const { stack, template, root } = synth();
/** The default deployment's resources of a type (read-only: the same object for every test asking). */
const ofType = new Map<string, ReturnType<typeof template.findResources>>();
const resources = (type: string) => {
  let found = ofType.get(type);
  if (!found) {
    // The service's own resources: CDK's console deployment function has checks of its own below.
    found = Object.fromEntries(Object.entries(template.findResources(type)).filter(([id]) => !isCdkDeploymentResource(id)));
    ofType.set(type, found);
  }
  return found;
};

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

/** The statements of the topic policy of the root topic whose logical id starts with `topicId`. */
function topicPolicyOf(topicId: string): (Statement & { Principal?: unknown })[] {
  const policy = Object.values(resources('AWS::SNS::TopicPolicy')).find((candidate) => candidate.Properties.Topics.some((topic: { Ref: string }) => topic.Ref.startsWith(topicId)))!;
  return policy.Properties.PolicyDocument.Statement;
}

/**
 * The topic invokes the worker (a subscription in the worker's nested stack, allowed by a permission
 * naming the topic), with a dead-letter queue; the worker's own failures go to its on-failure queue:
 * the same queue, alarmed.
 */
function expectSubscribed(topicId: string, worker: string) {
  const functionId = Object.entries(resources('AWS::Lambda::Function')).find(([, fn]) => String(fn.Properties.Description).startsWith(`${worker} `))![0];
  const subscriptions = Object.values(resources('AWS::SNS::Subscription')).filter((subscription) => refersTo(subscription.Properties.TopicArn, topicId));
  expect(subscriptions, topicId).toHaveLength(1);
  const subscription = subscriptions[0]!.Properties;
  expect(subscription).toMatchObject({ Protocol: 'lambda', Endpoint: { 'Fn::GetAtt': [functionId, 'Arn'] } });
  const queue = subscription.RedrivePolicy.deadLetterTargetArn;
  expect(refersTo(queue, `${worker.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase())}FailedDlq`), worker).toBe(true);
  const permission = Object.values(resources('AWS::Lambda::Permission')).find((candidate) => candidate.Properties.Principal === 'sns.amazonaws.com' && refersTo(candidate.Properties.SourceArn, topicId))!;
  expect(permission.Properties.FunctionName).toEqual({ 'Fn::GetAtt': [functionId, 'Arn'] });
  const config = Object.values(resources('AWS::Lambda::EventInvokeConfig')).find((candidate) => candidate.Properties.FunctionName.Ref === functionId)!;
  expect(config.Properties.MaximumRetryAttempts).toBe(2);
  expect(config.Properties.DestinationConfig.OnFailure.Destination).toEqual(queue);
  // The queue lets SNS send this topic's dead letters, and nothing else.
  const queuePolicy = Object.values(resources('AWS::SQS::QueuePolicy')).find((candidate) => candidate.Properties.Queues[0].Ref.startsWith(`${worker.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase())}FailedDlq`))!;
  expect(queuePolicy.Properties.PolicyDocument.Statement).toContainEqual(
    expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'sns.amazonaws.com' }, Action: 'sqs:SendMessage', Condition: { ArnEquals: { 'aws:SourceArn': { Ref: expect.stringMatching(new RegExp(`^${topicId}`)) } } } }),
  );
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

  it('routes every route of the description, JWT-protected except the public links of e-mails (unsubscribe, acknowledge, confirm, stop paging) the alert endpoints and calendar feeds', () => {
    const apiRoutes = Object.values(resources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties);
    expect(apiRoutes.map((route) => route.RouteKey).sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    for (const route of apiRoutes) {
      const public_ = [
        'GET /unsubscribe/{token}',
        'POST /unsubscribe/{token}',
        'GET /acknowledge/{token}',
        'POST /acknowledge/{token}',
        'GET /confirm/{token}',
        'POST /confirm/{token}',
        'GET /stop-paging/{token}',
        'POST /stop-paging/{token}',
        'POST /v2/enqueue',
        'POST /integrations/alertmanager',
        'GET /calendars/{file}',
        'POST /heartbeats/{key}',
      ].includes(route.RouteKey);
      expect(route.AuthorizationType).toBe(public_ ? 'NONE' : 'JWT');
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      // The API's own client and the console's (whose access tokens carry its id as client_id).
      JwtConfiguration: { Issuer: Match.anyValue(), Audience: [{ Ref: Match.stringLikeRegexp('UsersApiClient') }, { Ref: Match.stringLikeRegexp('UsersConsoleClient') }] },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    // CORS for the console's origin (its distribution) and no other; none without the console.
    const api = Object.values(resources('AWS::ApiGatewayV2::Api'))[0]!;
    expect(JSON.stringify(api.Properties.CorsConfiguration.AllowOrigins)).toMatch(/^\[\{"Fn::Join":\["",\["https:\/\/",\{"Fn::GetAtt":\["ConsoleNestedStack[^"]*","Outputs\.[A-Za-z0-9]*Distribution[A-Za-z0-9]*DomainName"\]\}\]\]\}\]$/);
    const withoutConsole = synth({ console: 'false' }).template;
    expect(Object.values(withoutConsole.findResources('AWS::ApiGatewayV2::Api'))[0]!.Properties.CorsConfiguration).toBeUndefined();
    withoutConsole.resourceCountIs('AWS::CloudFront::Distribution', 0);
    withoutConsole.resourceCountIs('AWS::Cognito::UserPoolDomain', 0);
  });

  it('uses an external OIDC issuer instead of Cognito when given, and CORS when asked', () => {
    const external = synth(CUSTOMISED).template;
    external.resourceCountIs('AWS::Cognito::UserPool', 0);
    external.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: 'https://issuer.example.com/', Audience: ['incidents'] },
    });
    // The system description's configuration, which the local gateway answers with too (test/http/cors.test.ts).
    external.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['https://app.example.com'],
        AllowHeaders: ['authorization', 'content-type', 'idempotency-key'],
        ExposeHeaders: ['x-request-id', 'link'],
        AllowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
        MaxAge: 3600,
      },
    });
    expect(Object.keys(external.findOutputs('UserPoolId'))).toEqual([]);
  });

  it('builds without any context (cdk diff, cdk destroy): the sender is a stack parameter a deploy keeps, and -c senderEmail says so', () => {
    expect(root.Parameters!.SenderEmail).toMatchObject({ Type: 'String', AllowedPattern: expect.any(String) });
    expect(root.Parameters!.SenderEmail!.Default).toBeUndefined();
    const address = new RegExp(root.Parameters!.SenderEmail!.AllowedPattern!);
    expect(address.test('incidents@example.com')).toBe(true);
    expect(address.test('not an address')).toBe(false);
    expect(() => buildApp(new App({ context: { 'aws:cdk:bundling-stacks': [], senderEmail: 'noreply@example.com' } }))).toThrow(
      /senderEmail is a stack parameter now: npx cdk deploy --parameters SenderEmail=you@yourdomain.com/,
    );
    // With a domain identity, only an address of the domain deploys.
    const domain = synth(THROWAWAY).root.Parameters!.SenderEmail!;
    expect(new RegExp(domain.AllowedPattern!).test('oncall@status.example.com')).toBe(true);
    expect(new RegExp(domain.AllowedPattern!).test('oncall@elsewhere.example')).toBe(false);
    expect(new RegExp(domain.AllowedPattern!).test('oncall@statusXexample.com')).toBe(false);
    expect(domain.ConstraintDescription).toBe('SenderEmail must be an address of status.example.com');
  });

  it('creates the Cognito user pool with the account-creating post-confirmation trigger', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: { PostConfirmation: Match.anyValue() },
      UsernameAttributes: ['email'],
    });
  });

  it('lets a private deployment turn self sign-up off, keeps open sign-up off SES, and narrows sign-up to domains when asked (issue 46 §2)', () => {
    const poolOf = (deployment: ReturnType<typeof synth>) => Object.values(deployment.template.findResources('AWS::Cognito::UserPool'))[0]!.Properties;
    const accountsTrigger = { 'Fn::GetAtt': [expect.stringMatching(/^AccountsPostConfirmation/), 'Arn'] };
    const accountsEnvironment = (deployment: ReturnType<typeof synth>) =>
      serviceFunctions(deployment.template).find((fn) => String(fn.Properties.Description).startsWith(`${workers.accountsPostConfirmation.name} `))!.Properties.Environment.Variables;
    // The default: open self sign-up (as before), with Cognito's codes kept on Cognito's own sender by a rule.
    expect(poolOf(synth()).AdminCreateUserConfig.AllowAdminCreateUserOnly).toBe(false);
    expect(poolOf(synth()).LambdaConfig).toEqual({ PostConfirmation: accountsTrigger });
    expect(root.Rules!.OpenSignUpKeepsCognitoSender).toEqual({
      Assertions: [{ Assert: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'CognitoEmail' }, 'ses'] }] }, AssertDescription: expect.stringContaining('set allowedSignUpDomains (or selfSignUp false)') }],
    });
    // Off: only administrators create users, whose first sign-in creates the account record; Cognito may send through SES.
    const closed = synth(THROWAWAY);
    expect(poolOf(closed).AdminCreateUserConfig.AllowAdminCreateUserOnly).toBe(true);
    expect(poolOf(closed).LambdaConfig).toEqual({ PostConfirmation: accountsTrigger, PostAuthentication: accountsTrigger });
    expect(closed.root.Rules?.OpenSignUpKeepsCognitoSender).toBeUndefined();
    // The pool may invoke it for each trigger (its own permission each).
    const poolPermissions = Object.values(closed.template.findResources('AWS::Lambda::Permission')).filter((permission) => permission.Properties.Principal === 'cognito-idp.amazonaws.com');
    expect(poolPermissions.map((permission) => permission.Properties)).toEqual([
      expect.objectContaining({ FunctionName: accountsTrigger, SourceArn: { 'Fn::GetAtt': [expect.stringMatching(/^Users/), 'Arn'] } }),
      expect.objectContaining({ FunctionName: accountsTrigger, SourceArn: { 'Fn::GetAtt': [expect.stringMatching(/^Users/), 'Arn'] } }),
    ]);
    // Some domains: a pre-sign-up trigger refuses the others before any code is sent (its domains in its environment).
    const domains = synth(CUSTOMISED_PHONES);
    expect(poolOf(domains).AdminCreateUserConfig.AllowAdminCreateUserOnly).toBe(false);
    expect(poolOf(domains).LambdaConfig).toEqual({ PostConfirmation: accountsTrigger, PreSignUp: accountsTrigger });
    expect(accountsEnvironment(domains)[env.allowedSignUpDomains]).toBe('example.com,example.org');
    expect(accountsEnvironment(synth())[env.allowedSignUpDomains]).toBeUndefined();
    expect(domains.root.Rules?.OpenSignUpKeepsCognitoSender).toBeUndefined();
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
    synth(THROWAWAY).template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  it('protects the table and the user pool from deletion, unless removalPolicy=destroy', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    template.hasResourceProperties('AWS::Cognito::UserPool', { DeletionProtection: 'ACTIVE' });
    const throwaway = synth(THROWAWAY).template;
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

  it('refuses malformed deployment context, saying which value and why', () => {
    expect(() => synth({ stackName: '1-bad' })).toThrow('stackName: stackName must be a CloudFormation stack name');
    expect(() => synth({ senderDomain: 'not a domain' })).toThrow('senderDomain: senderDomain must be a domain name, e.g. example.com');
    expect(() => synth({ apiDomain: 'status-api.example.com', apiCertificateArn: 'arn:aws:iam::1:role/x' })).toThrow(
      'apiCertificateArn: apiCertificateArn must be an ACM certificate ARN',
    );
    expect(() => synth({ senderDomain: 'example.com', mailFromDomain: 'mail.example.com', senderIdentity: 'existing' })).toThrow(
      /^Invalid settings in .*default\.json: mailFromDomain is set on the identity, which senderIdentity=existing leaves to its owner$/,
    );
    expect(() => synth({ stackName: 'A'.repeat(51) })).toThrow('stackName must be a CloudFormation stack name of at most 50 characters');
    expect(() => synth({ allowedSignUpDomains: ['*', 'example.com'] })).toThrow('allowedSignUpDomains is ["*"] alone, or domains');
    expect(() => synth({ allowedSignUpDomains: ['example.com'], selfSignUp: false })).toThrow('allowedSignUpDomains narrows self sign-up, which selfSignUp=false (or jwtIssuer) turns off');
    expect(() => synth({ pagingConcurrency: '0' })).toThrow(/pagingConcurrency/);
    // Issue 46 §9: reserved concurrency must leave Lambda its 100 unreserved: 100 + N × pagingConcurrency, N the paging functions.
    const paging = allFunctions.filter((description) => description.paging).length;
    expect(paging).toBe(10);
    expect(() => synth({ pagingConcurrency: '5' })).toThrow(
      `pagingConcurrency needs accountConcurrency, the account's concurrency limit (aws lambda get-account-settings: AccountLimit.ConcurrentExecutions, less other functions' reservations); it must be at least 100 + 10 paging functions × pagingConcurrency 5 = 150`,
    );
    expect(() => synth({ pagingConcurrency: '5', accountConcurrency: '10' })).toThrow(
      'pagingConcurrency 5 does not fit accountConcurrency 10: it needs 100 + 10 paging functions × pagingConcurrency 5 = 150; leave pagingConcurrency off (this account can reserve none), or raise the quota (Service Quotas: Lambda, Concurrent executions) to at least 150',
    );
    expect(() => synth({ pagingConcurrency: '5', accountConcurrency: '149' })).toThrow(
      'pagingConcurrency 5 does not fit accountConcurrency 149: it needs 100 + 10 paging functions × pagingConcurrency 5 = 150; lower pagingConcurrency to at most 4, or raise the quota (Service Quotas: Lambda, Concurrent executions) to at least 150',
    );
    expect(synth(CUSTOMISED).stack.stackName).toBe('Incidents-Prod');
  });

  it('accepts only the log retention periods CloudWatch accepts, saying which', () => {
    expect(() => synth({ logRetentionDays: '45' })).toThrow(/logRetentionDays must be one of 1, 3, 5, 7, 14, 30, 60/);
    expect(() => synth(CUSTOMISED)).not.toThrow();
    synth(CUSTOMISED).template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
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
      expect([...new Set(granted)].sort(), description.name).toEqual([...expected].sort());
    }
    // BatchWriteItem only where whole collections are deleted; no schedule deletion (schedules delete themselves).
    const holders = (action: string) => [...roles].filter(([, role]) => statementsOf(role).some((statement) => asList(statement.Action).includes(action))).map(([name]) => name);
    // (And the webhook route, which records a notification's alerts as alert batches, issue 41 §3.)
    expect(holders('dynamodb:BatchWriteItem').sort()).toEqual(['alerts-alertmanager', 'monitors-delete', 'schedules-delete', 'teams-delete']);
    expect(holders('scheduler:DeleteSchedule')).toEqual([]);
  });

  it('confines every table-using function to its partitions (dynamodb:LeadingKeys) on the table, and the index readers to Query of the indexes they name', () => {
    const confined = allFunctions.filter((description) => description.leadingKeys);
    // Every function that uses the table.
    expect(allFunctions.filter((description) => description.table !== 'none' && !description.leadingKeys).map((description) => description.name)).toEqual([]);
    expect(confined.length).toBeGreaterThanOrEqual(42);
    // Every prefix is a partition-key prefix of shared/platform/db/keys.ts.
    const known = ['ACKLINK#', 'ALERTBATCH#', 'AUDIT#', 'CALTOKEN#', 'DELIVERY#', 'EMAIL#', 'IDEMPOTENCY#', 'INCIDENT#', 'INTEGRATIONKEY#', 'INVITETOKEN#', 'MESSAGE#', 'MONITOR#', 'OUTBOX#', 'PAGESTOP#', 'PAGESTOPLINK#', 'PHONE#', 'POLICY#', 'QUOTA#', 'REPLYCODE#', 'SCHEDULE#', 'SLUG#', 'SUBCONFIRM#', 'TEAM#', 'THROTTLE#', 'UNSUB#', 'USER#', 'WEBHOOK#'];
    for (const description of confined) for (const prefix of description.leadingKeys!) expect(known, `${description.name}: ${prefix}`).toContain(prefix);
    for (const description of confined) {
      // (A stream reader's grants of the stream, the alert processor's, are the event source mapping's.)
      const statements = statementsOf(rolesByFunction().get(description.name)!).filter((statement) =>
        asList(statement.Action).some((action) => action.startsWith('dynamodb:') && !/Stream|Shard|GetRecords/.test(action)),
      );
      expect(statements, description.name).toHaveLength(description.indexes?.length ? 2 : 1);
      expect(statements[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': description.leadingKeys!.map((prefix) => `${prefix}*`) } });
      const granted = asList(statements[0]!.Resource);
      expect(granted, description.name).toHaveLength(1);
      expect(refersTo(granted[0], 'Table'), description.name).toBe(true);
      // The index readers: Query only, on the indexes they name (an index's partitions are owners, teams, monitors).
      if (description.indexes?.length) {
        expect(statements[1]!.Action, description.name).toBe('dynamodb:Query');
        // Of the index partitions they name (issue 46 §8): for a Query of an index, LeadingKeys is the index's partition key.
        expect(statements[1]!.Condition, description.name).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': description.indexLeadingKeys!.map((prefix) => `${prefix}*`) } });
        for (const prefix of description.indexLeadingKeys!) {
          expect(description.indexes.some((index) => (indexPartitionPrefixes[index] as readonly string[]).includes(prefix)), `${description.name}: ${prefix} is a partition of none of its indexes`).toBe(true);
        }
        expect(asList(statements[1]!.Resource).map((resource) => JSON.stringify(resource).match(/\/index\/([\w-]+)/)?.[1]), description.name).toEqual(description.indexes);
      }
    }
    expect(confined.filter((description) => description.indexes?.length).map((description) => description.name).sort()).toEqual([
      // Issue 45 §5: the caller's own audit log, their partition of the owner index.
      'audit-me',
      'calendars-feed',
      'heartbeat-sweep',
      'incident-rescoper',
      'incidents-list',
      'monitors-list',
      // Issue 41 (5): a write of one's own policy or schedule reads the owner's memberships, whose shared teams it may name.
      'policies-create',
      'policies-list',
      'policies-update',
      // Issue 45 §4: a report's range Query per scope (owner, team, monitor indexes).
      'reports-incidents',
      'schedules-create',
      'schedules-list',
      'schedules-overrides-create',
      'schedules-update',
      // Issue 45 §3: the schedules whose shift starts, in the due index (its SHIFTSTART# partitions).
      'shift-notices',
      'teams-list',
      // What a removed member created for the team (issue 41 §2): the team's webhooks, the integrations they created.
      'teams-member-remove',
      'webhook-delivery',
      'webhooks-deliveries',
      'webhooks-list',
    ]);
    // Every index Query statement of every role is conditioned (none reads an index of every partition).
    const indexStatements = [...rolesByFunction().values()].flatMap(statementsOf).filter((statement) => JSON.stringify(statement.Resource).includes('/index/'));
    expect(indexStatements.length).toBeGreaterThanOrEqual(20);
    for (const statement of indexStatements) expect(statement.Condition).toMatchObject({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': expect.any(Array) } });
    // The public calendar feed (issue 46 §8): Query of the owner and team indexes, of the user's own and their teams' partitions only.
    const feed = statementsOf(rolesByFunction().get('calendars-feed')!).filter((statement) => JSON.stringify(statement.Resource).includes('/index/'));
    expect(feed).toHaveLength(1);
    expect(feed[0]!.Action).toBe('dynamodb:Query');
    expect(asList(feed[0]!.Resource).map((resource) => JSON.stringify(resource).match(/\/index\/([\w-]+)/)?.[1])).toEqual(['gsi1', 'gsi2']);
    expect(feed[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OWNER#*', 'TEAM#*'] } });
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
            expect(Object.keys(statement.Condition as object)).toEqual(['StringEquals']);
            expect(refersTo((statement.Condition as { StringEquals: Record<string, unknown> }).StringEquals['ses:FromAddress'], 'SenderEmail')).toBe(true);
            continue;
          }
          for (const action of actions) expect(starAllowed, action).toContain(action);
        }
      }
    }
  });

  it('lets only the notifier, person-notification and shift-notices send e-mail, only the publisher put events, only the escalation scheduler, the webhook worker (its retries), sms-inbound and incidents-escalate (escalating now) manage schedules', () => {
    const roles = rolesByFunction();
    const holders = (action: string) =>
      [...roles].filter(([, role]) => statementsOf(role).some((statement) => asList(statement.Action).includes(action))).map(([name]) => name);
    const emailSenders = [workers.notifier.name, workers.personNotification.name, workers.shiftNotices.name];
    expect(holders('ses:SendEmail').sort()).toEqual([...emailSenders].sort());
    expect(holders('events:PutEvents')).toEqual([workers.publisher.name]);
    const schedulers = [workers.escalationScheduler.name, workers.webhookDelivery.name, workers.smsInbound.name, 'incidents-escalate'].sort();
    expect(holders('scheduler:CreateSchedule').sort()).toEqual(schedulers);
    expect(holders('iam:PassRole').sort()).toEqual(schedulers);
    for (const name of schedulers) {
      const passRole = statementsOf(roles.get(name)!).find((statement) => asList(statement.Action).includes('iam:PassRole'))!;
      expect(passRole.Condition, name).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    }
    for (const sender of emailSenders) {
      const ses = statementsOf(roles.get(sender)!).find((statement) => asList(statement.Action).includes('ses:SendEmail'))!;
      expect(ses.Resource).toBe('*');
      expect(Object.keys((ses.Condition as { StringEquals: object }).StringEquals)).toEqual(['ses:FromAddress']);
      expect(refersTo((ses.Condition as { StringEquals: Record<string, unknown> }).StringEquals['ses:FromAddress'], 'SenderEmail')).toBe(true);
    }
  });

  describe('paging by phone (issue 43 §5)', () => {
    it('takes the origination identity as a parameter a deploy keeps: empty (SMS and voice off, the default) or a phone number or pool ARN, and every function reads it', () => {
      const parameter = root.Parameters!.SmsOriginationIdentity!;
      expect(parameter).toMatchObject({ Type: 'String', Default: '' });
      const pattern = new RegExp(parameter.AllowedPattern!);
      for (const accepted of ['', 'arn:aws:sms-voice:us-east-1:123456789012:phone-number/phone-1234567890abcdef0123456789abcdef', 'arn:aws:sms-voice:eu-west-1:123456789012:pool/pool-0123abcd']) {
        expect(pattern.test(accepted), accepted).toBe(true);
      }
      for (const refused of ['+18005550100', 'phone-123', 'arn:aws:sms-voice:us-east-1:123456789012:configuration-set/x', 'arn:aws:sns:us-east-1:123456789012:pool/x', 'arn:aws:sms-voice:us-east-1:123456789012:pool/x y']) {
        expect(pattern.test(refused), refused).toBe(false);
      }
      expect(parameter.ConstraintDescription).toContain('phone-number/<id> or pool/<id>');
      expect(root.Conditions!.SmsConfigured).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'SmsOriginationIdentity' }, ''] }] });
      // Every function: the senders, and the routes that answer whether SMS and voice are set up here.
      // The identity when given, else no variable at all (the functions read absent as not set up).
      for (const fn of Object.values(resources('AWS::Lambda::Function'))) {
        const variables = fn.Properties.Environment.Variables;
        expect(variables[env.smsOriginationIdentity], fn.Properties.Description).toEqual({ 'Fn::If': ['SmsConfigured', { Ref: 'SmsOriginationIdentity' }, { Ref: 'AWS::NoValue' }] });
        expect(variables).toMatchObject({ [env.smsConfigurationSet]: 'IncidentService-sms', [env.smsMaxPrice]: '0.25', [env.voiceMaxPricePerMinute]: '0.25' });
      }
      // A nested stack is never handed an empty value (CloudFormation refuses one for a parameter
      // without a default: "must have values"): `none` when SMS is off, and a condition of its own.
      const { templates } = synth();
      // (The console's stack holds no function.)
      for (const { stack: nested, json } of templates.slice(1).filter(({ stack: each }) => each.node.id !== 'Console')) {
        expect(json.Parameters!.SmsOriginationIdentity, nested.node.path).toMatchObject({ Type: 'String' });
        expect(json.Parameters!.SmsOriginationIdentity!.Default, nested.node.path).toBeUndefined();
        expect(json.Conditions!.SmsConfigured, nested.node.path).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'SmsOriginationIdentity' }, 'none'] }] });
      }
      const handed = Object.entries(root.Resources)
        .filter(([id, resource]) => resource.Type === 'AWS::CloudFormation::Stack' && !id.startsWith('ConsoleNestedStack'))
        .map(([, resource]) => resource);
      expect(handed.length).toBe(templates.length - 2);
      for (const nested of handed) {
        expect(nested.Properties!.Parameters.SmsOriginationIdentity).toEqual({ 'Fn::If': ['SmsConfigured', { Ref: 'SmsOriginationIdentity' }, 'none'] });
        // And nothing else that may be empty: no root parameter with an empty default is passed as such.
        for (const value of Object.values(nested.Properties!.Parameters)) expect(value).not.toEqual({ Ref: 'SmsOriginationIdentity' });
      }
      // The price ceilings come from the context, written as End User Messaging takes them.
      const custom = synth(CUSTOMISED_PHONES).template;
      for (const fn of serviceFunctions(custom)) {
        expect(fn.Properties.Environment.Variables).toMatchObject({ [env.smsMaxPrice]: '0.1', [env.voiceMaxPricePerMinute]: '1.0' });
      }
      expect(() => synth({ smsMaxPrice: 'free' })).toThrow(/smsMaxPrice must be a price in USD, e\.g\. 0\.25/);
      expect(() => synth({ voiceMaxPricePerMinute: '0.123456' })).toThrow(/voiceMaxPricePerMinute has at most 5 decimals/);
    });

    it('sends the final receipts of SMS and calls from the configuration set to sms-receipts, through an encrypted topic only this configuration set may publish to', () => {
      const sets = Object.values(resources('AWS::SMSVOICE::ConfigurationSet'));
      expect(sets).toHaveLength(1);
      const [destination, ...others] = sets[0]!.Properties.EventDestinations;
      expect(others).toEqual([]);
      expect(sets[0]!.Properties.ConfigurationSetName).toBe('IncidentService-sms');
      expect(destination).toMatchObject({ Enabled: true, SnsDestination: { TopicArn: { Ref: expect.stringMatching(/^SmsReceipts/) } } });
      // Exactly what the receipts worker maps (delivered or failed), nothing intermediate.
      expect(destination.MatchingEventTypes.map((type: string) => [type, deliveryStatusOf(type)])).toEqual(destination.MatchingEventTypes.map((type: string) => [type, expect.stringMatching(/^(delivered|failed)$/)]));
      expect(destination.MatchingEventTypes).toEqual(expect.arrayContaining(['TEXT_DELIVERED', 'TEXT_SUCCESSFUL', 'VOICE_COMPLETED', 'TEXT_UNREACHABLE', 'VOICE_FAILED', 'VOICE_NO_ANSWER']));
      // The topic's policy and key are in place before the destination names it.
      expect(sets[0]!.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^SmsReceiptsPolicy/), expect.stringMatching(/^PhoneTopicsKey/)]));
      const policy = topicPolicyOf('SmsReceipts');
      expect(policy).toContainEqual(
        expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'sms-voice.amazonaws.com' }, Action: 'sns:Publish', Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'aws:SourceArn': expect.anything() } } }),
      );
      expect(JSON.stringify(policy.find((statement) => statement.Effect === 'Allow')!.Condition)).toContain(':configuration-set/IncidentService-sms');
      expectSubscribed('SmsReceipts', workers.smsReceipts.name);
    });

    it('hands replies from the two-way topic to sms-inbound: a topic only End User Messaging of this account may publish to, its ARN an output', () => {
      const policy = topicPolicyOf('SmsReplies');
      const allow = policy.filter((statement) => statement.Effect === 'Allow');
      expect(allow).toEqual([
        expect.objectContaining({ Principal: { Service: 'sms-voice.amazonaws.com' }, Action: 'sns:Publish', Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'aws:SourceArn': expect.anything() } } }),
      ]);
      expect(JSON.stringify(allow[0]!.Condition)).toMatch(/:sms-voice:.*:\*"\]\]\}\}\}$/);
      expectSubscribed('SmsReplies', workers.smsInbound.name);
      expect(root.Outputs!.SmsRepliesTopicArn!.Value).toEqual({ Ref: expect.stringMatching(/^SmsReplies/) });
      expect(root.Outputs!.SmsRepliesTopicArn!.Description).toContain('update-phone-number');
      expect(root.Outputs!.SmsConfigurationSetName!.Value).toBe('IncidentService-sms');
    });

    it('encrypts both topics with a rotated key End User Messaging of this account may use to publish', () => {
      const keys = Object.entries(resources('AWS::KMS::Key')).filter(([id]) => id.startsWith('PhoneTopicsKey'));
      expect(keys).toHaveLength(1);
      const [keyId, key] = keys[0]!;
      expect(key.Properties.EnableKeyRotation).toBe(true);
      expect(key.Properties.KeyPolicy.Statement).toContainEqual(
        expect.objectContaining({
          Principal: { Service: 'sms-voice.amazonaws.com' },
          Action: ['kms:GenerateDataKey*', 'kms:Decrypt'],
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'aws:SourceArn': expect.anything() } },
        }),
      );
      for (const topic of ['SmsReceipts', 'SmsReplies']) {
        const [, resource] = Object.entries(resources('AWS::SNS::Topic')).find(([id]) => id.startsWith(topic))!;
        expect(resource.Properties.KmsMasterKeyId, topic).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      }
    });

    it('lets only the functions that declare send-sms-voice send SMS and calls, from the origination identity with the configuration set only, and only when one is given', () => {
      const senders = allFunctions.filter((description) => description.capabilities?.includes('send-sms-voice')).map((description) => description.name);
      expect(senders.sort()).toEqual([workers.personNotification.name, workers.smsInbound.name, workers.shiftNotices.name].sort());
      const holders = Object.entries(resources('AWS::IAM::Policy')).filter(([, policy]) =>
        (policy.Properties.PolicyDocument.Statement as Statement[]).some((statement) => asList(statement.Action).some((action) => action.startsWith('sms-voice:'))),
      );
      expect(holders).toHaveLength(1);
      const [, policy] = holders[0]!;
      // No statement at all unless an origination identity is given: nothing names an empty ARN.
      expect(policy.Condition).toBe('SmsConfigured');
      expect(policy.Properties.PolicyDocument.Statement).toEqual([
        {
          Effect: 'Allow',
          Action: ['sms-voice:SendTextMessage', 'sms-voice:SendVoiceMessage'],
          Resource: [{ Ref: 'SmsOriginationIdentity' }, { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sms-voice:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':configuration-set/IncidentService-sms']] }],
        },
      ]);
      // Attached to exactly the senders' roles (outputs of their nested stacks).
      const roles = policy.Properties.Roles.map((role: { 'Fn::GetAtt': [string, string] }) => role['Fn::GetAtt'][1]);
      expect(roles).toHaveLength(senders.length);
      for (const name of senders) expect(roles.some((output: string) => output.includes(`${name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase())}FunctionServiceRole`)), name).toBe(true);
      // sms-inbound escalates now by a one-time schedule of the next step: only esc-now-* in the group, passing only the escalation role.
      const inbound = statementsOf(rolesByFunction().get(workers.smsInbound.name)!);
      expect(JSON.stringify(inbound.find((statement) => asList(statement.Action).includes('scheduler:CreateSchedule'))!.Resource)).toContain(':schedule/IncidentService-escalation/esc-now-*');
      expect(JSON.stringify(inbound.find((statement) => asList(statement.Action).includes('iam:PassRole'))!.Resource)).toContain('EscalationSchedulerRole');
    });

    it('alarms on a failed SMS or call at once, and on the day\'s spend above phoneDailySpendAlarm (both from the receipts worker\'s metrics)', () => {
      const alarms = Object.values(resources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
      const of = (metricName: string) => alarms.filter((alarm) => alarm.MetricName === metricName);
      const service = { Namespace: 'IncidentService', Dimensions: [{ Name: 'service', Value: 'incident-service' }], Statistic: 'Sum', EvaluationPeriods: 1, DatapointsToAlarm: 1 };
      expect(of('PhoneMessageFailed')).toEqual([expect.objectContaining({ ...service, Period: 300, Threshold: 0 })]);
      expect(of('PhoneSpendUSD')).toEqual([expect.objectContaining({ ...service, Period: 86_400, Threshold: 5 })]);
      const custom = Object.values(synth(CUSTOMISED_PHONES).template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
      expect(custom.find((alarm) => alarm.MetricName === 'PhoneSpendUSD')!.Threshold).toBe(20);
      // What the phones add to the stage's alarms: these two; each worker's queue joins the Workers family's alarms.
      expect(Object.keys(resources('AWS::CloudWatch::Alarm')).filter((id) => /^(Phone|SmsInboundFailed|SmsReceiptsFailed)/.test(id)).sort()).toEqual([
        expect.stringMatching(/^PhoneMessageFailedAlarm/),
        expect.stringMatching(/^PhoneSpendAlarm/),
      ]);
      const workers = JSON.stringify(Object.entries(resources('AWS::CloudWatch::Alarm')).filter(([id]) => /^Workers\d*DeadLettersAlarm/.test(id)));
      for (const queue of ['SmsInboundFailedDlq', 'SmsReceiptsFailedDlq']) expect(workers).toContain(queue);
    });
  });

  it('deploys the web console in a stack of its own: a private bucket behind CloudFront (OAC), the security headers declared once, SPA routing, config.json written by the deployment, and a code + PKCE sign-in whose callback is the console (issue 44)', () => {
    const { templates } = synth();
    const hosting = templates.find(({ stack: each }) => each.node.id === 'Console')!.json;
    const ofHosting = (type: string) => Object.values(hosting.Resources).filter((resource) => resource.Type === type);
    expect(ofHosting('AWS::S3::Bucket')[0]!.Properties!.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(ofHosting('AWS::CloudFront::OriginAccessControl')).toHaveLength(1);
    const distribution = ofHosting('AWS::CloudFront::Distribution')[0]!.Properties!.DistributionConfig;
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(distribution.DefaultCacheBehavior.FunctionAssociations[0].EventType).toBe('viewer-request');
    expect(distribution.CacheBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern)).toEqual(['assets/*']);
    // The Content-Security-Policy the local host answers with too (shared/system.ts), calling the API and the managed login only.
    const policies = ofHosting('AWS::CloudFront::ResponseHeadersPolicy').map((policy) => policy.Properties!.ResponseHeadersPolicyConfig);
    expect(policies).toHaveLength(2);
    for (const policy of policies) {
      const csp = JSON.stringify(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain('.execute-api.');
      expect(csp).toContain('.amazoncognito.');
      expect(csp).not.toContain('unsafe-inline');
      expect(policy.SecurityHeadersConfig.StrictTransportSecurity.Override).toBe(true);
    }
    // The console's app client: no secret, the authorization code flow, its callback the console's /callback.
    const client = Object.values(resources('AWS::Cognito::UserPoolClient')).find((each) => each.Properties.AllowedOAuthFlows)!;
    expect(client.Properties).toMatchObject({ GenerateSecret: false, AllowedOAuthFlows: ['code'], AllowedOAuthFlowsUserPoolClient: true, SupportedIdentityProviders: ['COGNITO'] });
    expect(client.Properties.AllowedOAuthScopes).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(JSON.stringify(client.Properties.CallbackURLs)).toContain('/callback');
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { ManagedLoginVersion: 2 });
    template.resourceCountIs('AWS::Cognito::ManagedLoginBranding', 1);
    // config.json is written beside the build by the deployment: the API's URL and the managed login's endpoints.
    const deployment = Object.values(template.findResources('Custom::CDKBucketDeployment'))[0]!;
    expect(deployment.Properties.Prune).toBe(false);
    // (Its values are filled in at deploy time: the API, the console's app client.)
    const markers = JSON.stringify(deployment.Properties.SourceMarkers);
    expect(markers).toMatch(/"Ref":"Api[0-9A-F]{8}"/);
    expect(markers).toContain('UsersConsoleClient');
  });

  it('names monitor-check <stack name>-monitor-check in every stage, whatever stack holds it, and outputs the name (issue 46 §3)', () => {
    // Pinned literally: the monitoring system is configured with this name, so no refactoring may change it.
    const named = (deployment: ReturnType<typeof synth>) =>
      serviceFunctions(deployment.template).filter((fn) => String(fn.Properties.Description).startsWith(`${workers.monitorCheck.name} `)).map((fn) => fn.Properties.FunctionName);
    expect(named(synth())).toEqual(['IncidentService-monitor-check']);
    expect(named(synth({ stage: 'staging', senderIdentity: 'existing' }))).toEqual(['IncidentService-staging-monitor-check']);
    expect(named(synth(CUSTOMISED))).toEqual(['Incidents-Prod-monitor-check']);
    expect(root.Outputs!.MonitorCheckFunctionName).toEqual({ Value: 'IncidentService-monitor-check', Description: expect.stringContaining('<stack name>-monitor-check') });
    expect(synth({ stage: 'staging', senderIdentity: 'existing' }).root.Outputs!.MonitorCheckFunctionName!.Value).toBe('IncidentService-staging-monitor-check');
    // The only function with a name of its own: the others are CloudFormation's to name (and to replace).
    expect(serviceFunctions(template).filter((fn) => fn.Properties.FunctionName !== undefined)).toHaveLength(1);
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

  it('wires the stream to the alert processor (new alert batches only, one an invocation) with bisect, bounded retries and a DLQ (issue 41 §3)', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 20,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['alert_batch'] } } } }) }] },
    });
  });

  it('retries webhooks due within 15 minutes through a queue, to the second: consumed by webhook-delivery one message at a time, dead letters alarmed; later ones in a schedule group of their own whose drops alarm by name (issue 46 §5)', () => {
    const queues = Object.entries(resources('AWS::SQS::Queue'));
    const [queueId, queue] = queues.find(([id]) => /^WebhookRetriesQueue(?!Dlq)/.test(id))!;
    const [deadLettersId] = queues.find(([id]) => id.startsWith('WebhookRetriesQueueDlq'))!;
    expect(queue.Properties).toMatchObject({
      VisibilityTimeout: 6 * workers.webhookDelivery.timeoutSeconds,
      RedrivePolicy: { maxReceiveCount: systemQueues.webhookRetries.maxReceiveCount, deadLetterTargetArn: { 'Fn::GetAtt': [deadLettersId, 'Arn'] } },
    });
    const roles = rolesByFunction();
    const functionIds = Object.fromEntries(Object.entries(resources('AWS::Lambda::Function')).map(([id, fn]) => [String(fn.Properties.Description ?? '').split(' ')[0], id]));
    // The mapping: the queue into webhook-delivery, one message an invocation.
    const mappings = Object.values(resources('AWS::Lambda::EventSourceMapping')).filter((mapping) => JSON.stringify(mapping.Properties.EventSourceArn).includes(queueId.replace(/[0-9A-F]{8}$/, '')));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]!.Properties).toMatchObject({ BatchSize: 1, FunctionName: { Ref: functionIds[workers.webhookDelivery.name] } });
    // Only webhook-delivery may send to it, and only it is told its URL.
    const senders = [...roles].filter(([, role]) =>
      statementsOf(role).some((statement) => asList(statement.Action).includes('sqs:SendMessage') && JSON.stringify(statement.Resource).includes(queueId.replace(/[0-9A-F]{8}$/, '')) && !JSON.stringify(statement.Resource).includes('Dlq')),
    );
    expect(senders.map(([name]) => name)).toEqual([workers.webhookDelivery.name]);
    const readers = Object.values(resources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.[env.webhookRetryQueueUrl]);
    expect(readers.map((fn) => String(fn.Properties.Description).split(' ')[0])).toEqual([workers.webhookDelivery.name]);
    // Its dead letters alarm at once: in their family's depth and age alarms (issue 46 §7).
    const alarms = Object.entries(resources('AWS::CloudWatch::Alarm')).map(([id, alarm]) => ({ id, ...alarm.Properties }));
    const deadLetterAlarms = alarms.filter((alarm) => JSON.stringify(alarm.Metrics ?? alarm.Dimensions ?? []).includes(deadLettersId));
    expect(deadLetterAlarms.flatMap((alarm) => [...new Set(JSON.stringify(alarm.Metrics).match(/ApproximateAgeOfOldestMessage|ApproximateNumberOfMessagesVisible/g))]).sort()).toEqual([
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
    ]);
    // Later retries: schedules in the webhooks' own group, whose drops (or failed parking) have one alarm that says what was lost.
    const groups = Object.values(resources('AWS::Scheduler::ScheduleGroup')).map((group) => group.Properties.Name);
    expect(groups).toContain('IncidentService-webhooks');
    const scheduling = statementsOf(roles.get(workers.webhookDelivery.name)!).find((statement) => asList(statement.Action).includes('scheduler:CreateSchedule'))!;
    expect(JSON.stringify(scheduling.Resource)).toContain('schedule/IncidentService-webhooks/whk-*');
    const delivery = Object.values(resources('AWS::Lambda::Function')).find((fn) => String(fn.Properties.Description).startsWith(`${workers.webhookDelivery.name} `))!;
    expect(delivery.Properties.Environment.Variables[env.schedulerGroup]).toBe('IncidentService-webhooks');
    const dropped = alarms.filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('IncidentService-webhooks'));
    expect(dropped).toHaveLength(1);
    expect(JSON.stringify(dropped[0]!.Metrics)).toContain('InvocationDroppedCount');
    expect(JSON.stringify(dropped[0]!.Metrics)).toContain('InvocationsFailedToBeSentToDeadLetterCount');
    expect(dropped[0]).toMatchObject({ Threshold: 0, EvaluationPeriods: 1, DatapointsToAlarm: 1 });
    expect(dropped[0]!.AlarmDescription).toMatch(/^EventBridge Scheduler dropped a webhook retry \(a schedule whk-<message>-<attempt> of group IncidentService-webhooks/);
    expect(dropped[0]!.AlarmDescription).toContain('X-Amz-Scheduler-Schedule-Arn');
  });

  it('declares the bus rules of the description, each target with retries and a dead-letter queue', () => {
    const all = Object.values(resources('AWS::Events::Rule'));
    expect(all).toHaveLength(eventRules.length + periodicRules.length);
    const rules = all.filter((rule) => rule.Properties.EventPattern);
    // Periodic work (the heartbeat sweep): a scheduled rule each, its target with bounded retries and a dead-letter queue.
    const scheduled = all.filter((rule) => rule.Properties.ScheduleExpression);
    expect(scheduled.map((rule) => rule.Properties.ScheduleExpression)).toEqual(periodicRules.map(() => 'rate(1 minute)'));
    for (const rule of scheduled) {
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({ DeadLetterConfig: { Arn: expect.anything() }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 } }),
      ]);
    }
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
        expect(refersTo(match.Properties.EventBusName, 'EventBus'), rule.name).toBe(true);
        expect(match.Properties.EventPattern.source).toEqual(['incident-service']);
      }
      expect(match.Properties.Targets).toEqual([
        expect.objectContaining({ DeadLetterConfig: { Arn: expect.anything() }, RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 86400 } }),
      ]);
    }
    // Every asynchronously invoked function (the rules' targets, person-notification among them, escalation-step, and the SNS topics' sms-inbound and sms-receipts) has bounded retries and an on-failure queue.
    const snsInvoked = [workers.smsInbound.name, workers.smsReceipts.name];
    // (And monitor-check, which the monitoring system may invoke asynchronously, issue 46 §9.)
    const asyncTargets = new Set([...[...eventRules, ...periodicRules].map((rule) => rule.target), workers.escalationStep.name, workers.monitorCheck.name, ...snsInvoked]);
    const invokeConfigs = Object.values(resources('AWS::Lambda::EventInvokeConfig')).map((config) => config.Properties);
    expect(invokeConfigs).toHaveLength(asyncTargets.size);
    const functionIds = Object.fromEntries(Object.entries(resources('AWS::Lambda::Function')).map(([id, fn]) => [String(fn.Properties.Description ?? '').split(' ')[0], id]));
    for (const target of asyncTargets) {
      const config = invokeConfigs.find((candidate) => candidate.FunctionName.Ref === functionIds[target])!;
      expect(config, target).toBeDefined();
      expect(config.MaximumRetryAttempts, target).toBe(2);
      expect(JSON.stringify(config.DestinationConfig.OnFailure.Destination), target).toMatch(/^\{"Ref":"referenceto\w+Dlq\w+Arn"\}$/);
    }
    // (+ 3: the outbox publisher's and the alert processor's stream mappings, escalation-step's schedules;
    // + 1 per SNS-invoked worker, its subscription's dead letters and its own failures in one queue; + 1, monitor-check's;
    // + 2 per queue of the description, the queue and its dead letters.)
    template.resourceCountIs(
      'AWS::SQS::Queue',
      eventRules.length + periodicRules.length + 3 + new Set([...eventRules, ...periodicRules].map((rule) => rule.target)).size + snsInvoked.length + 1 + 2 * Object.keys(systemQueues).length,
    );
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    // The escalation group, and the webhook retries' own (issue 46 §5).
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 2);
  });

  it('alarms on rates or 2 of 3 periods where one failure is noise, at once where one event is a lost page, and says when each clears', () => {
    const alarms = Object.entries(resources('AWS::CloudWatch::Alarm')).map(([id, alarm]) => ({ id, ...alarm.Properties }));
    const twoOfThree = { EvaluationPeriods: 3, DatapointsToAlarm: 2 };
    const single = { EvaluationPeriods: 1, DatapointsToAlarm: 1 };
    for (const alarm of alarms) {
      expect(alarm.AlarmActions, alarm.id).toHaveLength(1);
      expect(alarm.OKActions, alarm.id).toEqual(alarm.AlarmActions);
      expect(alarm.TreatMissingData, alarm.id).toBe('notBreaching');
      expect(alarm.ComparisonOperator, alarm.id).toBe('GreaterThanThreshold');
    }
    const metricsOf = (alarm: { Metrics?: unknown }) => JSON.stringify(alarm.Metrics ?? '');
    // The API: the share of 5xx answers.
    const api = alarms.filter((alarm) => metricsOf(alarm).includes('"5xx"'));
    expect(api).toEqual([expect.objectContaining({ Threshold: 5, ...twoOfThree })]);
    expect(metricsOf(api[0]!)).toContain('100 * errors / requests');
    // Every function: its failures and its runs near its timeout, counted from its log group into the
    // stage's two metrics, each alarmed once for the whole stage, 2 of 3.
    const filters = Object.values(resources('AWS::Logs::MetricFilter')).map((filter) => filter.Properties);
    const logGroupOf = new Map(Object.values(resources('AWS::Lambda::Function')).map((fn) => [fn.Properties.LoggingConfig.LogGroup.Ref, allFunctions.find((description) => String(fn.Properties.Description).startsWith(`${description.name} `))!]));
    const filtered = (metricName: string) => filters.filter((filter) => filter.MetricTransformations[0].MetricName === metricName);
    const failed = filtered('FunctionFailed');
    expect(failed.map((filter) => logGroupOf.get(filter.LogGroupName.Ref)!.name).sort()).toEqual(allFunctions.map((fn) => fn.name).sort());
    for (const filter of failed) expect(filter.FilterPattern).toBe('?"Invoke Error" ?"Task timed out" ?"Status: timeout" ?"Status: error" ?"Runtime exited"');
    // Each line Lambda writes for a failed invocation (text log format) carries one of the terms; the lines of ours do not.
    const failing = (line: string) => FUNCTION_FAILURE_TERMS.some((term) => line.includes(term));
    for (const line of [
      '2026-11-28T10:00:00.000Z\t6bf4b8c0-0c4e-4a36-9d26-0f5ee3fc1a2e\tERROR\tInvoke Error \t{"errorType":"Error","errorMessage":"boom","stack":["Error: boom"]}',
      '2026-11-28T10:00:10.012Z 6bf4b8c0-0c4e-4a36-9d26-0f5ee3fc1a2e Task timed out after 10.01 seconds',
      'REPORT RequestId: 6bf4b8c0-0c4e-4a36-9d26-0f5ee3fc1a2e\tDuration: 10000.00 ms\tBilled Duration: 10000 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB\tStatus: timeout',
      'RequestId: 6bf4b8c0-0c4e-4a36-9d26-0f5ee3fc1a2e Error: Runtime exited with error: signal: killed',
      'INIT_REPORT Init Duration: 212.51 ms\tPhase: init\tStatus: error\tError Type: Runtime.ImportModuleError',
    ]) {
      expect(failing(line), line).toBe(true);
    }
    for (const line of [
      JSON.stringify({ level: 'ERROR', message: 'invocation failed', service: 'incident-service', operation: 'notifier', status: 'error', latency_ms: 12 }),
      JSON.stringify({ level: 'INFO', message: 'invocation', operation: 'GET /api/incidents', status: 500, latency_ms: 30 }),
      'REPORT RequestId: 6bf4b8c0-0c4e-4a36-9d26-0f5ee3fc1a2e\tDuration: 31.20 ms\tBilled Duration: 32 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB',
    ]) {
      expect(failing(line), line).toBe(false);
    }
    const slow = filtered('FunctionNearTimeout');
    expect(slow).toHaveLength(allFunctions.length);
    for (const filter of slow) expect(filter.FilterPattern, filter.LogGroupName.Ref).toBe(`{ $.latency_ms > ${(logGroupOf.get(filter.LogGroupName.Ref)!.timeoutSeconds ?? 10) * 1000 * 0.8} }`);
    for (const metricName of ['FunctionFailed', 'FunctionNearTimeout']) {
      expect(alarms.filter((alarm) => alarm.MetricName === metricName), metricName).toEqual([expect.objectContaining({ Namespace: 'IncidentService', Statistic: 'Sum', Threshold: 0, ...twoOfThree })]);
      expect(alarms.find((alarm) => alarm.MetricName === metricName).Dimensions).toBeUndefined();
    }
    // Throttles of the paging path: the sum of each paging function's, at most ten an alarm, 2 of 3.
    // (Each metric is labelled with its function's name; the root stack names the function through its nested stack's output.)
    const throttled = alarms.filter((alarm) => metricsOf(alarm).includes('"Throttles"'));
    expect(throttled.length).toBeGreaterThanOrEqual(1);
    const watched = throttled.flatMap((alarm) => {
      expect(alarm, alarm.id).toMatchObject({ Threshold: 0, ...twoOfThree });
      const stats = alarm.Metrics.filter((query: { MetricStat?: unknown }) => query.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      for (const query of stats) expect(query.MetricStat.Metric, query.Label).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: [{ Name: 'FunctionName', Value: expect.anything() }] });
      return stats.map((query: { Label: string }) => query.Label);
    });
    expect(watched.sort()).toEqual(allFunctions.filter((fn) => fn.paging).map((fn) => fn.name).sort());
    // Each dead-letter and on-failure queue: in one family's alarms, its first message at once (the family's sum), a message left there a day (the family's oldest).
    // (Every queue but the description's work queues, whose dead letters are among them.)
    const workQueueIds = new Set(Object.keys(resources('AWS::SQS::Queue')).filter((id) => !/Dlq[0-9A-F]{8}$/.test(id)));
    expect(workQueueIds.size).toBe(Object.keys(systemQueues).length);
    const queueIds = Object.keys(resources('AWS::SQS::Queue')).filter((id) => !workQueueIds.has(id)).sort();
    const queuesOf = (alarm: { Metrics: { MetricStat?: { Metric: { MetricName: string; Dimensions: { Value: { 'Fn::GetAtt': [string, string] } }[] } } }[] }, metricName: string) =>
      alarm.Metrics.filter((query) => query.MetricStat?.Metric.MetricName === metricName).map((query) => query.MetricStat!.Metric.Dimensions[0]!.Value['Fn::GetAtt'][0]);
    const depth = alarms.filter((alarm) => metricsOf(alarm).includes('ApproximateNumberOfMessagesVisible'));
    expect(depth.flatMap((alarm) => queuesOf(alarm, 'ApproximateNumberOfMessagesVisible')).sort()).toEqual(queueIds);
    for (const alarm of depth) {
      expect(alarm, alarm.id).toMatchObject({ Threshold: 0, ...single });
      expect(alarm.Metrics[0].Expression, alarm.id).toMatch(/^SUM\(\[q0(, q\d)*\]\)$/);
      expect(queuesOf(alarm, 'ApproximateNumberOfMessagesVisible').length, alarm.id).toBeLessThanOrEqual(10);
    }
    const age = alarms.filter((alarm) => metricsOf(alarm).includes('ApproximateAgeOfOldestMessage'));
    expect(age.flatMap((alarm) => queuesOf(alarm, 'ApproximateAgeOfOldestMessage')).sort()).toEqual(queueIds);
    for (const alarm of age) {
      expect(alarm, alarm.id).toMatchObject({ Threshold: 86_400, ...single });
      expect(alarm.Metrics[0].Expression, alarm.id).toMatch(/^MAX\(\[q0(, q\d)*\]\)$/);
      expect(JSON.stringify(alarm.Metrics.slice(1).map((query: { MetricStat: { Stat: string } }) => query.MetricStat.Stat))).not.toContain('Sum');
    }
    // At most 60 alarms a stage (issue 46 §7: they are billed by the metric; test/infra/cost.test.ts prices them).
    expect(alarms.length).toBeLessThanOrEqual(60);
    // Each stream reader's lag: the outbox publisher's and the alert processor's.
    expect(alarms.filter((alarm) => alarm.MetricName === 'IteratorAge')).toEqual([
      expect.objectContaining({ Statistic: 'Maximum', Threshold: 300_000 }),
      expect.objectContaining({ Statistic: 'Maximum', Threshold: 300_000 }),
    ]);
    expect(alarms.filter((alarm) => alarm.MetricName === 'EscalationTargetBounced')).toEqual([expect.objectContaining({ Threshold: 0, ...single })]);
    // A page that found nobody on call in a schedule it targets.
    expect(alarms.filter((alarm) => alarm.MetricName === 'ScheduleNobodyOnCall')).toEqual([expect.objectContaining({ Threshold: 0, ...single })]);
    // EventBridge Scheduler dropping an escalation step, or failing to park it: a lost page each.
    for (const metricName of ['InvocationDroppedCount', 'InvocationsFailedToBeSentToDeadLetterCount']) {
      expect(alarms.filter((alarm) => alarm.MetricName === metricName)).toEqual([
        expect.objectContaining({ Namespace: 'AWS/Scheduler', Dimensions: [{ Name: 'ScheduleGroup', Value: 'IncidentService-escalation' }], Threshold: 0, ...single }),
      ]);
    }
    expect(alarms.filter((alarm) => metricsOf(alarm).includes('ThrottledRequests'))).toEqual([expect.objectContaining(twoOfThree)]);
    expect(alarms.filter((alarm) => metricsOf(alarm).includes('SystemErrors'))).toEqual([expect.objectContaining(twoOfThree)]);
    // SES's account reputation, well before SES's review (5 % bounces, 0.1 % complaints).
    const bounce = alarms.find((alarm) => alarm.MetricName === 'Reputation.BounceRate')!;
    const complaint = alarms.find((alarm) => alarm.MetricName === 'Reputation.ComplaintRate')!;
    expect(bounce).toMatchObject({ Namespace: 'AWS/SES', Statistic: 'Maximum', ...single });
    expect(complaint).toMatchObject({ Namespace: 'AWS/SES', Statistic: 'Maximum', ...single });
    expect(bounce.Threshold).toBeLessThanOrEqual(0.05 / 2);
    expect(complaint.Threshold).toBeLessThanOrEqual(0.001 / 2);
    // 429s on the public routes, counted from the access log by a filter naming each public route.
    expect(alarms.filter((alarm) => alarm.MetricName === 'PublicRouteThrottled')).toEqual([expect.objectContaining({ Namespace: 'IncidentService', Statistic: 'Sum', Threshold: 20 })]);
    const filter = Object.values(resources('AWS::Logs::MetricFilter')).find((candidate) => candidate.Properties.MetricTransformations[0].MetricName === 'PublicRouteThrottled')!.Properties;
    expect(filter.FilterPattern).toContain('$.status = "429"');
    // Only the route's bucket refused them (no integration ran), not a key's own rate answered by its function (issue 46 §4).
    expect(filter.FilterPattern).toContain('$.integrationLatency = "-"');
    const publicRoutes = routes.filter((route) => route.auth === 'none');
    expect(publicRoutes.length).toBeGreaterThanOrEqual(4);
    for (const route of publicRoutes) expect(filter.FilterPattern).toContain(`$.routeKey = "${route.method} ${route.path}"`);
    expect(refersTo(filter.LogGroupName, 'ApiAccessLogs')).toBe(true);
    // The alarm watches exactly the metric the filter publishes (its dimensions included).
    const [transformation] = filter.MetricTransformations;
    expect(alarms.find((alarm) => alarm.MetricName === 'PublicRouteThrottled')).toMatchObject({ Namespace: transformation.MetricNamespace, MetricName: transformation.MetricName });
    expect(transformation.Dimensions).toBeUndefined();
  });

  it('gives each public route throttling of its own, and the paging path reserved concurrency when asked (off by default)', () => {
    const stage = Object.values(resources('AWS::ApiGatewayV2::Stage'))[0]!;
    const publicKeys = routes.filter((route) => route.auth === 'none').map((route) => `${route.method} ${route.path}`);
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual(publicKeys.sort());
    for (const route of routes.filter((candidate) => candidate.auth === 'none')) {
      const expected = route.throttle === 'alerts' ? { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 } : { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 };
      expect(stage.Properties.RouteSettings[`${route.method} ${route.path}`]).toEqual(expected);
    }
    expect(routes.filter((route) => route.throttle === 'alerts').map((route) => route.path)).toEqual(['/v2/enqueue', '/integrations/alertmanager', '/heartbeats/{key}']);
    // The route settings name routes of nested stacks: the stage waits for them.
    expect(stage.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^IncidentsFunctions/), expect.stringMatching(/^SubscribersFunctions/)]));
    const custom = synth(CUSTOMISED).template;
    const customStage = Object.values(custom.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(customStage.Properties.RouteSettings[publicKeys[0]!]).toEqual({ ThrottlingRateLimit: 2, ThrottlingBurstLimit: 4 });
    expect(customStage.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });

    for (const fn of Object.values(resources('AWS::Lambda::Function'))) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const reserved = serviceFunctions(synth(CUSTOMISED).template)
      .filter((fn) => fn.Properties.ReservedConcurrentExecutions !== undefined)
      .map((fn) => [String(fn.Properties.Description).split(' ')[0], fn.Properties.ReservedConcurrentExecutions]);
    expect(reserved.sort()).toEqual(
      [workers.monitorCheck.name, 'alerts-enqueue', 'alerts-alertmanager', workers.alertProcessor.name, workers.heartbeatSweep.name, workers.publisher.name, workers.escalationScheduler.name, workers.escalationStep.name, workers.notifier.name, workers.personNotification.name]
        .sort()
        .map((name) => [name, 5]),
    );
    expect(allFunctions.filter((description) => description.paging).map((description) => description.name)).toEqual(expect.arrayContaining([workers.notifier.name, workers.escalationStep.name]));
  });

  it('keeps every page of a storm in a 10-concurrency account: each paging function is reached asynchronously with retries, a maximum event age and an on-failure queue, or is an alert route whose senders retry its 429 and 5xx (issue 46 §9)', () => {
    const functionIds = new Map(Object.entries(resources('AWS::Lambda::Function')).map(([id, fn]) => [String(fn.Properties.Description).split(' ')[0]!, id]));
    const refersToFunction = (value: unknown, id: string) => JSON.stringify(value).includes(`"${id}"`);
    const paths = new Map<string, string>();
    for (const description of allFunctions.filter((each) => each.paging)) {
      const id = functionIds.get(description.name)!;
      // A stream reader: Lambda's poller retries a throttled or failed batch (bisecting it) until its record is a day old, then describes it in the on-failure queue.
      const mapping = Object.values(resources('AWS::Lambda::EventSourceMapping')).find((each) => refersToFunction(each.Properties.FunctionName, id));
      // An asynchronous target (bus rules, the scheduler, periodic rules, the monitoring system): Lambda queues a throttled
      // event and retries it up to its maximum age (6 h unless less is set); a failing one, twice, then its on-failure queue.
      const invokeConfig = Object.values(resources('AWS::Lambda::EventInvokeConfig')).find((each) => refersToFunction(each.Properties.FunctionName, id));
      if (mapping) {
        expect(mapping.Properties, description.name).toMatchObject({ MaximumRetryAttempts: 20, MaximumRecordAgeInSeconds: 86_400, BisectBatchOnFunctionError: true });
        expect(mapping.Properties.DestinationConfig.OnFailure.Destination, description.name).toBeDefined();
        paths.set(description.name, 'stream');
      } else if (invokeConfig) {
        expect(invokeConfig.Properties.MaximumRetryAttempts, description.name).toBe(2);
        expect(invokeConfig.Properties.MaximumEventAgeInSeconds ?? 21_600, description.name).toBe(21_600);
        expect(invokeConfig.Properties.DestinationConfig.OnFailure.Destination, description.name).toBeDefined();
        paths.set(description.name, 'async');
      } else {
        // A synchronous API call: a route of its own throttling (429 before Lambda is reached), whose senders retry 429 and 5xx.
        const route = routes.find((each) => each.name === description.name);
        expect(route, description.name).toMatchObject({ auth: 'none', throttle: 'alerts' });
        paths.set(description.name, 'api');
      }
    }
    expect(Object.fromEntries([...paths].sort())).toEqual({
      'alert-processor': 'stream',
      'alerts-alertmanager': 'api',
      'alerts-enqueue': 'api',
      'escalation-scheduler': 'async',
      'escalation-step': 'async',
      'heartbeat-sweep': 'async',
      'monitor-check': 'async',
      notifier: 'async',
      'outbox-publisher': 'stream',
      'person-notification': 'async',
    });
    // What reaches the asynchronous ones keeps retrying too: bus rules for a day (8 attempts) into a dead-letter queue,
    // the escalation schedules 10 times within an hour (shared/platform/scheduler.ts) into theirs.
    for (const rule of eventRules.filter((each) => allFunctions.find((fn) => fn.name === each.target)?.paging)) {
      const target = Object.values(resources('AWS::Events::Rule'))
        .flatMap((each) => each.Properties.Targets ?? [])
        .find((each: { Arn: unknown }) => refersToFunction(each.Arn, functionIds.get(rule.target)!));
      expect(target, rule.name).toMatchObject({ RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 86_400 }, DeadLetterConfig: { Arn: expect.anything() } });
    }
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
    const identity = Object.values(resources('AWS::SES::EmailIdentity'))[0]!;
    expect(refersTo(identity.Properties.EmailIdentity, 'SenderEmail')).toBe(true);
    expect(identity.Properties.ConfigurationSetAttributes).toEqual({ ConfigurationSetName: expect.anything() });
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
      expect(refersTo(fn.Properties.Environment.Variables.SES_CONFIGURATION_SET, 'EmailConfiguration')).toBe(true);
    }
    const withDomain = synth(THROWAWAY).template;
    withDomain.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'status.example.com' });
    // A bounced page alarms.
    const alarms = Object.values(resources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({ Namespace: 'IncidentService', MetricName: 'EscalationTargetBounced', Dimensions: [{ Name: 'service', Value: 'incident-service' }], Threshold: 0 }),
    );
  });

  it("sends Cognito's codes with Cognito's own sender on the first deploy, through the verified SES sender once CognitoEmail=ses", () => {
    // The first deploy in a fresh account: Cognito checks at CreateUserPool that a DEVELOPER identity is
    // verified, and one this stack has just created is still pending, so the default is Cognito's own sender.
    expect(root.Parameters!.CognitoEmail).toEqual({ Type: 'String', Default: 'cognito', AllowedValues: ['cognito', 'ses'], Description: expect.any(String) });
    const pool = Object.values(resources('AWS::Cognito::UserPool'))[0]!;
    const [condition, throughSes, ownSender] = pool.Properties.EmailConfiguration['Fn::If'];
    expect(root.Conditions![condition]).toEqual({ 'Fn::Equals': [{ Ref: 'CognitoEmail' }, 'ses'] });
    expect(ownSender).toEqual({ EmailSendingAccount: 'COGNITO_DEFAULT' });
    // The step to SES (`--parameters CognitoEmail=ses`, after SES verified the sender): the stage's identity and configuration set.
    expect(throughSes).toEqual({
      EmailSendingAccount: 'DEVELOPER',
      From: { 'Fn::Join': ['', ['Incident service <', { Ref: 'SenderEmail' }, '>']] },
      SourceArn: { 'Fn::Join': ['', expect.arrayContaining([':identity/', { Ref: 'SenderEmail' }])] },
      ConfigurationSet: { Ref: expect.stringMatching(/^EmailConfiguration/) },
    });
    expect(pool.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^SenderIdentity/)]));
    // A domain sender: the domain's identity.
    const domainPool = Object.values(synth(THROWAWAY).template.findResources('AWS::Cognito::UserPool'))[0]!;
    expect(JSON.stringify(domainPool.Properties.EmailConfiguration['Fn::If'][1].SourceArn)).toContain(':identity/status.example.com');
    const client = Object.values(resources('AWS::Cognito::UserPoolClient'))[0]!;
    expect(client.Properties.ExplicitAuthFlows.sort()).toEqual(['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_USER_SRP_AUTH']);
    expect(client.Properties.AllowedOAuthFlows).toBeUndefined();
    expect(client.Properties.AllowedOAuthFlowsUserPoolClient).toBe(false);
    expect(client.Properties.GenerateSecret).toBe(false);
  });

  it('refuses loopback and private webhook targets on AWS: no function carries the local runtime\'s loopback opt-in', async () => {
    const key = env.webhooksLoopbackPorts;
    /** What `target.ts` decides in a function's deployed environment (its variables as the template sets them). */
    const optionsIn = (variables: Record<string, unknown>): TargetOptions => {
      const saved = process.env[key];
      if (key in variables) process.env[key] = String(variables[key]);
      else delete process.env[key];
      try {
        return targetOptions();
      } finally {
        if (saved === undefined) delete process.env[key];
        else process.env[key] = saved;
      }
    };
    const functions = Object.values(resources('AWS::Lambda::Function'));
    const named = (name: string) => functions.find((fn) => String(fn.Properties.Description).startsWith(`${name} `))!;
    // Every function that checks or calls a webhook URL exists, and none (nor any other) may reach loopback.
    for (const name of ['webhooks-create', 'webhooks-update', 'webhooks-test', 'webhooks-redeliver', workers.webhookDelivery.name]) expect(named(name), name).toBeDefined();
    for (const fn of functions) {
      const variables = (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      expect(variables, String(fn.Properties.Description)).not.toHaveProperty(key);
      expect(optionsIn(variables).loopbackPorts, String(fn.Properties.Description)).toBeUndefined();
    }
    // So, in the delivery worker's environment, a receiver on the same machine is refused as every private address is.
    const options = optionsIn(named(workers.webhookDelivery.name).Properties.Environment.Variables);
    const resolvesTo = (address: string, family: 4 | 6 = 4): TargetOptions => ({ ...options, resolve: async () => [{ address, family }] });
    await expect(checkTarget('http://127.0.0.1:8080/hook', options)).rejects.toThrow('URL must use https');
    await expect(checkTarget('http://localhost:8080/hook', options)).rejects.toThrow('URL must use https');
    await expect(checkTarget('https://127.0.0.1/hook', options)).rejects.toThrow('URL points to a loopback address (127.0.0.1)');
    await expect(checkTarget('https://[::1]/hook', options)).rejects.toThrow('URL points to a loopback address (::1)');
    await expect(checkTarget('https://hooks.example.com/hook', resolvesTo('127.0.0.1'))).rejects.toThrow('URL resolves to a loopback address (127.0.0.1)');
    await expect(checkTarget('https://hooks.example.com/hook', resolvesTo('10.1.2.3'))).rejects.toThrow('URL resolves to a private address (10.1.2.3)');
    await expect(checkTarget('https://hooks.example.com/hook', resolvesTo('93.184.215.14'))).resolves.toMatchObject({ host: 'hooks.example.com' });
  });

  it('outputs what deployers and the monitoring system need', () => {
    for (const output of ['ApiUrl', 'UserPoolId', 'UserPoolClientId', 'MonitorCheckFunctionName', 'MonitorCheckFunctionArn', 'EventBusName', 'TableName', 'MonitorCheckInvokePolicyArn', 'SmsRepliesTopicArn', 'SmsConfigurationSetName']) {
      expect(Object.keys(template.findOutputs(output)), output).toHaveLength(1);
    }
  });

  it('splits the deployment along the description: a nested stack per handler directory, none above 300 resources (headroom printed)', () => {
    const { templates, stacks } = synth();
    const limit = 300;
    const counts = templates.map(({ stack: each, json }) => ({ stack: each.node.path, resources: Object.keys(json.Resources).length }));
    console.log(counts.map(({ stack: each, resources: count }) => `${each}: ${count} resources, headroom ${limit - count}`).join('\n'));
    for (const { stack: each, resources: count } of counts) expect(count, each).toBeLessThanOrEqual(limit);
    // One nested stack per handler directory; each function in its directory's stack (the Cognito trigger beside its pool).
    const groups = [...new Set(allFunctions.map((description) => description.handler.split('/').at(-2)!))];
    // (+1: the console's own stack.)
    expect(stacks.length).toBe(2 + groups.length - (groups.includes('accounts') && allFunctions.filter((fn) => fn.handler.startsWith('functions/accounts/')).length === 1 ? 1 : 0));
    for (const description of allFunctions) {
      const fn = stack.functions.get(description.name)!;
      const group = description.handler.split('/').at(-2)!;
      const expected = description.name === workers.accountsPostConfirmation.name ? 'IncidentService' : `IncidentService/${group.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase())}Functions`;
      expect(fn.stack.node.path, description.name).toBe(expected);
    }
    // A route brings its own resources into its stack (function, role, policy, log group, route,
    // integration, permission, two metric filters on its log): the same few for every route, whatever else exists.
    const incidents = templates.find(({ stack: each }) => each.node.path === 'IncidentService/IncidentsFunctions')!.json;
    const incidentRoutes = routes.filter((route) => route.handler.startsWith('functions/incidents/')).length;
    expect(Object.keys(incidents.Resources).length).toBe(incidentRoutes * 9);
  });

  it('takes a new route into its directory\'s stack, or a new one, moving nothing that exists', () => {
    const before = synth().templates.map(({ stack: each, json }) => ({ path: each.node.path, ids: Object.keys(json.Resources) }));
    const added: RouteDescription[] = [
      { name: 'incidents-export', method: 'GET', path: '/api/incidents/export', handler: 'functions/incidents/list.ts', table: 'read', auth: 'jwt', leadingKeys: ['INCIDENT#'] },
      // (A directory without functions yet: its asset must exist, its handler need not.)
      { name: 'status-page', method: 'GET', path: '/status/{slug}', handler: 'functions/lib/status-page.ts', table: 'read', auth: 'none', leadingKeys: ['MONITOR#'] },
    ];
    (routes as RouteDescription[]).push(...added);
    (allFunctions as RouteDescription[]).push(...added);
    try {
      const after = synthStacks().templates.map(({ stack: each, json }) => ({ path: each.node.path, ids: Object.keys(json.Resources) }));
      for (const { path, ids } of before) {
        const same = after.find((candidate) => candidate.path === path)!;
        // Every resource stays where it was (the root gains only its stack's nested-stack resources' new parameters).
        expect(same.ids, path).toEqual(expect.arrayContaining(ids));
      }
      expect(after.find(({ path }) => path === 'IncidentService/IncidentsFunctions')!.ids.length).toBe(before.find(({ path }) => path === 'IncidentService/IncidentsFunctions')!.ids.length + 9);
      expect(after.map(({ path }) => path)).toContain('IncidentService/LibFunctions');
    } finally {
      (routes as RouteDescription[]).splice(-added.length, added.length);
      (allFunctions as RouteDescription[]).splice(-added.length, added.length);
    }
  });

  it('keeps the logical ids of the retained and stateful resources in the root stack, as before the split', () => {
    const ids = Object.keys(root.Resources);
    for (const id of [
      'TableCD117FA1',
      'Users0A0EEA89',
      'UsersApiClientD8D32A2C',
      'EventBus7B8748AA',
      'SenderIdentity5AECAF6F',
      'EmailConfiguration816714D4',
      'EscalationSchedules',
      'ApiF70053CD',
      'AlarmsKey8B9C40AB',
      'Alarms04B5A0BF',
      'OutboxPublisherDlq330F49F7',
      'NotifyRuleDlqD7165284',
      'ScheduleEscalationRuleDlq86E7B3FC',
      'RescopeIncidentsRuleDlq415533BA',
      'EmailFeedbackRuleDlqC1F80E7D',
      'NotifierFailedDlq076B58F2',
      'EscalationSchedulerFailedDlq6B2A6DC4',
      'IncidentRescoperFailedDlqC666A7FF',
      'EmailFeedbackFailedDlq230958D5',
      'EscalationStepDlq0BFC366A',
    ]) {
      expect(ids, id).toContain(id);
    }
  });

  it('pins the logical id of every resource that holds data, identity or a name others use: a refactoring that renames one fails here, not as a replacement on deploy (issue 46 §10)', () => {
    // What a replacement would lose: the table's items, the user pool's accounts (and its client ids in
    // every app), the key of what is encrypted, dead letters waiting for replay, the verified sender, the
    // pending escalation schedules of the group, confirmed alarm subscriptions, the console's files and domain.
    // A new one joins this list once, deliberately; from then on it is pinned.
    const stateful = [
      'AWS::DynamoDB::Table',
      'AWS::Cognito::UserPool',
      'AWS::Cognito::UserPoolClient',
      'AWS::Cognito::UserPoolDomain',
      'AWS::S3::Bucket',
      'AWS::KMS::Key',
      'AWS::SQS::Queue',
      'AWS::SES::EmailIdentity',
      'AWS::SES::ConfigurationSet',
      'AWS::Events::EventBus',
      'AWS::Scheduler::ScheduleGroup',
      'AWS::SNS::Topic',
      'AWS::CloudFront::Distribution',
    ];
    const { templates } = synth();
    const found = templates.flatMap(({ stack: each, json }) =>
      Object.entries(json.Resources)
        .filter(([, resource]) => stateful.includes(resource.Type))
        .map(([id, resource]) => `${each.node.path} ${resource.Type} ${id}`),
    );
    expect(found.sort()).toEqual(
      [
        'IncidentService AWS::DynamoDB::Table TableCD117FA1',
        'IncidentService AWS::Cognito::UserPool Users0A0EEA89',
        'IncidentService AWS::Cognito::UserPoolClient UsersApiClientD8D32A2C',
        'IncidentService AWS::Cognito::UserPoolClient UsersConsoleClient6BC83EFC',
        'IncidentService AWS::Cognito::UserPoolDomain UsersLogin5F5F2B8C',
        'IncidentService AWS::KMS::Key AlarmsKey8B9C40AB',
        'IncidentService AWS::KMS::Key PhoneTopicsKeyDB54832F',
        'IncidentService AWS::SES::EmailIdentity SenderIdentity5AECAF6F',
        'IncidentService AWS::SES::ConfigurationSet EmailConfiguration816714D4',
        'IncidentService AWS::Events::EventBus EventBus7B8748AA',
        'IncidentService AWS::Scheduler::ScheduleGroup EscalationSchedules',
        'IncidentService AWS::SNS::Topic Alarms04B5A0BF',
        'IncidentService AWS::SNS::Topic SmsReceipts45B8AD88',
        'IncidentService AWS::SNS::Topic SmsRepliesC28653D8',
        'IncidentService/Console AWS::S3::Bucket Files8E6940B8',
        'IncidentService/Console AWS::CloudFront::Distribution Distribution830FAC52',
        ...[
          'OutboxPublisherDlq330F49F7',
          'AlertProcessorDlqB438E3BA',
          'NotifyRuleDlqD7165284',
          'ReachPeopleRuleDlqE95F91AF',
          'ScheduleEscalationRuleDlq86E7B3FC',
          'DeliverWebhooksRuleDlq86739D1C',
          'RescopeIncidentsRuleDlq415533BA',
          'EmailFeedbackRuleDlqC1F80E7D',
          'HeartbeatSweepScheduleDlq30FA3834',
          'ShiftNoticesScheduleDlq21E26BA3',
          'NotifierFailedDlq076B58F2',
          'PersonNotificationFailedDlqAFA9185E',
          'EscalationSchedulerFailedDlq6B2A6DC4',
          'WebhookDeliveryFailedDlq231677D0',
          'IncidentRescoperFailedDlqC666A7FF',
          'EmailFeedbackFailedDlq230958D5',
          'HeartbeatSweepFailedDlqA73BD4FD',
          'ShiftNoticesFailedDlqFC94EDDE',
          'MonitorCheckFailedDlq1EC7D9D8',
          'EscalationStepDlq0BFC366A',
          'SmsInboundFailedDlq0B8FC597',
          'SmsReceiptsFailedDlq4DDA3EA7',
          // The webhook retries' queue (issue 46 §5) and its dead letters.
          'WebhookRetriesQueue46071920',
          'WebhookRetriesQueueDlq068816A1',
        ].map((id) => `IncidentService AWS::SQS::Queue ${id}`),
        'IncidentService AWS::Scheduler::ScheduleGroup WebhookRetrySchedules',
      ].sort(),
    );
    // The console's nested stack itself: a new logical id would be a new stack, and a new bucket and distribution.
    expect(Object.keys(root.Resources).filter((id) => root.Resources[id]!.Type === 'AWS::CloudFormation::Stack' && id.startsWith('Console'))).toEqual(['ConsoleNestedStackConsoleNestedStackResource3C3A87D2']);
  });

  it('names nothing twice: route keys in the API, function, alarm, queue, rule and other physical names in the stage (issue 46 §10)', () => {
    // The description: one route per method and path, one function per name.
    expect(new Set(routes.map(routeKeyOf)).size).toBe(routes.length);
    expect(new Set(allFunctions.map((description) => description.name)).size).toBe(allFunctions.length);
    // The template: API Gateway refuses a second route with a key the API has; the physical names, where set, are unique per type.
    const routeKeys = Object.values(resources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties.RouteKey);
    expect(routeKeys).toHaveLength(routes.length);
    expect(new Set(routeKeys).size).toBe(routeKeys.length);
    const nameProperties = ['FunctionName', 'AlarmName', 'QueueName', 'TopicName', 'TableName', 'RoleName', 'ManagedPolicyName', 'LogGroupName', 'Name', 'ConfigurationSetName', 'ApiName'];
    const byType = new Map<string, string[]>();
    for (const [id, resource] of Object.entries(synth().merged.Resources)) {
      if (resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::Logs::MetricFilter') continue; // (scoped to their role, their log group)
      for (const property of nameProperties) {
        const value = resource.Properties?.[property];
        if (value === undefined) continue;
        const list = byType.get(`${resource.Type}.${property}`) ?? [];
        list.push(`${JSON.stringify(value)} (${id})`);
        byType.set(`${resource.Type}.${property}`, list);
      }
    }
    expect(byType.size).toBeGreaterThan(0);
    for (const [key, names] of byType) {
      const values = names.map((name) => name.replace(/ \(\w+\)$/, ''));
      expect(values.filter((value, index) => values.indexOf(value) !== index), `${key}: ${names.join(', ')}`).toEqual([]);
    }
  });

  it('alarms on the metric names and dimensions the code emits (EMF): in the namespace and with the service the functions are given (issue 46 §10)', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    // What the code emits: countMetric(name[, { dims }]) and measureMetric(name, value[, { dims }]), each with the service as a dimension.
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
    const emitted = new Map<string, Set<string>>();
    for (const file of [...files('shared'), ...files('functions')]) {
      const source = readFileSync(file, 'utf8');
      for (const [, kind, name, rest] of source.matchAll(/\b(countMetric|measureMetric)\('(\w+)'([^;\n]*)/g)) {
        // The dimensions object literal, if any (a measure's first argument after the name is its value).
        const literal = /\{([^}]*)\}/.exec(rest!)?.[1];
        const keys = ['service', ...(literal ? [...literal.matchAll(/(\w+)\s*:/g)].map((match) => match[1]!) : [])].sort().join(',');
        if (kind === 'countMetric' && /^\s*,\s*[a-z]/i.test(rest!)) throw new Error(`${file}: ${name}'s dimensions are not a literal this test can read`);
        emitted.set(name!, (emitted.get(name!) ?? new Set()).add(keys));
      }
    }
    expect(emitted.get('ScheduleNobodyOnCall')).toEqual(new Set(['service']));
    // The namespace and service the stack gives every function (wherever it sets them, whatever they become).
    const environments = serviceFunctions(template).map((fn) => fn.Properties.Environment.Variables);
    const namespaces = new Set(environments.map((variables) => JSON.stringify(variables.POWERTOOLS_METRICS_NAMESPACE)));
    const services = new Set(environments.map((variables) => JSON.stringify(variables.POWERTOOLS_SERVICE_NAME)));
    expect(namespaces.size).toBe(1);
    expect(services.size).toBe(1);
    const [namespace] = namespaces;
    const [serviceName] = services;
    // Metric filters publish their own metrics (checked with their alarm elsewhere).
    const filtered = new Set(Object.values(resources('AWS::Logs::MetricFilter')).flatMap((filter) => filter.Properties.MetricTransformations.map((each: { MetricName: string }) => each.MetricName)));
    type Watched = { MetricName?: string; Namespace?: unknown; Dimensions?: { Name: string; Value: unknown }[] };
    const watched = Object.entries(resources('AWS::CloudWatch::Alarm')).flatMap(([id, alarm]) => {
      const metrics: Watched[] = alarm.Properties.MetricName ? [alarm.Properties] : (alarm.Properties.Metrics ?? []).flatMap((each: { MetricStat?: { Metric: Watched } }) => (each.MetricStat ? [each.MetricStat.Metric] : []));
      return metrics.filter((metric) => JSON.stringify(metric.Namespace) === namespace && !filtered.has(metric.MetricName!)).map((metric) => ({ id, metric }));
    });
    const checked = new Set<string>();
    for (const { id, metric } of watched) {
      const dimensions = metric.Dimensions ?? [];
      expect(emitted.has(metric.MetricName!), `${id} watches ${metric.MetricName}, which no code emits`).toBe(true);
      expect(emitted.get(metric.MetricName!), `${id}: ${metric.MetricName}'s dimensions`).toContain(dimensions.map((each) => each.Name).sort().join(','));
      expect(JSON.stringify(dimensions.find((each) => each.Name === 'service')?.Value), `${id}: the service dimension`).toBe(serviceName);
      checked.add(metric.MetricName!);
    }
    expect([...checked].sort()).toEqual(expect.arrayContaining(['EscalationTargetBounced', 'PhoneMessageFailed', 'PhoneSpendUSD', 'ScheduleNobodyOnCall']));
  });

  it('deploys a second stage beside the first: its own stack and names, the SES identity shared by import', () => {
    const first = synth();
    const second = synth({ stage: 'staging', senderIdentity: 'existing' });
    expect(second.stack.stackName).toBe('IncidentService-staging');
    const names = (json: typeof first.merged) =>
      // Names that are unique in an account and region (an authorizer's is its API's own).
      Object.values(json.Resources).filter((resource) => resource.Type !== 'AWS::ApiGatewayV2::Authorizer').flatMap((resource) => {
        const properties = resource.Properties ?? {};
        return [properties.Name, properties.EventBusName, properties.ConfigurationSetName, properties.TableName, properties.UserPoolName, properties.FunctionName, properties.TopicName, properties.QueueName]
          // (A rule names the account's default bus, which it shares.)
          .filter((name): name is string => typeof name === 'string' && name !== 'default');
      });
    const firstNames = new Set(names(first.merged));
    expect(firstNames.size).toBeGreaterThanOrEqual(3);
    for (const name of names(second.merged)) expect(firstNames, name).not.toContain(name);
    expect(names(second.merged)).toEqual(expect.arrayContaining(['IncidentService-staging-incident-service', 'IncidentService-staging-email', 'IncidentService-staging-escalation']));
    // The shared identity is used, not created; Cognito (once on SES) sends through it.
    second.template.resourceCountIs('AWS::SES::EmailIdentity', 0);
    const pool = Object.values(second.template.findResources('AWS::Cognito::UserPool'))[0]!;
    expect(pool.DependsOn ?? []).toEqual([]);
    expect(JSON.stringify(pool.Properties.EmailConfiguration['Fn::If'][1].SourceArn)).toContain(':identity/');
    expect(() => synth({ stage: 'bad stage!' })).toThrow(/stage must be a letter then up to 19 letters, digits or hyphens/);
  });

  it("keeps each stage's metrics and alarms apart: every function emits into the stage's namespace, and every alarm on a metric of ours watches that namespace and a metric the code emits with exactly its dimensions (issue 46 §6)", () => {
    const emitted = emittedMetrics();
    // The scan reads the call sites (a failed parse would make this test vacuous).
    expect(emitted.get('EscalationTargetBounced')).toEqual(new Set(['']));
    for (const [context, namespace] of [
      [{}, 'IncidentService'],
      [{ stage: 'staging', senderIdentity: 'existing' }, 'IncidentService-staging'],
    ] as const) {
      const { template: stageTemplate } = synth(context);
      for (const fn of serviceFunctions(stageTemplate)) {
        expect(fn.Properties.Environment.Variables, fn.Properties.Description).toMatchObject({ POWERTOOLS_METRICS_NAMESPACE: namespace, POWERTOOLS_SERVICE_NAME: 'incident-service' });
      }
      const published = Object.values(stageTemplate.findResources('AWS::Logs::MetricFilter')).map((filter) => filter.Properties.MetricTransformations[0]);
      for (const transformation of published) {
        expect(transformation.MetricNamespace).toBe(namespace);
        expect(transformation.Dimensions).toBeUndefined();
      }
      type Watched = { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] };
      let ours = 0;
      for (const [id, alarm] of Object.entries(stageTemplate.findResources('AWS::CloudWatch::Alarm'))) {
        const watched: Watched[] = alarm.Properties.Metrics
          ? alarm.Properties.Metrics.filter((query: { MetricStat?: unknown }) => query.MetricStat).map((query: { MetricStat: { Metric: Watched } }) => query.MetricStat.Metric)
          : [alarm.Properties];
        for (const metric of watched.filter((candidate) => !candidate.Namespace.startsWith('AWS/'))) {
          ours += 1;
          expect(metric.Namespace, id).toBe(namespace);
          if (published.some((transformation) => transformation.MetricName === metric.MetricName)) {
            expect(metric.Dimensions, id).toBeUndefined();
            continue;
          }
          // EMF: the service dimension every line carries, and the call sites' own (all of them the same).
          expect(emitted.get(metric.MetricName), `${id}: ${metric.MetricName} is not emitted by the code`).toEqual(new Set([emitted.get(metric.MetricName)!.values().next().value]));
          const [keys] = emitted.get(metric.MetricName)!;
          expect((metric.Dimensions ?? []).map((dimension) => dimension.Name).sort(), id).toEqual(['service', ...keys!.split(',').filter(Boolean)].sort());
          expect(metric.Dimensions!.find((dimension) => dimension.Name === 'service')!.Value, id).toBe('incident-service');
        }
      }
      expect(ours).toBeGreaterThanOrEqual(7);
    }
    expect(() => emittedMetrics(['countMetric(\'EscalationTargetBounced\', dimensions)'])).toThrow(/not an object literal/);
  });

  it('never deletes the SES identity a stage created, whatever its removalPolicy: other stages may send through it (issue 46 §6)', () => {
    for (const context of [{}, THROWAWAY]) {
      const identities = Object.values(synth(context).template.findResources('AWS::SES::EmailIdentity'));
      expect(identities).toHaveLength(1);
      expect(identities[0]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    // The throwaway stage's own data still goes with it.
    expect(Object.values(synth(THROWAWAY).template.findResources('AWS::DynamoDB::Table'))[0]).toMatchObject({ DeletionPolicy: 'Delete' });
  });

  it('outputs the DNS records of a domain sender (DKIM, custom MAIL FROM), and serves links from a custom API domain when given', () => {
    expect(Object.keys(root.Outputs ?? {}).filter((name) => name.startsWith('Dkim'))).toEqual([]);
    const domain = synth(THROWAWAY);
    expect(Object.keys(domain.root.Outputs!).filter((name) => name.startsWith('DkimRecord'))).toEqual(['DkimRecord1', 'DkimRecord2', 'DkimRecord3']);
    expect(JSON.stringify(domain.root.Outputs!.DkimRecord1!.Value)).toContain('CNAME');
    domain.template.hasResourceProperties('AWS::SES::EmailIdentity', { MailFromAttributes: { MailFromDomain: 'mail.status.example.com' } });
    expect(JSON.stringify(domain.root.Outputs!.MailFromMxRecord!.Value)).toContain('mail.status.example.com MX 10 feedback-smtp.');
    expect(domain.root.Outputs!.MailFromSpfRecord!.Value).toBe('mail.status.example.com TXT "v=spf1 include:amazonses.com ~all"');
    expect(() => synth({ senderDomain: 'status.example.com', mailFromDomain: 'mail.elsewhere.example' })).toThrow(/mailFromDomain must be a subdomain of senderDomain/);

    const certificate = CUSTOMISED.apiCertificateArn;
    const custom = synth(CUSTOMISED);
    custom.template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'status-api.example.com', DomainNameConfigurations: [Match.objectLike({ CertificateArn: certificate })] });
    custom.template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    expect(custom.root.Outputs!.ApiUrl!.Value).toBe('https://status-api.example.com');
    for (const fn of serviceFunctions(custom.template)) {
      if (fn.Properties.Environment?.Variables?.PUBLIC_API_URL) expect(fn.Properties.Environment.Variables.PUBLIC_API_URL).toBe('https://status-api.example.com');
    }
    expect(() => synth({ apiDomain: 'status-api.example.com' })).toThrow(/apiDomain and apiCertificateArn go together/);
  });

  it("gives every function the console's origin for the incident links (issue 44): the consoleUrl context, else the stage's own console, else explicitly none, with a warning", () => {
    const consoleUrls = (deployed: { template: typeof template }) =>
      new Set(serviceFunctions(deployed.template).map((fn) => JSON.stringify(fn.Properties.Environment?.Variables?.CONSOLE_URL)));
    expect(consoleUrls(synth(CUSTOMISED))).toEqual(new Set([JSON.stringify('https://console.example.com')]));
    // The stage's own distribution (a parameter of each function's nested stack; the root's trigger reads it directly).
    const own = [...consoleUrls({ template })];
    for (const value of own) expect(value).toMatch(/^\{"Fn::Join":\["",\["https:\/\/",\{"(Ref|Fn::GetAtt)":"?\[?"?(referencetoIncidentServiceConsole|ConsoleNestedStack)/);
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('No console'))).toEqual([]);
    const withoutConsole = synth({ console: 'false' });
    expect(consoleUrls(withoutConsole)).toEqual(new Set([JSON.stringify('')]));
    expect(JSON.stringify(Annotations.fromStack(withoutConsole.stack).findWarning('*', Match.stringLikeRegexp('No console')))).toContain('-c consoleUrl=');
    expect(() => synth({ consoleUrl: 'console.example.com' })).toThrow(/consoleUrl must be the console's origin/);
  });

  it('passes cdk-nag (AwsSolutions) with every acknowledgement reasoned, and none acknowledging a finding that no longer exists', () => {
    // One pass that also notes each finding an acknowledgement answers: the findings of the same stack
    // unacknowledged, without building it a second time. (cdk-nag asks its private `isAcknowledged` of
    // every finding; were that renamed, nothing would be noted and every acknowledgement would read as
    // answering nothing below, failing loudly.)
    const checks = new AwsSolutionsChecks();
    const acknowledged = new Set<string>();
    const nag = checks as unknown as { isAcknowledged(node: unknown, ruleId: string): boolean };
    const isAcknowledged = nag.isAcknowledged.bind(checks);
    nag.isAcknowledged = (node, ruleId) => {
      const answered = isAcknowledged(node, ruleId);
      if (answered) acknowledged.add(ruleId);
      return answered;
    };
    const report = checks.validateScope(stack);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    expect(report.success).toBe(true);
    for (const reason of Object.values(acknowledgementsFor(stack))) expect(reason.length).toBeGreaterThan(30);
    // The same stack unacknowledged: each acknowledgement answers a finding it has.
    const findings = new Set([...report.violations.map((violation) => violation.ruleName), ...acknowledged]);
    expect(Object.keys(acknowledgementsFor(stack)).filter((id) => !findings.has(id))).toEqual([]);
    // The public routes' acknowledgement names each of them (the description's, so a new one is named too).
    for (const route of routes.filter((candidate) => candidate.auth === 'none')) expect(acknowledgementsFor(stack)['AwsSolutions-APIG4']).toContain(`${route.method} ${route.path}`);
    expect(ACKNOWLEDGED['AwsSolutions-IAM5[Resource::*]']).toContain('ses:SendEmail');
  });
});

// The cfn-lint equivalents (template-lint.ts), on the same synthesis of the default deployment.
templateLintChecks(synth());

/**
 * The business metrics the code emits (`countMetric`, `measureMetric` in shared/ and functions/), each with
 * the sets of dimension names its call sites give (comma-joined, sorted; '' for none). A call site whose
 * dimensions are not an object literal throws: the alarms could not be checked against it.
 */
function emittedMetrics(sources?: string[]): Map<string, Set<string>> {
  const texts = sources ?? ['shared', 'functions'].flatMap((folder) => (readdirSync(join(repositoryRoot, folder), { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => readFileSync(join(repositoryRoot, folder, file), 'utf8')));
  const emitted = new Map<string, Set<string>>();
  for (const text of texts) {
    for (const call of text.matchAll(/\b(countMetric|measureMetric)\(((?:[^()]|\([^()]*\))*)\)/g)) {
      const [, kind, args] = call;
      // The name (or a choice of names: `a ? 'X' : 'Y'`), then for measureMetric the value, then the dimensions.
      const [first, ...others] = args!.split(/,(?![^{]*\})/);
      const names = [...first!.matchAll(/'(\w+)'/g)].map((match) => match[1]!);
      if (!names.length) continue; // (the definitions themselves)
      const dimensions = (kind === 'measureMetric' ? others.slice(1) : others).join(',').trim();
      if (dimensions && !/^\{[^{}]*\}$/.test(dimensions)) throw new Error(`${kind}(${first}, …): its dimensions are not an object literal: ${dimensions}`);
      const keys = [...dimensions.matchAll(/(\w+)\s*:/g)].map((match) => match[1]).sort().join(',');
      for (const name of names) {
        if (!emitted.has(name)) emitted.set(name, new Set());
        emitted.get(name)!.add(keys);
      }
    }
  }
  return emitted;
}
