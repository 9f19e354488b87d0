/**
 * Paging by phone on AWS (issue 43 §5): AWS End User Messaging SMS and Voice v2.
 *
 * The stack does not own the phone number (registering one takes days to weeks, and AWS reviews it):
 * the `SmsOriginationIdentity` parameter names it — a phone number's or a pool's ARN, given once and
 * kept by later deploys; empty (the default) leaves SMS and voice off, and the functions refuse SMS and
 * voice methods. What the stack does own:
 * - the configuration set `<stack>-sms`, every SMS and call sent with it, whose SNS event destination
 *   sends the final delivery events (those the receipts worker maps) to `sms-receipts`;
 * - the topic the number's two-way channel publishes replies to (`SmsRepliesTopicArn`), which
 *   invokes `sms-inbound`;
 * - both topics encrypted with a key of their own, which End User Messaging may use (this account
 *   only), and whose policies let it publish from this account only (receipts: from this
 *   configuration set only);
 * - each subscription with a dead-letter queue, and each worker with its on-failure queue: one
 *   queue per worker holds both (each alarmed, `deadLetters`);
 * - `sms-voice:SendTextMessage` and `SendVoiceMessage` for the functions that declare `send-sms-voice`,
 *   on the origination identity and the configuration set only — a policy that exists only when the
 *   parameter is given (a CloudFormation condition), so nothing ever names an empty ARN;
 * - the alarms on failed deliveries and on the day's spend (the receipts worker's metrics).
 */
