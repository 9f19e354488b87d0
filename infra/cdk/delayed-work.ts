/**
 * Work sent on later (issue 46 §5), apart from the stack's sections to keep them small:
 * - the system's queues (`queues` in shared/system.ts): an SQS queue each, delaying each message to the
 *   second (at most 15 minutes), consumed by its worker through an event source mapping (one message an
 *   invocation), with a dead-letter queue after `maxReceiveCount` receives (alarmed with every
 *   dead-letter queue of the stage) and `sqs:SendMessage` for its producers only;
 * - the webhook retries' own schedule group (retries due beyond 15 minutes), so that EventBridge
 *   Scheduler's drops are counted apart from the escalation group's and the alarm names what was dropped.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as ServiceLambda } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { queues } from '../../shared/system.js';

type AddAlarm = (scope: Construct, alarmId: string, metric: IMetric, description: string, options?: { threshold?: number; breaching?: number; of?: number }) => Alarm;

/** `webhook-retries` → `WebhookRetries`. */
const idOf = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());

export interface DelayedWorkContext {
  stack: Stack;
  fn: (name: string) => ServiceLambda;
  /** A dead-letter queue of the stage (alarmed with the others). */
  deadLetterQueue: (name: string) => Queue;
  alarm: AddAlarm;
}

/** The system's queues, by name: each with its dead letters, its consumer's mapping and its producers' grant. */
export function serviceQueues({ stack, fn, deadLetterQueue }: DelayedWorkContext): Map<string, Queue> {
  const created = new Map<string, Queue>();
  for (const description of Object.values(queues)) {
    const id = idOf(description.name);
    const deadLetters = deadLetterQueue(`${id}Queue`);
    const queue = new Queue(stack, `${id}Queue`, {
      visibilityTimeout: Duration.seconds(description.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: description.maxReceiveCount },
    });
    // One message an invocation: a failure returns that message alone (after its visibility timeout).
    fn(description.consumer).addEventSource(new SqsEventSource(queue, { batchSize: 1 }));
    for (const producer of description.producers) {
      queue.grantSendMessages(fn(producer));
      fn(producer).addEnvironment(description.urlEnv, queue.queueUrl);
    }
    created.set(description.name, queue);
  }
  return created;
}

/**
 * The webhook retries' schedule group (`<stack>-webhooks`), and one alarm on what Scheduler gave up
 * in it: an invocation dropped after its retries, or one it could not even put in the dead-letter
 * queue. Its name and description say what was lost (a webhook retry, not a page) and where the
 * schedule's name is (the dead letter's `X-Amz-Scheduler-Schedule-Arn` attribute).
 */
export function webhookScheduleGroup({ stack, alarm }: DelayedWorkContext, failuresQueue: string): CfnScheduleGroup {
  const group = new CfnScheduleGroup(stack, 'WebhookRetrySchedules', { name: `${stack.stackName}-webhooks` });
  const metric = (metricName: string) =>
    new Metric({ namespace: 'AWS/Scheduler', metricName, dimensionsMap: { ScheduleGroup: group.name! }, statistic: 'Sum', period: Duration.minutes(5) });
  alarm(
    stack,
    'WebhookRetryDroppedAlarm',
    new MathExpression({
      expression: 'dropped + unparked',
      usingMetrics: { dropped: metric('InvocationDroppedCount'), unparked: metric('InvocationsFailedToBeSentToDeadLetterCount') },
      period: Duration.minutes(5),
      label: 'Webhook retries dropped by EventBridge Scheduler',
    }),
    `EventBridge Scheduler dropped a webhook retry (a schedule whk-<message>-<attempt> of group ${group.name}, its retries ran out): the message waits in its webhook's queue; ` +
      `the dead letter in ${failuresQueue} names the schedule (attribute X-Amz-Scheduler-Schedule-Arn); redeliver the message (POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver) or replay the dead letter`,
  );
  return group;
}
