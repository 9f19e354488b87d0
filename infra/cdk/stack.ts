/**
 * The service on AWS, built from the same system description as the local runtime
 * (`shared/system.ts`): the table, one function per route behind an HTTP API with a JWT
 * authorizer, the workers, the event bus and its rules, escalation schedules, SES e-mail,
 * dead-letter queues, alarms and outputs.
 *
 * One `cdk deploy` deploys it all, as a root stack and nested stacks (`functionGroups`): the root
 * holds what keeps data or identity (table, user pool, queues, bus, SES, the API and its stage,
 * the alarm topic); each group of functions (one per handler directory of the description) is a
 * nested stack with its functions, their routes, rules and alarms. A new route joins its
 * directory's stack, or brings a stack of its own; nothing is ever moved between stacks.
 */
import { Annotations, Aws, CfnCondition, CfnOutput, CfnParameter, CfnRule, Duration, Fn, NestedStack, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  CfnStage,
  CorsHttpMethod,
  DomainName,
  HttpApi,
  HttpAuthorizer,
  HttpAuthorizerType,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  type HttpStage,
  LogGroupLogDestination,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  CfnUserPool,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
  UserPoolOperation,
} from 'aws-cdk-lib/aws-cognito';
import { ConsoleHosting, deployConsole } from './console.js';
import { AttributeType, BillingMode, Operation, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition, type Function as ServiceLambda } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, LogGroup, MetricFilter, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { ConfigurationSet, EmailIdentity, EmailSendingEvent, EventDestination, Identity, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  allFunctions,
  consoleHosting,
  cors,
  env,
  eventBus as busDescription,
  eventRules,
  periodicRules,
  functionDefaults,
  routes,
  sesEvents,
  table as tableDescription,
  workers,
  type FunctionDescription,
} from '../../shared/system.js';
import type { MetricName } from '../../shared/platform/observability/metrics.js';
import { monitorCheckFunctionName, readConfig, type DeployConfig } from './config.js';
import { originationIdentityIn, phoneParameters, phonePaging, type PhoneParameters } from './phones.js';
import { ServiceFunction } from './service-function.js';
import { serviceQueues, webhookScheduleGroup } from './delayed-work.js';

const attributeType = (type: 'S' | 'N') => (type === 'S' ? AttributeType.STRING : AttributeType.NUMBER);

/** The public routes (links of e-mails, alerts in), from the description: their own throttling and 429 alarm. */
export const publicRoutes = () => routes.filter((route) => route.auth === 'none');
export const routeKeyOf = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

/**
 * The group (nested stack) a function deploys in: its handler's directory (`functions/incidents/…` →
 * `incidents`). Stable: a function's group never changes when others are added.
 */
export const functionGroup = (description: Pick<FunctionDescription, 'handler'>) => description.handler.split('/').at(-2)!;

/** The `service` dimension of every metric the functions emit (their POWERTOOLS_SERVICE_NAME). */
export const SERVICE_NAME = 'incident-service';
/**
 * The namespace of a stage's own metrics (the functions' EMF metrics, the log metric filters') and so
 * of the alarms on them: the stack's name (`IncidentService`, `IncidentService-staging`), unique in an
 * account and region, so no stage's metric or alarm ever counts another stage's. The functions read it
 * from POWERTOOLS_METRICS_NAMESPACE.
 */
export const metricsNamespaceOf = (stackName: string) => stackName;
/** The metrics that log metric filters publish in the stage's namespace (without dimensions). */
export const logMetrics = {
  /** An invocation that failed: threw, timed out, crashed, or failed to start (`FUNCTION_FAILURE_TERMS`). */
  functionFailed: 'FunctionFailed',
  /** An invocation whose handler took more than `durationShareOfTimeout` of its function's timeout. */
  functionNearTimeout: 'FunctionNearTimeout',
  /** A public route answered 429 (API Gateway's throttling), from the access log. */
  publicRouteThrottled: 'PublicRouteThrottled',
} as const;
/**
 * What Lambda writes into a function's log when an invocation fails, whatever failed (the events its
 * `Errors` metric counts): the Node.js runtime's `Invoke Error` line for a handler that threw, `Task
 * timed out after …` and the REPORT line's `Status: timeout` for a timeout, `Status: error` (REPORT,
 * INIT_REPORT) and `Runtime exited …` for a crash, running out of memory or a failed start.
 */
export const FUNCTION_FAILURE_TERMS = ['Invoke Error', 'Task timed out', 'Status: timeout', 'Status: error', 'Runtime exited'] as const;
/** The most metrics CloudWatch takes in one alarm's math expression. */
const MAX_ALARM_METRICS = 10;

/** The thresholds of the alarms that are rates or levels (docs/deployment.md explains each). */
export const alarmThresholds = {
  /** Per cent of API requests answered 5xx in a 5-minute period, in 2 of 3 periods. */
  api5xxPercent: 5,
  /** Failed invocations of the stage's functions in a 5-minute period, in 2 of 3 periods. */
  functionFailures: 0,
  /** An invocation slower than this share of its function's timeout, in 2 of 3 periods. */
  durationShareOfTimeout: 0.8,
  /** The oldest message of a dead-letter queue (messages are kept 14 days). */
  deadLetterAgeSeconds: 24 * 60 * 60,
  /** Requests the public routes answered 429 (throttled) in 5 minutes. */
  publicThrottled: 20,
  /** SES reviews an account at 5 % bounces and 0.1 % complaints; these alarm well before. */
  sesBounceRate: 0.02,
  sesComplaintRate: 0.0005,
} as const;

/** An alarm that says when it fires and when it clears (`IncidentServiceStack.alarmTopic`). */
type AddAlarm = (scope: Construct, alarmId: string, metric: IMetric, description: string, options?: { threshold?: number; breaching?: number; of?: number }) => Alarm;
const fiveMinutes = Duration.minutes(5);
const twoOfThree = { breaching: 2, of: 3 };

/** This stage's facts about the outside world (the stack's parameters). */
interface StackParameters {
  senderEmail: string;
  cognitoEmail: string;
  /** SMS and voice: the origination identity (or empty), its condition, the configuration set's name. */
  phones: PhoneParameters;
}
/** The event buses, the e-mail configuration and sender identity, the schedule group. */
interface Messaging {
  bus: EventBus;
  defaultBus: IEventBus;
  configurationSet: ConfigurationSet;
  senderIdentity: EmailIdentity | undefined;
  identityArn: string;
  scheduleGroup: CfnScheduleGroup;
}
/** The dead-letter and on-failure queues, by what fails into them. */
interface DeadLetters {
  publisher: Queue;
  alertProcessor: Queue;
  /** By event rule name. */
  rules: Map<string, Queue>;
  /** By periodic rule name. */
  periodic: Map<string, Queue>;
  /** By the name of a function invoked asynchronously (a rule's target). */
  targets: Map<string, Queue>;
  escalation: Queue;
}
interface UserIdentity {
  userPool: UserPool | undefined;
  userPoolClient: UserPoolClient | undefined;
  /** The console's app client (code flow with PKCE through the managed login), when the console is deployed. */
  consoleClient: UserPoolClient | undefined;
  issuer: string | undefined;
  audience: string[] | undefined;
}
interface Api {
  api: HttpApi;
  authorizer: IHttpRouteAuthorizer;
  accessLogs: LogGroup;
  stage: HttpStage;
  /** What links in e-mails carry: the custom domain when one is given, else the execute-api URL. */
  url: string;
}