import { Aws, CfnCondition, CfnOutput, CfnParameter, Duration, Fn, Names, NestedStack, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnPolicy, Policy, PolicyStatement, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as ServiceLambda } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { CfnConfigurationSet } from 'aws-cdk-lib/aws-smsvoice';
import { Subscription, SubscriptionProtocol, Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { receiptEventTypes } from '../../shared/phones/receipts.js';
import { allFunctions, workers, type Capability } from '../../shared/system.js';
import type { MetricName } from '../../shared/platform/observability/metrics.js';

/**
 * What `SmsOriginationIdentity` accepts: empty (SMS and voice off), or the ARN of a phone number or a
 * pool of End User Messaging SMS and Voice v2 (its id after `phone-number/` or `pool/`).
 */
export const ORIGINATION_IDENTITY_PATTERN = '^$|^arn:aws[a-z-]*:sms-voice:[a-z0-9-]+:[0-9]{12}:(phone-number|pool)/[A-Za-z0-9_-]+$';

/** The capability that is granted here (shared/system.ts). */
const SEND: Capability = 'send-sms-voice';

/** The functions that send SMS and calls: those whose description declares `send-sms-voice`. */
export const smsVoiceSenders = () => allFunctions.filter((description) => description.capabilities?.includes(SEND));

/** The stage's phone parameter and its condition (created with the other parameters). */
export interface PhoneParameters {
  /** The ARN, or empty: SMS and voice off. */
  originationIdentity: string;
  /** True when an origination identity is given. */
  configured: CfnCondition;
  /** The configuration set's name (`<stack>-sms`), known before it is created. */
  configurationSetName: string;
}

export function phoneParameters(stack: Stack): PhoneParameters {
  const originationIdentity = new CfnParameter(stack, 'SmsOriginationIdentity', {
    type: 'String',
    default: '',
    description:
      'SMS and voice: the ARN of the End User Messaging phone number or pool they leave from (arn:aws:sms-voice:<region>:<account>:phone-number/… or pool/…). Empty: SMS and voice are off. Given once: later deploys keep it.',
    allowedPattern: ORIGINATION_IDENTITY_PATTERN,
    constraintDescription: 'SmsOriginationIdentity must be empty, or the ARN of an End User Messaging phone number or pool (arn:aws:sms-voice:<region>:<account>:phone-number/<id> or pool/<id>)',
  }).valueAsString;
  const configured = new CfnCondition(stack, 'SmsConfigured', { expression: Fn.conditionNot(Fn.conditionEquals(originationIdentity, '')) });
  return { originationIdentity, configured, configurationSetName: `${stack.stackName}-sms` };
}

/** The value a nested stack is handed when SMS is off: CloudFormation refuses an empty value for a nested stack's parameter. */
const OFF = 'none';

/**
 * `SMS_ORIGINATION_IDENTITY` as a function in `scope`'s stack reads it: the ARN when one is given,
 * otherwise no variable at all (the functions read absent or empty as "not set up"). A nested stack
 * gets the identity as a parameter of its own, handed `none` rather than an empty value (which
 * CloudFormation refuses for a parameter without a default, "must have values"), and a condition of
 * its own on it.
 */
export function originationIdentityIn(scope: Construct, parameters: PhoneParameters): string {
  const stack = Stack.of(scope);
  if (!NestedStack.isNestedStack(stack)) return Fn.conditionIf(parameters.configured.logicalId, parameters.originationIdentity, Aws.NO_VALUE).toString();
  let passed = stack.node.tryFindChild('SmsOriginationIdentity') as CfnParameter | undefined;
  if (!passed) {
    passed = new CfnParameter(stack, 'SmsOriginationIdentity', { type: 'String', description: `The stack's SmsOriginationIdentity, or ${OFF} (SMS and voice off)` });
    new CfnCondition(stack, 'SmsConfigured', { expression: Fn.conditionNot(Fn.conditionEquals(passed.valueAsString, OFF)) });
    stack.setParameter('SmsOriginationIdentity', Fn.conditionIf(parameters.configured.logicalId, parameters.originationIdentity, OFF).toString());
  }
  return Fn.conditionIf('SmsConfigured', passed.valueAsString, Aws.NO_VALUE).toString();
}

/** What the phone section needs of the stack. */
export interface PhoneScope {
  stack: Stack;
  removalPolicy: RemovalPolicy;
  fn(name: string): ServiceLambda;
  /** A new dead-letter queue of the stage (alarmed with the others). */
  deadLetterQueue(name: string): Queue;
  /** An alarm that says when it fires and when it clears (the stage's `alarm`). */
  alarm(scope: Construct, alarmId: string, metric: Metric, description: string, options?: { threshold?: number }): unknown;
  /** A metric the functions emit (EMF), in the stage's own namespace (`metricsNamespaceOf`), summed over `period`. */
  serviceMetric(metricName: MetricName, period: Duration): Metric;
  /** The USD a day of SMS and calls may cost before its alarm fires (`phoneDailySpendAlarm`). */
  dailySpendAlarm: number;
}

export interface PhoneResources {
  configurationSet: CfnConfigurationSet;
  receiptsTopic: Topic;
  repliesTopic: Topic;
  /** The send grant (present only when `SmsConfigured`). */
  sendPolicy: Policy;
}

export function phonePaging(scope: PhoneScope, parameters: PhoneParameters): PhoneResources {
  const { stack } = scope;
  const fromThisAccount = { 'aws:SourceAccount': stack.account };
  const configurationSetArn = stack.formatArn({ service: 'sms-voice', resource: 'configuration-set', resourceName: parameters.configurationSetName });

  // End User Messaging may publish to KMS-encrypted topics when the key lets it (this account's
  // End User Messaging resources only): https://docs.aws.amazon.com/sms-voice/latest/userguide/two-way-sms-iam-policy-auto.html
  const key = new Key(stack, 'PhoneTopicsKey', {
    description: 'Encrypts the SMS receipts and replies topics; End User Messaging may use it to publish',
    enableKeyRotation: true,
    removalPolicy: scope.removalPolicy,
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('sms-voice.amazonaws.com')],
      actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
      resources: ['*'],
      conditions: { StringEquals: fromThisAccount, ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:sms-voice:${Aws.REGION}:${Aws.ACCOUNT_ID}:*` } },
    }),
  );

  // Delivery receipts: the configuration set's event destination, from this configuration set only.
  const receiptsTopic = new Topic(stack, 'SmsReceipts', { enforceSSL: true, masterKey: key });
  receiptsTopic.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('sms-voice.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [receiptsTopic.topicArn],
      conditions: { StringEquals: fromThisAccount, ArnLike: { 'aws:SourceArn': configurationSetArn } },
    }),
  );
  // Replies: the number's two-way channel (set on the number, which the stack does not own), from this account only.
  const repliesTopic = new Topic(stack, 'SmsReplies', { enforceSSL: true, masterKey: key });
  repliesTopic.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('sms-voice.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [repliesTopic.topicArn],
      conditions: { StringEquals: fromThisAccount, ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:sms-voice:${Aws.REGION}:${Aws.ACCOUNT_ID}:*` } },
    }),
  );

  const configurationSet = new CfnConfigurationSet(stack, 'SmsConfiguration', {
    configurationSetName: parameters.configurationSetName,
    eventDestinations: [
      {
        eventDestinationName: 'receipts',
        enabled: true,
        // The final events the receipts worker maps, not TEXT_ALL / VOICE_ALL: queued, pending, ringing…
        // would each be a delivery and an invocation that changes nothing.
        matchingEventTypes: [...receiptEventTypes],
        snsDestination: { topicArn: receiptsTopic.topicArn },
      },
    ],
  });
  // The topic's policy and key must let End User Messaging publish before the destination names it.
  configurationSet.node.addDependency(receiptsTopic, key);

  // Each topic invokes its worker (asynchronously): SNS's retries for Lambda, then the subscription's
  // dead-letter queue; the worker's own failures: Lambda's 2 retries, then its on-failure queue.
  // One queue per worker holds both (a topic's message, or Lambda's invocation record).
  for (const [topic, worker] of [
    [repliesTopic, workers.smsInbound.name],
    [receiptsTopic, workers.smsReceipts.name],
  ] as const) {
    const fn = scope.fn(worker);
    const failed = scope.deadLetterQueue(`${toId(worker)}Failed`);
    // (As LambdaSubscription makes it, in the function's scope, without its dependency of the
    // function's nested stack on the topic's, which is its parent: CDK refuses that one.)
    fn.addPermission(`AllowInvoke:${Names.nodeUniqueId(topic.node)}`, { sourceArn: topic.topicArn, principal: new ServicePrincipal('sns.amazonaws.com') });
    new Subscription(fn, topic.node.id, { topic, endpoint: fn.functionArn, protocol: SubscriptionProtocol.LAMBDA, deadLetterQueue: failed });
    fn.configureAsyncInvoke({ onFailure: new SqsDestination(failed), retryAttempts: 2, maxEventAge: Duration.hours(6) });
  }

  // The send grant: the origination identity and the configuration set, nothing else; only when given.
  const senders = smsVoiceSenders().map((description) => scope.fn(description.name).role!);
  const sendPolicy = new Policy(stack, 'SmsVoiceSendPolicy', {
    statements: [
      new PolicyStatement({
        actions: ['sms-voice:SendTextMessage', 'sms-voice:SendVoiceMessage'],
        resources: [parameters.originationIdentity, configurationSetArn],
      }),
    ],
    roles: senders as IRole[],
  });
  (sendPolicy.node.defaultChild as CfnPolicy).cfnOptions.condition = parameters.configured;

  // Alarms: a failed SMS or call (someone was perhaps not reached), and the day's spend.
  const { serviceMetric } = scope;
  scope.alarm(
    stack,
    'PhoneMessageFailedAlarm',
    serviceMetric('PhoneMessageFailed', Duration.minutes(5)),
    'An SMS or call failed (a page, a verification code or an SMS reply): someone was perhaps not reached (the sms-receipts log says which message and why; a page shows it on its incident timeline)',
  );
  scope.alarm(
    stack,
    'PhoneSpendAlarm',
    serviceMetric('PhoneSpendUSD', Duration.days(1)),
    `SMS and calls cost more than ${scope.dailySpendAlarm} USD today (UTC), from their delivery receipts: a paging storm, or messages to expensive destinations`,
    { threshold: scope.dailySpendAlarm },
  );

  new CfnOutput(stack, 'SmsRepliesTopicArn', {
    value: repliesTopic.topicArn,
    description: "Point the number's two-way channel here: aws pinpoint-sms-voice-v2 update-phone-number --phone-number-id <id> --two-way-enabled --two-way-channel-arn <this>",
  });
  new CfnOutput(stack, 'SmsConfigurationSetName', { value: parameters.configurationSetName, description: 'Every SMS and call is sent with this configuration set (its receipts reach sms-receipts)' });
  return { configurationSet, receiptsTopic, repliesTopic, sendPolicy };
}

/** `sms-inbound` → `SmsInbound`. */
const toId = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
