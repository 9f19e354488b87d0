/**
 * The service on AWS, built from the same system description as the local runtime
 * (`infra/system.ts`): the table, one function per route behind an HTTP API with a JWT
 * authorizer, the workers, the event bus and its rules, escalation schedules, SES e-mail,
 * dead-letter queues, alarms and outputs.
 */
import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpNoneAuthorizer, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AccountRecovery, Mfa, UserPool, UserPoolClient, UserPoolEmail, UserPoolOperation } from 'aws-cdk-lib/aws-cognito';
import { AttributeType, BillingMode, Operation, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition, type Function as ServiceLambda } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { ConfigurationSet, EmailIdentity, EmailSendingEvent, EventDestination, Identity, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { allFunctions, env, eventBus as busDescription, eventRules, routes, sesEvents, table as tableDescription, workers } from '../system.js';
import { readConfig, type DeployConfig } from './config.js';
import { ServiceFunction } from './service-function.js';

const attributeType = (type: 'S' | 'N') => (type === 'S' ? AttributeType.STRING : AttributeType.NUMBER);

export class IncidentServiceStack extends Stack {
  readonly config: DeployConfig;
  readonly functions = new Map<string, ServiceLambda>();
  readonly deadLetterQueues = new Map<string, Queue>();

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const config = (this.config = readConfig(this.node));
    const logRetention = config.logRetentionDays as RetentionDays;
    // What a stack deletion keeps: everything with data in it, unless this is a throwaway stack.
    const removalPolicy = config.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    // ----- Data: the one table ------------------------------------------------------------
    const table = new Table(this, 'Table', {
      partitionKey: { name: tableDescription.partitionKey.name, type: attributeType(tableDescription.partitionKey.type) },
      sortKey: { name: tableDescription.sortKey.name, type: attributeType(tableDescription.sortKey.type) },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDescription.timeToLiveAttribute,
      stream: StreamViewType[tableDescription.stream],
      removalPolicy,
      // Production data is not one `cdk destroy` (or a console click) away; `removalPolicy=destroy` turns it off.
      deletionProtection: config.removalPolicy !== 'destroy',
    });
    for (const index of tableDescription.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey.name, type: attributeType(index.partitionKey.type) },
        sortKey: { name: index.sortKey.name, type: attributeType(index.sortKey.type) },
      });
    }

    // ----- Events, schedules, e-mail --------------------------------------------------------
    const bus = new EventBus(this, 'EventBus', { eventBusName: `${this.stackName}-${busDescription.name}` });
    // SES reports on e-mails to the account's default bus only.
    const defaultBus = EventBus.fromEventBusName(this, 'DefaultBus', sesEvents.bus);

    // The sender identity (the address, or the whole domain with -c senderDomain=), and the
    // configuration set every e-mail is sent with: its bounces and complaints come back as events.
    const configurationSet = new ConfigurationSet(this, 'EmailConfiguration', {
      configurationSetName: `${this.stackName}-email`,
      // SES's own suppression list for this set as well: no e-mail to an address that bounced or complained.
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
      reputationMetrics: true,
    });
    configurationSet.addEventDestination('Feedback', {
      destination: EventDestination.eventBus(defaultBus),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    });
    const senderIdentity = new EmailIdentity(this, 'SenderIdentity', {
      identity: config.senderDomain ? Identity.domain(config.senderDomain) : Identity.email(config.senderEmail),
      configurationSet,
    });
    const scheduleGroup = new CfnScheduleGroup(this, 'EscalationSchedules', { name: `${this.stackName}-escalation` });

    // ----- Functions: one per route, plus the workers ----------------------------------------
    const common: Record<string, string> = {
      [env.eventBusName]: bus.eventBusName,
      [env.senderEmail]: config.senderEmail,
      [env.sesConfigurationSet]: configurationSet.configurationSetName,
      POWERTOOLS_SERVICE_NAME: 'incident-service',
      POWERTOOLS_METRICS_NAMESPACE: 'IncidentService',
      POWERTOOLS_LOG_LEVEL: config.logLevel,
    };
    const usesCognito = !config.jwtIssuer;
    for (const description of allFunctions) {
      if (description.name === workers.accountsPostConfirmation.name && !usesCognito) continue;
      const fn = new ServiceFunction(this, toId(description.name), {
        description,
        table,
        logRetention,
        logRemovalPolicy: removalPolicy,
        environment: common,
      }).fn;
      this.functions.set(description.name, fn);
    }
    const fn = (name: string) => this.functions.get(name)!;

    // ----- API: HTTP API with a JWT authorizer on every /api route ----------------------------
    let userPool: UserPool | undefined;
    let userPoolClient: UserPoolClient | undefined;
    let issuer = config.jwtIssuer;
    let audience = config.jwtAudience;
    if (usesCognito) {
      userPool = new UserPool(this, 'Users', {
        selfSignUpEnabled: true,
        signInAliases: { email: true },
        autoVerify: { email: true },
        standardAttributes: { email: { required: true, mutable: false }, fullname: { required: true, mutable: true } },
        passwordPolicy: { minLength: 12, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
        mfa: Mfa.OPTIONAL,
        mfaSecondFactor: { otp: true, sms: false },
        accountRecovery: AccountRecovery.EMAIL_ONLY,
        removalPolicy,
        deletionProtection: config.removalPolicy !== 'destroy',
        // Verification codes through SES from the service's own sender (Cognito's built-in sender
        // allows about 50 e-mails a day, and sign-up is open).
        email: UserPoolEmail.withSES({
          fromEmail: config.senderEmail,
          fromName: 'Incident service',
          sesVerifiedDomain: config.senderDomain,
          // The identity lives in this stack's region (a token when the stack is environment-agnostic).
          sesRegion: this.region,
          configurationSetName: configurationSet.configurationSetName,
        }),
      });
      userPool.node.addDependency(senderIdentity);
      userPool.addTrigger(UserPoolOperation.POST_CONFIRMATION, fn(workers.accountsPostConfirmation.name));
      userPoolClient = userPool.addClient('ApiClient', {
        // Apps sign in with SRP; ADMIN_USER_PASSWORD_AUTH (IAM credentials required) serves the
        // README's smoke test. No USER_PASSWORD_AUTH (the password would travel), no OAuth flows.
        authFlows: { userSrp: true, adminUserPassword: true },
        disableOAuth: true,
        generateSecret: false,
        preventUserExistenceErrors: true,
        idTokenValidity: Duration.hours(1),
        accessTokenValidity: Duration.hours(1),
      });
      issuer = `https://cognito-idp.${this.region}.amazonaws.com/${userPool.userPoolId}`;
      audience = [userPoolClient.userPoolClientId];
    }
    const authorizer = new HttpJwtAuthorizer('JwtAuthorizer', issuer!, { jwtAudience: audience! });

    const api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      corsPreflight: config.corsOrigins?.length
        ? {
            allowOrigins: config.corsOrigins,
            allowHeaders: ['authorization', 'content-type'],
            // Browsers may read the request id (support) and the next page's link.
            exposeHeaders: ['x-request-id', 'link'],
            allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PUT, CorsHttpMethod.DELETE],
            maxAge: Duration.hours(1),
          }
        : undefined,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: logRetention, removalPolicy });
    const stage = api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRate, burstLimit: config.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // One JSON line per request, with what tells a failed request's story.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            authorizerError: '$context.authorizer.error',
            integrationErrorMessage: '$context.integrationErrorMessage',
            sourceIp: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
          }),
        ),
      },
    });
    for (const route of routes) {
      api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${toId(route.name)}Integration`, fn(route.name)),
        authorizer: route.auth === 'jwt' ? authorizer : new HttpNoneAuthorizer(),
      });
    }
    const apiUrl = stage.url.replace(/\/$/, '');
    for (const worker of this.functions.values()) worker.addEnvironment(env.publicApiUrl, apiUrl);

    // ----- Stream → outbox publisher (only outbox inserts) -----------------------------------
    const publisher = fn(workers.publisher.name);
    const publisherDlq = this.deadLetterQueue('OutboxPublisher');
    publisher.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        retryAttempts: 20,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(publisherDlq),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.or(...workers.publisher.stream.eventNames),
            dynamodb: { NewImage: { type: { S: FilterRule.or(...workers.publisher.stream.itemTypes) } } },
          }),
        ],
      }),
    );
    bus.grantPutEventsTo(publisher);

    // ----- Rules: events to their targets, each with a dead-letter queue ---------------------
    // EventBridge's own retries end in the rule's dead-letter queue; once it has handed an event
    // to a function (an asynchronous invocation), failures of the function itself are retried by
    // Lambda and then sent to the function's on-failure queue. Both are alarmed.
    for (const rule of eventRules) {
      const target = fn(rule.target);
      const dlq = this.deadLetterQueue(`${toId(rule.name)}Rule`);
      const fromSes = rule.from === 'ses';
      new Rule(this, `${toId(rule.name)}Rule`, {
        eventBus: fromSes ? defaultBus : bus,
        eventPattern: fromSes
          ? // Only the e-mails this stack sent (its configuration set), not the account's others.
            { source: [sesEvents.source], detailType: [...rule.detailTypes], detail: { mail: { tags: { 'ses:configuration-set': [configurationSet.configurationSetName] } } } }
          : { source: [busDescription.source], detailType: [...rule.detailTypes] },
        targets: [new LambdaFunction(target, { deadLetterQueue: dlq, retryAttempts: 8, maxEventAge: Duration.hours(24) })],
      });
    }
    for (const target of new Set(eventRules.map((rule) => rule.target))) {
      const onFailure = this.deadLetterQueue(`${toId(target)}Failed`);
      fn(target).configureAsyncInvoke({ onFailure: new SqsDestination(onFailure), retryAttempts: 2, maxEventAge: Duration.hours(6) });
    }

    // ----- E-mail: only the notifier sends, and only from the sender address ----------------
    // In the SES sandbox SES also authorizes against each recipient's identity, so the grant is on
    // every identity, narrowed by the From address.
    fn(workers.notifier.name).addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: ['*'],
        conditions: { StringEquals: { 'ses:FromAddress': config.senderEmail } },
      }),
    );

    // ----- Escalation: one-time schedules invoking escalation-step --------------------------
    const escalationStep = fn(workers.escalationStep.name);
    const escalationDlq = this.deadLetterQueue('EscalationStep');
    escalationStep.configureAsyncInvoke({ onFailure: new SqsDestination(escalationDlq), retryAttempts: 2 });
    const schedulerRole = new Role(this, 'EscalationSchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    });
    schedulerRole.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [escalationStep.functionArn] }));
    escalationDlq.grantSendMessages(schedulerRole);
    const scheduling = fn(workers.escalationScheduler.name);
    scheduling.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        resources: [`arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${scheduleGroup.name}/*`],
      }),
    );
    scheduling.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    scheduling.addEnvironment(env.schedulerGroup, scheduleGroup.name!);
    scheduling.addEnvironment(env.schedulerRoleArn, schedulerRole.roleArn);
    scheduling.addEnvironment(env.escalationStepArn, escalationStep.functionArn);
    scheduling.addEnvironment(env.escalationDlqArn, escalationDlq.queueArn);

    // ----- The monitoring system may invoke monitor-check, and nothing else -------------------
    const monitorCheck = fn(workers.monitorCheck.name);
    const invokePolicy = new ManagedPolicy(this, 'MonitorCheckInvokePolicy', {
      description: 'Lets the monitoring system invoke the monitor-check function, and nothing else',
      statements: [new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [monitorCheck.functionArn] })],
    });

    // ----- Operations: alarms to a topic CloudWatch may publish to ----------------------------
    // The AWS managed SNS key cannot be used by CloudWatch: a customer-managed key lets it, and the
    // topic policy lets it publish, for this account's alarms only.
    const fromThisAccount = { StringEquals: { 'aws:SourceAccount': this.account } };
    const alarmKey = new Key(this, 'AlarmsKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish alarms',
      enableKeyRotation: true,
      removalPolicy,
    });
    alarmKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromThisAccount,
      }),
    );
    const alarmTopic = new Topic(this, 'Alarms', { enforceSSL: true, masterKey: alarmKey });
    alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [alarmTopic.topicArn],
        conditions: fromThisAccount,
      }),
    );
    if (config.alarmEmail) alarmTopic.addSubscription(new EmailSubscription(config.alarmEmail));
    const alarm = (id: string, metric: IMetric, description: string, threshold = 0) =>
      new Alarm(this, id, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      }).addAlarmAction(new SnsAction(alarmTopic));
    const fiveMinutes = { period: Duration.minutes(5) };
    alarm('Api5xxAlarm', api.metricServerError(fiveMinutes), 'The API answered 5xx');
    for (const [name, worker] of this.functions) {
      alarm(`${toId(name)}ErrorsAlarm`, worker.metricErrors(fiveMinutes), `${name} failed`);
      alarm(`${toId(name)}ThrottlesAlarm`, worker.metricThrottles(fiveMinutes), `${name} was throttled`);
    }
    for (const [name, queue] of this.deadLetterQueues) {
      alarm(`${name}DlqAlarm`, queue.metricApproximateNumberOfMessagesVisible(fiveMinutes), `${name} dead-lettered an event`);
    }
    alarm(
      'OutboxIteratorAgeAlarm',
      publisher.metric('IteratorAge', { ...fiveMinutes, statistic: 'Maximum' }),
      'The outbox publisher is more than 5 minutes behind the table stream (events are late)',
      5 * 60 * 1000,
    );
    // The operations the service uses (a math-expression alarm takes at most 10 metrics).
    const operations = [
      Operation.GET_ITEM,
      Operation.BATCH_GET_ITEM,
      Operation.QUERY,
      Operation.PUT_ITEM,
      Operation.UPDATE_ITEM,
      Operation.DELETE_ITEM,
      Operation.BATCH_WRITE_ITEM,
      Operation.TRANSACT_WRITE_ITEMS,
    ];
    alarm(
      'EscalationTargetBouncedAlarm',
      new Metric({ namespace: 'IncidentService', metricName: 'EscalationTargetBounced', dimensionsMap: { service: 'incident-service' }, statistic: 'Sum', ...fiveMinutes }),
      'An escalation e-mail bounced: someone on call was not paged (see the email-feedback log)',
    );
    alarm('TableThrottlesAlarm', table.metricThrottledRequestsForOperations({ ...fiveMinutes, operations }), 'DynamoDB throttled requests to the table');
    alarm('TableSystemErrorsAlarm', table.metricSystemErrorsForOperations({ ...fiveMinutes, operations }), 'DynamoDB answered requests to the table with system errors');

    // ----- Outputs ---------------------------------------------------------------------------
    new CfnOutput(this, 'ApiUrl', { value: apiUrl });
    if (userPool && userPoolClient) {
      new CfnOutput(this, 'UserPoolId', { value: userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: userPoolClient.userPoolClientId });
    }
    new CfnOutput(this, 'MonitorCheckFunctionArn', { value: monitorCheck.functionArn });
    new CfnOutput(this, 'MonitorCheckInvokePolicyArn', { value: invokePolicy.managedPolicyArn });
    new CfnOutput(this, 'EventBusName', { value: bus.eventBusName });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }

  private deadLetterQueue(name: string): Queue {
    const queue = new Queue(this, `${name}Dlq`, {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.deadLetterQueues.set(name, queue);
    return queue;
  }
}

/** `incidents-list` → `IncidentsList`. */
export const toId = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