export class IncidentServiceStack extends Stack {
  readonly config: DeployConfig;
  /** The namespace of this stage's own metrics and their alarms (`metricsNamespaceOf`). */
  readonly metricsNamespace: string;
  readonly functions = new Map<string, ServiceLambda>();
  readonly deadLetterQueues = new Map<string, Queue>();
  /** The nested stack of each function group. */
  readonly functionStacks = new Map<string, NestedStack>();
  /** Each function's construct (the scope of its route, rules, roles and alarms), by function name. */
  private readonly functionConstructs = new Map<string, ServiceFunction>();
  private readonly logRetention: RetentionDays;
  /** What a stack deletion keeps: everything with data in it, unless this is a throwaway stack. */
  private readonly removalPolicy: RemovalPolicy;

  /**
   * The stack's sections, in the order they create their constructs (which is the order of the
   * templates' resources, policy statements and environment variables). A logical id depends on its
   * construct's scope and id only, never on the section that creates it.
   */
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.config = readConfig(this.node);
    this.metricsNamespace = metricsNamespaceOf(this.stackName);
    this.logRetention = this.config.logRetentionDays as RetentionDays;
    this.removalPolicy = this.config.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const parameters = this.parameters();
    const table = this.dataTable();
    const messaging = this.eventsAndEmail(parameters);
    const deadLetters = this.deadLetters();
    const { alarmTopic, alarm } = this.alarmTopic();
    const hosting = this.consoleHosting();
    const identity = this.userIdentity(parameters, messaging, hosting);
    const api = this.api(identity, hosting);
    this.serviceFunctions(table, parameters, messaging, api, this.config.consoleUrl ?? hosting?.url);
    this.routes(api, identity);
    this.streamReaders(table, messaging, deadLetters);
    this.rules(messaging, deadLetters);
    this.emailSending(parameters);
    const escalationRole = this.escalationSchedules(messaging, deadLetters);
    this.webhookRetries(deadLetters, alarm);
    this.phones(parameters, messaging, deadLetters, escalationRole, alarm);
    const invokePolicy = this.monitorCheckInvokePolicy();
    this.stageAlarms(alarm, table, messaging, api, deadLetters);
    this.outputs(identity, messaging, api, table, alarmTopic, invokePolicy);
    if (hosting) this.consoleFiles(hosting, identity, api);
  }

  /** The managed login's origin (Cognito's domain of this stage, named before the pool exists). */
  private get loginOrigin() {
    return `https://${this.stackName.toLowerCase()}-${this.account}.auth.${this.region}.amazoncognito.${this.urlSuffix === 'amazonaws.com.cn' ? 'com.cn' : 'com'}`;
  }

  /**
   * The console's hosting, in a nested stack of its own, unless `-c console=false`. Its pages may call
   * the API (its custom domain, else any execute-api origin of the region: the API's id is not known
   * before the API, which needs the console's origin for CORS) and the managed login.
   */
  private consoleHosting(): ConsoleHosting | undefined {
    if (!this.config.console || this.config.jwtIssuer) return undefined;
    const apiOrigin = this.config.apiDomain ? `https://${this.config.apiDomain}` : `https://*.execute-api.${this.region}.${this.urlSuffix}`;
    return new ConsoleHosting(this, 'Console', { connectOrigins: [apiOrigin, this.loginOrigin], removalPolicy: this.removalPolicy, description: 'Incident console: bucket and distribution' });
  }

  /** The console's build and its `config.json` (the API's URL, the managed login's endpoints), in its bucket. */
  private consoleFiles(hosting: ConsoleHosting, { consoleClient }: UserIdentity, api: Api) {
    const login = this.loginOrigin;
    deployConsole(this, hosting, {
      apiUrl: api.url,
      auth: {
        clientId: consoleClient!.userPoolClientId,
        authorizeUrl: `${login}/oauth2/authorize`,
        tokenUrl: `${login}/oauth2/token`,
        logoutUrl: `${login}/logout`,
        scopes: 'openid email profile',
      },
    });
    new CfnOutput(this, 'ConsoleUrl', { value: hosting.url, description: 'The web console' });
  }

  /** Parameters: this stage's facts about the outside world, given once, kept by every deploy. */
  private parameters(): StackParameters {
    const config = this.config;
    const senderEmail = new CfnParameter(this, 'SenderEmail', {
      type: 'String',
      description: 'The From address of every e-mail (its SES identity is created unless senderIdentity=existing). Given once: later deploys keep it.',
      allowedPattern: config.senderDomain ? `^[^@\\s]+@${escapeRegExp(config.senderDomain)}$` : '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
      constraintDescription: config.senderDomain ? `SenderEmail must be an address of ${config.senderDomain}` : 'SenderEmail must be an e-mail address',
    }).valueAsString;
    const cognitoEmail = new CfnParameter(this, 'CognitoEmail', {
      type: 'String',
      description: "Who sends Cognito's codes: cognito (its own sender, ~50 a day; works before SES has verified the sender) or ses (the verified sender, through this stack's configuration set).",
      allowedValues: ['cognito', 'ses'],
      default: 'cognito',
    }).valueAsString;
    return { senderEmail, cognitoEmail, phones: phoneParameters(this) };
  }

  /** Data: the one table. */
  private dataTable(): Table {
    const table = new Table(this, 'Table', {
      partitionKey: { name: tableDescription.partitionKey.name, type: attributeType(tableDescription.partitionKey.type) },
      sortKey: { name: tableDescription.sortKey.name, type: attributeType(tableDescription.sortKey.type) },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDescription.timeToLiveAttribute,
      stream: StreamViewType[tableDescription.stream],
      removalPolicy: this.removalPolicy,
      // Production data is not one `cdk destroy` (or a console click) away; `removalPolicy=destroy` turns it off.
      deletionProtection: this.config.removalPolicy !== 'destroy',
    });
    for (const index of tableDescription.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey.name, type: attributeType(index.partitionKey.type) },
        sortKey: { name: index.sortKey.name, type: attributeType(index.sortKey.type) },
      });
    }
    return table;
  }

  /** Events, schedules, e-mail: the buses, the configuration set, the sender identity, the schedule group. */
  private eventsAndEmail({ senderEmail }: StackParameters): Messaging {
    const config = this.config;
    const bus = new EventBus(this, 'EventBus', { eventBusName: `${this.stackName}-${busDescription.name}` });
    // SES reports on e-mails to the account's default bus only.
    const defaultBus = EventBus.fromEventBusName(this, 'DefaultBus', sesEvents.bus);

    // The configuration set every e-mail is sent with (one per stage): its bounces and complaints come back as events.
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
    // The sender identity (the address, or the whole domain with -c senderDomain=), unless another
    // stage or the console already holds it (-c senderIdentity=existing): SES has one per account and region.
    const identityName = config.senderDomain ?? senderEmail;
    const senderIdentity =
      config.senderIdentity === 'create'
        ? new EmailIdentity(this, 'SenderIdentity', {
            identity: config.senderDomain ? Identity.domain(config.senderDomain) : Identity.email(senderEmail),
            configurationSet,
            mailFromDomain: config.mailFromDomain,
          })
        : undefined;
    // Other stages send through it (senderIdentity=existing), and SES has one per address or domain in
    // an account and region: deleting or replacing this stage never deletes it, whatever removalPolicy
    // says (a destroyed stage leaves it; deploy that stage again with senderIdentity=existing).
    senderIdentity?.applyRemovalPolicy(RemovalPolicy.RETAIN);
    const identityArn = this.formatArn({ service: 'ses', resource: 'identity', resourceName: identityName });
    const scheduleGroup = new CfnScheduleGroup(this, 'EscalationSchedules', { name: `${this.stackName}-escalation` });
    return { bus, defaultBus, configurationSet, senderIdentity, identityArn, scheduleGroup };
  }

  /** Dead-letter and on-failure queues (in the root stack, so their logical ids never move). */
  private deadLetters(): DeadLetters {
    const publisher = this.deadLetterQueue('OutboxPublisher');
    const alertProcessor = this.deadLetterQueue('AlertProcessor');
    const rules = new Map(eventRules.map((rule) => [rule.name, this.deadLetterQueue(`${toId(rule.name)}Rule`)]));
    const periodic = new Map(periodicRules.map((rule) => [rule.name, this.deadLetterQueue(`${toId(rule.name)}Schedule`)]));
    // (And monitor-check, which the monitoring system may invoke asynchronously: Lambda then queues a throttled
    // check and retries it for up to 6 h, and a failing one ends in its on-failure queue, issue 46 §9.)
    const asyncTargets = [...new Set([...eventRules, ...periodicRules].map((rule) => rule.target as string).concat(workers.monitorCheck.name))];
    const targets = new Map(asyncTargets.map((target) => [target, this.deadLetterQueue(`${toId(target)}Failed`)]));
    const escalation = this.deadLetterQueue('EscalationStep');
    return { publisher, alertProcessor, rules, periodic, targets, escalation };
  }

  /**
   * Alarms go to a topic CloudWatch may publish to. The AWS managed SNS key cannot be used by
   * CloudWatch: a customer-managed key lets it, and the topic policy lets it publish, for this
   * account's alarms only. Returns the topic, and how every alarm of the stage is made.
   */
  private alarmTopic(): { alarmTopic: Topic; alarm: AddAlarm } {
    const fromThisAccount = { StringEquals: { 'aws:SourceAccount': this.account } };
    const alarmKey = new Key(this, 'AlarmsKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish alarms',
      enableKeyRotation: true,
      removalPolicy: this.removalPolicy,
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
    if (this.config.alarmEmail) alarmTopic.addSubscription(new EmailSubscription(this.config.alarmEmail));
    const notify = new SnsAction(alarmTopic);
    /**
     * An alarm that says when it fires and when it clears. `of` 1 (the default): one breaching
     * period fires it (a single event that already is a lost page); otherwise `breaching` of `of`.
     */
    const alarm: AddAlarm = (scope, alarmId, metric, description, options = {}) => {
      const created = new Alarm(scope, alarmId, {
        metric,
        threshold: options.threshold ?? 0,
        evaluationPeriods: options.of ?? 1,
        datapointsToAlarm: options.breaching ?? 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(notify);
      created.addOkAction(notify);
      return created;
    };
    return { alarmTopic, alarm };
  }

  /** Identity: the Cognito user pool, unless an external issuer is given. */
  private userIdentity({ senderEmail, cognitoEmail }: StackParameters, { senderIdentity, identityArn, configurationSet }: Messaging, hosting: ConsoleHosting | undefined): UserIdentity {
    const config = this.config;
    if (config.jwtIssuer) return { userPool: undefined, userPoolClient: undefined, consoleClient: undefined, issuer: config.jwtIssuer, audience: config.jwtAudience };
    const userPool = new UserPool(this, 'Users', {
      selfSignUpEnabled: config.selfSignUp,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: false }, fullname: { required: true, mutable: true } },
      passwordPolicy: { minLength: 12, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      removalPolicy: this.removalPolicy,
      deletionProtection: config.removalPolicy !== 'destroy',
    });
    // Who sends the codes is the CognitoEmail parameter. `cognito` (the first deploy's): Cognito's
    // own sender, since Cognito refuses (at CreateUserPool) an SES identity that is not verified yet,
    // and one this stack has just created never is. `ses`, once SES has verified the sender: the
    // stage's sender through its configuration set (Cognito's own sender allows ~50 e-mails a day).
    const throughSes = new CfnCondition(this, 'CognitoEmailThroughSes', { expression: Fn.conditionEquals(cognitoEmail, 'ses') });
    (userPool.node.defaultChild as CfnUserPool).emailConfiguration = Fn.conditionIf(
      throughSes.logicalId,
      {
        EmailSendingAccount: 'DEVELOPER',
        From: Fn.join('', ['Incident service <', senderEmail, '>']),
        SourceArn: identityArn,
        ConfigurationSet: configurationSet.configurationSetName,
      },
      { EmailSendingAccount: 'COGNITO_DEFAULT' },
    ) as CfnUserPool.EmailConfigurationProperty;
    if (senderIdentity) userPool.node.addDependency(senderIdentity);
    this.signUpGuard(cognitoEmail);
    const userPoolClient = userPool.addClient('ApiClient', {
      // Apps sign in with SRP; ADMIN_USER_PASSWORD_AUTH (IAM credentials required) serves the
      // README's smoke test. No USER_PASSWORD_AUTH (the password would travel), no OAuth flows.
      authFlows: { userSrp: true, adminUserPassword: true },
      disableOAuth: true,
      generateSecret: false,
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
    });
    const consoleClient = hosting && this.consoleSignIn(userPool, hosting);
    return {
      userPool,
      userPoolClient,
      consoleClient,
      issuer: `https://cognito-idp.${this.region}.amazonaws.com/${userPool.userPoolId}`,
      audience: [userPoolClient.userPoolClientId, ...(consoleClient ? [consoleClient.userPoolClientId] : [])],
    };
  }

  /**
   * Who may make Cognito send mail (issue 46 §2). Open self sign-up lets anyone have a code e-mailed
   * to any address: with Cognito on SES, from the stage's sender. So open sign-up (no
   * `allowedSignUpDomains`) keeps Cognito on its own sender (a CloudFormation rule refuses
   * `CognitoEmail=ses`); `allowedSignUpDomains` refuses other addresses before any code is sent;
   * `["*"]` accepts anyone knowingly. With sign-up off, users come from `admin-create-user` only.
   */
  private signUpGuard(cognitoEmail: string) {
    const { selfSignUp, allowedSignUpDomains } = this.config;
    if (selfSignUp && !allowedSignUpDomains) {
      new CfnRule(this, 'OpenSignUpKeepsCognitoSender', {
        assertions: [
          {
            assert: Fn.conditionNot(Fn.conditionEquals(cognitoEmail, 'ses')),
            assertDescription:
              'CognitoEmail=ses with open self sign-up would let anyone make Cognito mail any address from your sender: set allowedSignUpDomains (or selfSignUp false) in deploy/<stage>.json first',
          },
        ],
      });
    }
  }

  /**
   * The console's sign-in: the user pool's managed login at this stage's Cognito domain, and an app
   * client without a secret doing the authorization code flow with PKCE, whose callback is the
   * console's `/callback` and whose sign-out returns to the console.
   */
  private consoleSignIn(userPool: UserPool, hosting: ConsoleHosting): UserPoolClient {
    userPool.addDomain('Login', {
      cognitoDomain: { domainPrefix: `${this.stackName.toLowerCase()}-${this.account}` },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    const client = userPool.addClient('ConsoleClient', {
      generateSecret: false,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [`${hosting.url}${consoleHosting.callbackPath}`],
        logoutUrls: [hosting.url, `${hosting.url}/`],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      enableTokenRevocation: true,
    });
    // Managed login (its newer version) shows a page only with a style: Cognito's own.
    new CfnManagedLoginBranding(this, 'ConsoleLoginStyle', {
      userPoolId: userPool.userPoolId,
      clientId: client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    return client;
  }

  /** API: HTTP API with a JWT authorizer on every /api route, its stage, access log and custom domain. */
  private api({ issuer, audience }: UserIdentity, hosting: ConsoleHosting | undefined): Api {
    const config = this.config;
    // The console's origin, and any the operator adds.
    const corsOrigins = [...(hosting ? [hosting.url] : []), ...(config.corsOrigins ?? [])];
    const api = new HttpApi(this, 'Api', {
      // Named after the stack: each stage's API is told apart in the console.
      apiName: this.stackName,
      createDefaultStage: false,
      corsPreflight: corsOrigins.length
        ? {
            // The system description's CORS configuration, which the local gateway answers with too.
            allowOrigins: corsOrigins,
            allowHeaders: [...cors.allowHeaders],
            exposeHeaders: [...cors.exposeHeaders],
            allowMethods: cors.allowMethods.map((method) => CorsHttpMethod[method]),
            maxAge: Duration.seconds(cors.maxAgeSeconds),
          }
        : undefined,
    });
    const jwtAuthorizer = new HttpAuthorizer(this, 'JwtAuthorizer', {
      httpApi: api,
      type: HttpAuthorizerType.JWT,
      identitySource: ['$request.header.Authorization'],
      jwtIssuer: issuer!,
      jwtAudience: audience!,
    });
    const authorizer: IHttpRouteAuthorizer = { bind: () => ({ authorizerId: jwtAuthorizer.authorizerId, authorizationType: 'JWT' }) };
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: this.logRetention, removalPolicy: this.removalPolicy });
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
    // Each public route (the links of e-mails, the alert endpoints) has its own throttling: a flood
    // there is refused on that route and never takes the signed-in routes' share.
    (stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      publicRoutes().map((route) => [
        routeKeyOf(route),
        route.throttle === 'alerts'
          ? { ThrottlingRateLimit: config.alertThrottleRate, ThrottlingBurstLimit: config.alertThrottleBurst }
          : { ThrottlingRateLimit: config.publicThrottleRate, ThrottlingBurstLimit: config.publicThrottleBurst },
      ]),
    );
    // Links in e-mails carry this: the custom domain when one is given, else the execute-api URL.
    let url = `https://${api.apiId}.execute-api.${this.region}.${this.urlSuffix}`;
    if (config.apiDomain && config.apiCertificateArn) {
      const domainName = new DomainName(this, 'ApiDomain', {
        domainName: config.apiDomain,
        certificate: Certificate.fromCertificateArn(this, 'ApiCertificate', config.apiCertificateArn),
      });
      new ApiMapping(this, 'ApiDomainMapping', { api, domainName, stage });
      url = `https://${config.apiDomain}`;
      new CfnOutput(this, 'ApiDomainTarget', { value: domainName.regionalDomainName, description: `CNAME (or alias) ${config.apiDomain} to this` });
    }
    return { api, authorizer, accessLogs, stage, url };
  }

  /** Functions: one per route and worker, in the nested stack of their group, each with its alarms. */
  /** `consoleUrl`: the console's origin (the `consoleUrl` setting, else this stage's distribution), where the messages' incident links lead. */
  private serviceFunctions(table: Table, { senderEmail, phones }: StackParameters, { bus, configurationSet }: Messaging, api: Api, consoleUrl: string | undefined) {
    const config = this.config;
    const common: Record<string, string> = {
      [env.eventBusName]: bus.eventBusName,
      [env.senderEmail]: senderEmail,
      [env.sesConfigurationSet]: configurationSet.configurationSetName,
      [env.publicApiUrl]: api.url,
      // Explicitly empty without a console (warned below): the incident links stay the JSON API's.
      [env.consoleUrl]: consoleUrl ?? '',
      // SMS and voice (issue 43): every function that sends, or answers whether this deployment can,
      // reads the same four (the origination identity below, absent when not set up).
      [env.smsConfigurationSet]: phones.configurationSetName,
      [env.smsMaxPrice]: config.smsMaxPrice,
      [env.voiceMaxPricePerMinute]: config.voiceMaxPricePerMinute,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: this.metricsNamespace,
      POWERTOOLS_LOG_LEVEL: config.logLevel,
    };
    if (!consoleUrl) {
      Annotations.of(this).addWarningV2(
        'incident-service:no-console-url',
        'No console (console=false) and no consoleUrl context: the incident links of e-mails and Slack messages open the JSON API, not a console. Pass -c consoleUrl=https://<console origin>.',
      );
    }
    for (const description of allFunctions) {
      const isTrigger = description.name === workers.accountsPostConfirmation.name;
      if (isTrigger && config.jwtIssuer) continue; // (no user pool to trigger it)
      // The Cognito trigger lives beside its pool: the pool names it and it may be invoked by the pool
      // only, which across stacks would be a reference each way.
      const scope = isTrigger ? this : this.groupStack(functionGroup(description));
      const construct = new ServiceFunction(scope, toId(description.name), {
        description,
        table,
        logRetention: this.logRetention,
        logRemovalPolicy: this.removalPolicy,
        environment: { ...common, [env.smsOriginationIdentity]: originationIdentityIn(scope, phones) },
        reservedConcurrency: description.paging ? config.pagingConcurrency : undefined,
        // The monitoring system's way in keeps its name through any refactoring (issue 46 §3).
        functionName: description.name === workers.monitorCheck.name ? monitorCheckFunctionName(this.stackName) : undefined,
      });
      this.functionConstructs.set(description.name, construct);
      this.functions.set(description.name, construct.fn);
      this.functionMetricFilters(construct, description);
    }
  }

  /**
   * A function's failures and near-timeouts, counted from its log into the stage's two metrics (no
   * dimensions): two alarms watch every function of the stage (`functionAlarms`), where one alarm a
   * function and signal cost $0.10 each (docs/deployment.md#alarms). Metric filters cost nothing; their
   * metrics are billed only in the hours they have data.
   */
  private functionMetricFilters(construct: ServiceFunction, description: FunctionDescription) {
    new MetricFilter(construct, 'FailedFilter', {
      logGroup: construct.logGroup,
      metricNamespace: this.metricsNamespace,
      metricName: logMetrics.functionFailed,
      metricValue: '1',
      filterPattern: FilterPattern.anyTerm(...FUNCTION_FAILURE_TERMS),
    });
    // The invocation line every handler writes (functions/lib/observability.ts) carries its latency.
    const timeoutMs = (description.timeoutSeconds ?? functionDefaults.timeoutSeconds) * 1000;
    new MetricFilter(construct, 'NearTimeoutFilter', {
      logGroup: construct.logGroup,
      metricNamespace: this.metricsNamespace,
      metricName: logMetrics.functionNearTimeout,
      metricValue: '1',
      filterPattern: FilterPattern.numberValue('$.latency_ms', '>', timeoutMs * alarmThresholds.durationShareOfTimeout),
    });
  }

  /** Routes: each in its function's construct; the user pool's trigger. */
  private routes({ api, authorizer, stage }: Api, { userPool }: UserIdentity) {
    for (const route of routes) {
      new HttpRoute(this.functionConstructs.get(route.name)!, 'Route', {
        httpApi: api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration('Integration', this.fn(route.name)),
        authorizer: route.auth === 'jwt' ? authorizer : new HttpNoneAuthorizer(),
      });
    }
    // The stage's route settings name the public routes: they must exist first.
    for (const route of publicRoutes()) {
      const group = this.functionStacks.get(functionGroup(route));
      if (group) stage.node.addDependency(group);
    }
    if (userPool) {
      const accounts = this.fn(workers.accountsPostConfirmation.name);
      userPool.addTrigger(UserPoolOperation.POST_CONFIRMATION, accounts);
      // Sign-up off: users an administrator created never confirm a sign-up; their first sign-in makes the account record.
      if (!this.config.selfSignUp) userPool.addTrigger(UserPoolOperation.POST_AUTHENTICATION, accounts);
      // Sign-up for some domains only: refused before Cognito sends a code.
      const domains = this.config.allowedSignUpDomains;
      if (domains && !domains.includes('*')) {
        userPool.addTrigger(UserPoolOperation.PRE_SIGN_UP, accounts);
        accounts.addEnvironment(env.allowedSignUpDomains, domains.join(','));
      }
    }
  }

  /** The table stream's two readers (its limit): the outbox publisher and the alert processor. */
  private streamReaders(table: Table, { bus }: Messaging, deadLetters: DeadLetters) {
    // Stream → outbox publisher (only outbox inserts).
    const publisher = this.fn(workers.publisher.name);
    publisher.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        retryAttempts: 20,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(deadLetters.publisher),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.or(...workers.publisher.stream.eventNames),
            dynamodb: { NewImage: { type: { S: FilterRule.or(...workers.publisher.stream.itemTypes) } } },
          }),
        ],
      }),
    );
    bus.grantPutEventsTo(publisher);

    // Stream → alert processor (only new alert batches, issue 41 §3).
    // One batch (at most 100 alerts) an invocation; a failing one is bisected (alone already), retried,
    // then described in its alarmed on-failure queue.
    const alertProcessor = this.fn(workers.alertProcessor.name);
    alertProcessor.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 1,
        bisectBatchOnError: true,
        retryAttempts: 20,
        maxRecordAge: Duration.hours(24),
        parallelizationFactor: 4,
        onFailure: new SqsDlq(deadLetters.alertProcessor),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.or(...workers.alertProcessor.stream.eventNames),
            dynamodb: { NewImage: { type: { S: FilterRule.or(...workers.alertProcessor.stream.itemTypes) } } },
          }),
        ],
      }),
    );
  }

  /**
   * Rules: events to their targets, each with a dead-letter queue. EventBridge's own retries end in
   * the rule's dead-letter queue; once it has handed an event to a function (an asynchronous
   * invocation), failures of the function itself are retried by Lambda and then sent to the
   * function's on-failure queue. Both are alarmed.
   */
  private rules({ bus, defaultBus, configurationSet }: Messaging, deadLetters: DeadLetters) {
    for (const rule of eventRules) {
      const target = this.fn(rule.target);
      const fromSes = rule.from === 'ses';
      new Rule(this.functionConstructs.get(rule.target)!, `${toId(rule.name)}Rule`, {
        eventBus: fromSes ? defaultBus : bus,
        eventPattern: fromSes
          ? // Only the e-mails this stack sent (its configuration set), not the account's others.
            { source: [sesEvents.source], detailType: [...rule.detailTypes], detail: { mail: { tags: { 'ses:configuration-set': [configurationSet.configurationSetName] } } } }
          : { source: [busDescription.source], detailType: [...rule.detailTypes] },
        targets: [new LambdaFunction(target, { deadLetterQueue: deadLetters.rules.get(rule.name), retryAttempts: 8, maxEventAge: Duration.hours(24) })],
      });
    }
    // Periodic work (the heartbeat sweep): a scheduled rule each; a missed run is made up by the next.
    for (const rule of periodicRules) {
      new Rule(this.functionConstructs.get(rule.target)!, `${toId(rule.name)}Schedule`, {
        schedule: Schedule.rate(Duration.minutes(rule.everyMinutes)),
        targets: [new LambdaFunction(this.fn(rule.target), { deadLetterQueue: deadLetters.periodic.get(rule.name), retryAttempts: 2, maxEventAge: Duration.minutes(5) })],
      });
    }
    for (const [target, queue] of deadLetters.targets) {
      this.fn(target).configureAsyncInvoke({ onFailure: new SqsDestination(queue), retryAttempts: 2, maxEventAge: Duration.hours(6) });
    }
  }

  /**
   * E-mail: only the functions whose description declares `send-email` send (the notifier, person-notification,
   * shift-notices), and only from the sender address. In the SES sandbox SES also
   * authorizes against each recipient's identity, so the grant is on every identity, narrowed by the
   * From address.
   */
  private emailSending({ senderEmail }: StackParameters) {
    for (const sender of allFunctions.filter((description) => description.capabilities?.includes('send-email'))) {
      this.fn(sender.name).addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail'],
          resources: ['*'],
          conditions: { StringEquals: { 'ses:FromAddress': senderEmail } },
        }),
      );
    }
  }

  /** Escalation: one-time schedules invoking escalation-step, and person-notification for a person's delayed rules (through the role returned, which Scheduler assumes). */
  private escalationSchedules({ scheduleGroup }: Messaging, deadLetters: DeadLetters): Role {
    const escalationStep = this.fn(workers.escalationStep.name);
    escalationStep.configureAsyncInvoke({ onFailure: new SqsDestination(deadLetters.escalation), retryAttempts: 2 });
    const scheduling = this.fn(workers.escalationScheduler.name);
    const schedulerRole = new Role(this.functionConstructs.get(workers.escalationScheduler.name)!, 'EscalationSchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    });
    // A person's delayed notification rules (issue 43) invoke person-notification, and dead-letter into its
    // on-failure queue (it is a bus rule's target too).
    const personNotification = this.fn(workers.personNotification.name);
    const personNotificationFailures = deadLetters.targets.get(workers.personNotification.name)!;
    schedulerRole.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [escalationStep.functionArn, personNotification.functionArn] }));
    deadLetters.escalation.grantSendMessages(schedulerRole);
    personNotificationFailures.grantSendMessages(schedulerRole);
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
    scheduling.addEnvironment(env.escalationDlqArn, deadLetters.escalation.queueArn);
    scheduling.addEnvironment(env.personNotificationArn, personNotification.functionArn);
    scheduling.addEnvironment(env.personNotificationDlqArn, personNotificationFailures.queueArn);
    return schedulerRole;
  }

  /**
   * Webhook retries (issue 46 §5, `delayed-work.ts`): those due within 15 minutes through the retry
   * queue, to the second; later ones one-time schedules in their own group, invoking webhook-delivery (its own role).
   */
  private webhookRetries(deadLetters: DeadLetters, alarm: AddAlarm) {
    const delayed = { stack: this, fn: (name: string) => this.fn(name), deadLetterQueue: (name: string) => this.deadLetterQueue(name), alarm };
    serviceQueues(delayed);
    const scheduleGroup = webhookScheduleGroup(delayed, `${toId(workers.webhookDelivery.name)}FailedDlq`);
    const webhookDelivery = this.fn(workers.webhookDelivery.name);
    const webhookRetryRole = new Role(this.functionConstructs.get(workers.webhookDelivery.name)!, 'WebhookRetrySchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    });
    webhookRetryRole.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [webhookDelivery.functionArn] }));
    webhookDelivery.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        resources: [`arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${scheduleGroup.name}/whk-*`],
      }),
    );
    webhookDelivery.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [webhookRetryRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    webhookDelivery.addEnvironment(env.schedulerGroup, scheduleGroup.name!);
    webhookDelivery.addEnvironment(env.schedulerRoleArn, webhookRetryRole.roleArn);
    // A retry the scheduler cannot hand over lands in the worker's own on-failure queue.
    const webhookFailures = deadLetters.targets.get(workers.webhookDelivery.name)!;
    webhookFailures.grantSendMessages(webhookRetryRole);
    webhookDelivery.addEnvironment(env.webhookRetryDlqArn, webhookFailures.queueArn);
  }

  /**
   * Paging by phone (issue 43 §5, `phones.ts`): the configuration set and its receipts, the replies'
   * topic, the send grant, the alarms. And `sms-inbound`'s `manage-schedules`: a reply `<n>e`
   * escalates now through a one-time schedule of the next step (`esc-now-*`, shared/paging/escalate-now.ts),
   * invoking escalation-step through the escalation role, like the steps' own schedules.
   */
  private phones({ phones }: StackParameters, { scheduleGroup }: Messaging, deadLetters: DeadLetters, escalationRole: Role, alarm: AddAlarm) {
    phonePaging(
      {
        stack: this,
        removalPolicy: this.removalPolicy,
        fn: (name) => this.fn(name),
        deadLetterQueue: (name) => this.deadLetterQueue(name),
        alarm,
        serviceMetric: (name, period) => this.serviceMetric(name, period),
        dailySpendAlarm: this.config.phoneDailySpendAlarm,
      },
      phones,
    );
    // Escalating now (an SMS reply `<n>e`, and `POST /api/incidents/{id}/escalate`, issue 44): the routes that may create schedules do only this.
    const escalatesNow = [workers.smsInbound.name, ...routes.filter((route) => route.capabilities?.includes('manage-schedules')).map((route) => route.name)];
    for (const name of escalatesNow) {
      const fn = this.fn(name);
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['scheduler:CreateSchedule'],
          resources: [`arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${scheduleGroup.name}/esc-now-*`],
        }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [escalationRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      );
      fn.addEnvironment(env.schedulerGroup, scheduleGroup.name!);
      fn.addEnvironment(env.schedulerRoleArn, escalationRole.roleArn);
      fn.addEnvironment(env.escalationStepArn, this.fn(workers.escalationStep.name).functionArn);
      fn.addEnvironment(env.escalationDlqArn, deadLetters.escalation.queueArn);
    }
    // (The person-notification worker's one-time schedules join here at merge: a role Scheduler
    // assumes that may invoke only person-notification, CreateSchedule on its names, as above.)
  }

  /** The monitoring system may invoke monitor-check, and nothing else: the policy it is given. */
  private monitorCheckInvokePolicy(): ManagedPolicy {
    return new ManagedPolicy(this.functionConstructs.get(workers.monitorCheck.name)!, 'MonitorCheckInvokePolicy', {
      description: 'Lets the monitoring system invoke the monitor-check function, and nothing else',
      statements: [new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.fn(workers.monitorCheck.name).functionArn] })],
    });
  }

  /** A metric the functions emit (EMF), in this stage's namespace, with the dimension they all carry. */
  private serviceMetric(metricName: MetricName, period: Duration): Metric {
    return new Metric({ namespace: this.metricsNamespace, metricName, dimensionsMap: { service: SERVICE_NAME }, statistic: 'Sum', period });
  }

  /** Operations: the alarms of the whole stage (docs/deployment.md#alarms says how each covers what). */
  private stageAlarms(alarm: AddAlarm, table: Table, messaging: Messaging, api: Api, deadLetters: DeadLetters) {
    this.functionAlarms(alarm);
    this.failureAlarms(alarm, api, deadLetters);
    this.pagingAlarms(alarm, messaging);
    this.awsServiceAlarms(alarm, table, api);
  }

  /**
   * Every function of the stage: any failed invocation (2 of 3: one failure among retries is noise; a
   * lost event is the dead-letter queues' alarm), any invocation near its timeout (2 of 3), from the log
   * metric filters; and throttles of the paging path (2 of 3), where a throttled invocation is a late
   * page. Elsewhere a throttle shows where it hurts: a route's as the API's 5xx, an asynchronous
   * invocation's as a dead letter once Lambda's retries run out, a stream reader's as its iterator age.
   */
  private functionAlarms(alarm: AddAlarm) {
    const logMetric = (metricName: string) => new Metric({ namespace: this.metricsNamespace, metricName, statistic: 'Sum', period: fiveMinutes });
    alarm(
      this,
      'FunctionFailedAlarm',
      logMetric(logMetrics.functionFailed),
      'A function of this stage failed (threw, timed out, crashed or did not start) in 2 of the last three 5-minute periods: which one and why, docs/deployment.md#alarms',
      { threshold: alarmThresholds.functionFailures, ...twoOfThree },
    );
    alarm(
      this,
      'FunctionNearTimeoutAlarm',
      logMetric(logMetrics.functionNearTimeout),
      `A function of this stage ran longer than ${alarmThresholds.durationShareOfTimeout * 100}% of its timeout in 2 of the last three 5-minute periods: which one, docs/deployment.md#alarms`,
      twoOfThree,
    );
    const paging = allFunctions.filter((description) => description.paging && this.functions.has(description.name));
    chunks(paging, MAX_ALARM_METRICS).forEach((part, index) => {
      alarm(
        this,
        `PagingThrottles${index ? index + 1 : ''}Alarm`,
        new MathExpression({
          expression: `SUM([${part.map((_, at) => `t${at}`).join(', ')}])`,
          usingMetrics: Object.fromEntries(part.map((description, at) => [`t${at}`, this.fn(description.name).metricThrottles({ period: fiveMinutes, statistic: 'Sum', label: description.name })])),
          period: fiveMinutes,
          label: 'Paging path throttles',
        }),
        `A paging-path function (${part.map((description) => description.name).join(', ')}) was throttled in 2 of the last three 5-minute periods: pages are late (pagingConcurrency, the account's concurrency)`,
        twoOfThree,
      );
    });
  }

  /** Requests and events that failed: the API's share of 5xx, and every dead-letter queue by family. */
  private failureAlarms(alarm: AddAlarm, { api }: Api, deadLetters: DeadLetters) {
    alarm(
      this,
      'Api5xxAlarm',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { errors: api.metricServerError({ period: fiveMinutes, statistic: 'Sum' }), requests: api.metricCount({ period: fiveMinutes, statistic: 'Sum' }) },
        period: fiveMinutes,
        label: 'API 5xx (%)',
      }),
      `The API answered more than ${alarmThresholds.api5xxPercent}% of requests with 5xx in 2 of the last three 5-minute periods`,
      { threshold: alarmThresholds.api5xxPercent, ...twoOfThree },
    );
    // A dead letter is already a lost event (a page, perhaps): a family alarms at once when any of its
    // queues holds one (the sum of their depths); and again if one lies there a day (the oldest's age).
    for (const [family, queues] of deadLetterFamilies(this.deadLetterQueues, deadLetters)) {
      chunks(queues, MAX_ALARM_METRICS).forEach((part, index) => {
        const id = `${family}${index ? index + 1 : ''}`;
        const names = part.map(([name]) => name).join(', ');
        const math = (fn: 'SUM' | 'MAX', metric: (queue: Queue, name: string) => IMetric, label: string) =>
          new MathExpression({
            expression: `${fn}([${part.map((_, at) => `q${at}`).join(', ')}])`,
            usingMetrics: Object.fromEntries(part.map(([name, queue], at) => [`q${at}`, metric(queue, name)])),
            period: fiveMinutes,
            label,
          });
        alarm(
          this,
          `${id}DeadLettersAlarm`,
          math('SUM', (queue, name) => queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum', label: name }), `${id} dead letters`),
          `A dead-letter queue of ${names} holds an event given up after its retries (the alarm's graph names the queue; replay: docs/deployment.md)`,
        );
        alarm(
          this,
          `${id}DeadLetterAgeAlarm`,
          math('MAX', (queue, name) => queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum', label: name }), `${id} oldest dead letter (s)`),
          `A dead letter of ${names} has waited more than a day for its replay (messages are deleted after 14 days)`,
          { threshold: alarmThresholds.deadLetterAgeSeconds },
        );
      });
    }
  }

  /** The paging path late or lost: the stream readers' lag, bounced escalation e-mails, nobody on call, the scheduler's drops. */
  private pagingAlarms(alarm: AddAlarm, { scheduleGroup }: Messaging) {
    alarm(
      this,
      'OutboxIteratorAgeAlarm',
      this.fn(workers.publisher.name).metric('IteratorAge', { period: fiveMinutes, statistic: 'Maximum' }),
      'The outbox publisher is more than 5 minutes behind the table stream (events are late)',
      { threshold: 5 * 60 * 1000 },
    );
    alarm(
      this,
      'AlertProcessorIteratorAgeAlarm',
      this.fn(workers.alertProcessor.name).metric('IteratorAge', { period: fiveMinutes, statistic: 'Maximum' }),
      'The alert processor is more than 5 minutes behind the table stream (alerts taken are not applied yet)',
      { threshold: 5 * 60 * 1000 },
    );
    alarm(
      this,
      'EscalationTargetBouncedAlarm',
      this.serviceMetric('EscalationTargetBounced', fiveMinutes),
      'An escalation e-mail bounced: someone on call was not paged (see the email-feedback log)',
    );
    alarm(
      this,
      'ScheduleNobodyOnCallAlarm',
      this.serviceMetric('ScheduleNobodyOnCall', fiveMinutes),
      'An escalation page found nobody on call in a schedule it targets (see the escalation-step log): fill the gap in the schedule',
    );
    // EventBridge Scheduler gave up on an escalation step, and could not even park it: a lost page each.
    const schedulerMetric = (metricName: string) =>
      new Metric({ namespace: 'AWS/Scheduler', metricName, dimensionsMap: { ScheduleGroup: scheduleGroup.name! }, statistic: 'Sum', period: fiveMinutes });
    alarm(
      this,
      'SchedulerDroppedAlarm',
      schedulerMetric('InvocationDroppedCount'),
      'EventBridge Scheduler dropped an escalation step or a delayed notification (its retries ran out): a page was not sent; the dead letter in EscalationStepDlq or PersonNotificationFailedDlq names the schedule (attribute X-Amz-Scheduler-Schedule-Arn)',
    );
    alarm(
      this,
      'SchedulerDeadLetterFailedAlarm',
      schedulerMetric('InvocationsFailedToBeSentToDeadLetterCount'),
      "EventBridge Scheduler could not put a failed escalation step into its dead-letter queue: a page was lost without a trace",
    );
  }

  /** What the AWS services report: the table's throttles and system errors, the public routes' 429s, SES's reputation. */
  private awsServiceAlarms(alarm: AddAlarm, table: Table, { accessLogs }: Api) {
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
    alarm(this, 'TableThrottlesAlarm', table.metricThrottledRequestsForOperations({ period: fiveMinutes, operations }), 'DynamoDB throttled requests to the table in 2 of the last three 5-minute periods', twoOfThree);
    alarm(this, 'TableSystemErrorsAlarm', table.metricSystemErrorsForOperations({ period: fiveMinutes, operations }), 'DynamoDB answered requests to the table with system errors in 2 of the last three 5-minute periods', twoOfThree);
    // Floods on the public routes: their 429s, counted from the access log, in the stage's namespace.
    const publicThrottled = new MetricFilter(this, 'PublicThrottledFilter', {
      logGroup: accessLogs,
      metricNamespace: this.metricsNamespace,
      metricName: logMetrics.publicRouteThrottled,
      metricValue: '1',
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.status', '=', '429'),
        // API Gateway's bucket, which never calls the function ("-"), not a key's own rate in the table (issue 46 §4).
        FilterPattern.stringValue('$.integrationLatency', '=', '-'),
        FilterPattern.any(...publicRoutes().map((route) => FilterPattern.stringValue('$.routeKey', '=', routeKeyOf(route)))),
      ),
    });
    alarm(
      this,
      'PublicThrottledAlarm',
      publicThrottled.metric({ period: fiveMinutes, statistic: 'Sum' }),
      `The public routes (links in e-mails) answered more than ${alarmThresholds.publicThrottled} requests 429 in 5 minutes: a flood, or limits too low (publicThrottleRate)`,
      { threshold: alarmThresholds.publicThrottled },
    );
    // SES's account reputation (what SES reviews), well before its review thresholds (5 % bounces, 0.1 % complaints).
    const sesReputation = (metricName: string) => new Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.hours(1) });
    alarm(this, 'SesBounceRateAlarm', sesReputation('Reputation.BounceRate'), `The account's SES bounce rate is above ${alarmThresholds.sesBounceRate * 100}% (SES reviews the account at 5%)`, {
      threshold: alarmThresholds.sesBounceRate,
    });
    alarm(this, 'SesComplaintRateAlarm', sesReputation('Reputation.ComplaintRate'), `The account's SES complaint rate is above ${alarmThresholds.sesComplaintRate * 100}% (SES reviews the account at 0.1%)`, {
      threshold: alarmThresholds.sesComplaintRate,
    });
  }

  /** Outputs: what a deployer reads (and publishes in DNS). */
  private outputs({ userPool, userPoolClient }: UserIdentity, { bus, senderIdentity }: Messaging, api: Api, table: Table, alarmTopic: Topic, invokePolicy: ManagedPolicy) {
    const config = this.config;
    new CfnOutput(this, 'ApiUrl', { value: api.url });
    if (userPool && userPoolClient) {
      new CfnOutput(this, 'UserPoolId', { value: userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: userPoolClient.userPoolClientId });
    }
    new CfnOutput(this, 'MonitorCheckFunctionArn', { value: this.fn(workers.monitorCheck.name).functionArn });
    new CfnOutput(this, 'MonitorCheckFunctionName', {
      value: monitorCheckFunctionName(this.stackName),
      description: 'What the monitoring system invokes: always <stack name>-monitor-check',
    });
    new CfnOutput(this, 'MonitorCheckInvokePolicyArn', { value: invokePolicy.managedPolicyArn });
    new CfnOutput(this, 'EventBusName', { value: bus.eventBusName });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarmTopic.topicArn });
    // What to publish in DNS for a domain sender: the three DKIM CNAMEs, and a custom MAIL FROM's MX and SPF.
    if (senderIdentity && config.senderDomain) {
      senderIdentity.dkimRecords.forEach((record, index) =>
        new CfnOutput(this, `DkimRecord${index + 1}`, { value: Fn.join(' ', [record.name, 'CNAME', record.value]), description: 'Publish in DNS: SES verifies the domain and signs with DKIM' }),
      );
    }
    if (config.mailFromDomain) {
      new CfnOutput(this, 'MailFromMxRecord', { value: `${config.mailFromDomain} MX 10 feedback-smtp.${this.region}.amazonses.com`, description: 'Publish in DNS: the custom MAIL FROM domain' });
      new CfnOutput(this, 'MailFromSpfRecord', { value: `${config.mailFromDomain} TXT "v=spf1 include:amazonses.com ~all"`, description: 'Publish in DNS: SPF of the custom MAIL FROM domain' });
    }
  }

  /** A function of the description, by name (created by `serviceFunctions`). */
  private fn(name: string): ServiceLambda {
    return this.functions.get(name)!;
  }

  /** The nested stack of a function group, created on first use. */
  private groupStack(group: string): NestedStack {
    let stack = this.functionStacks.get(group);
    if (!stack) {
      stack = new NestedStack(this, `${toId(group)}Functions`, { description: `Incident service: the ${group} functions, their routes, rules and alarms` });
      this.functionStacks.set(group, stack);
    }
    return stack;
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

/** `items` in as few runs of at most `size` as can be, of even lengths, in order. */
const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const count = Math.ceil(items.length / size);
  const length = Math.ceil(items.length / Math.max(count, 1));
  return Array.from({ length: count }, (_, index) => items.slice(index * length, (index + 1) * length));
};

/**
 * The dead-letter and on-failure queues by family, each alarmed as one (`failureAlarms`): `Streams`
 * (the table stream's readers), `Delivery` (events the bus or a periodic rule could not hand to their
 * target), `Workers` (a worker's own failures after Lambda's retries, escalation steps, SNS-invoked
 * workers). A queue of no known family (a new kind) is a `Workers` one.
 */
function deadLetterFamilies(queues: ReadonlyMap<string, Queue>, deadLetters: DeadLetters): Map<string, [string, Queue][]> {
  const delivery = new Set([...deadLetters.rules.values(), ...deadLetters.periodic.values()]);
  const streams = new Set([deadLetters.publisher, deadLetters.alertProcessor]);
  const families = new Map<string, [string, Queue][]>([
    ['Streams', []],
    ['Delivery', []],
    ['Workers', []],
  ]);
  for (const [name, queue] of queues) families.get(streams.has(queue) ? 'Streams' : delivery.has(queue) ? 'Delivery' : 'Workers')!.push([name, queue]);
  return families;
}

/** `incidents-list` → `IncidentsList`. */
export const toId = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
