/**
 * The environment the functions find locally, in whichever thread they run: the AWS SDK pointed at
 * DynamoDB Local and at this runtime (events, scheduler, Lambda, SES), with fixed local credentials
 * so that a developer's real AWS credentials are never used, and the settings the stack gives the
 * functions on AWS.
 */
import { env, eventBus, queues, scheduleGroup, TABLE_NAME_ENV, workers } from '../../../shared/system.js';
import { functionArn } from '../aws/functions.js';
import { LOCAL_ORIGINATION_NUMBER, LOCAL_SMS_CONFIGURATION_SET } from '../aws/phones.js';

/** The name e-mails are sent with locally (SES's configuration set on AWS). */
const LOCAL_CONFIGURATION_SET = 'incident-service-local';

export function useLocalAws(dynamodbEndpoint: string, tableName: string) {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamodbEndpoint;
  process.env.AWS_ENDPOINT_URL_DYNAMODB_STREAMS = dynamodbEndpoint;
  process.env.AWS_REGION = 'local';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // As Lambda sets it. Locally all functions share one process, so only the first invocation after start (or after `newSandbox()`) is a cold start.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  process.env[TABLE_NAME_ENV] = tableName;
}

/**
 * The other AWS services: this runtime (events, scheduler, lambda, and SES in front of the local
 * mailbox); and the ports of this machine webhooks may reach, those the user named (never the port
 * these APIs answer on, even when the system happened to pick a named one).
 */
export function useLocalServices(runtimeUrl: string, publicUrl: string, webhookPorts: readonly number[], phonesUrl: string, consoleUrl: string) {
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_SCHEDULER = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_LAMBDA = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_SES = runtimeUrl;
  process.env.AWS_ENDPOINT_URL_SQS = runtimeUrl;
  // Each queue's URL, as SQS names them (the local queues take the name from its last segment).
  for (const queue of Object.values(queues)) process.env[queue.urlEnv] = `${runtimeUrl.replace(/\/+$/, '')}/000000000000/${queue.name}`;
  // End User Messaging SMS and Voice v2 (the SDK's service id "Pinpoint SMS Voice V2"): the phone
  // inbox, which the gateway's thread keeps (the background's functions send there too). SMS and
  // voice work out of the box locally: the runtime's own origination number and configuration set.
  process.env.AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2 = phonesUrl;
  process.env[env.smsOriginationIdentity] = LOCAL_ORIGINATION_NUMBER;
  process.env[env.smsConfigurationSet] = LOCAL_SMS_CONFIGURATION_SET;
  process.env[env.smsMaxPrice] = '0.10';
  process.env[env.voiceMaxPricePerMinute] = '0.10';
  process.env[env.sesConfigurationSet] = LOCAL_CONFIGURATION_SET;
  process.env[env.eventBusName] = eventBus.name;
  process.env[env.senderEmail] ??= 'incidents@example.com';
  process.env[env.publicApiUrl] = publicUrl;
  // The console's origin (the runtime's, served or not): the incident links of Slack messages and e-mails open it.
  process.env[env.consoleUrl] = consoleUrl;
  process.env[env.schedulerGroup] = scheduleGroup;
  process.env[env.schedulerRoleArn] = 'arn:aws:iam::000000000000:role/local-scheduler';
  process.env[env.escalationStepArn] = functionArn(workers.escalationStep.name);
  process.env[env.personNotificationArn] = functionArn(workers.personNotification.name);
  const own = Number(new URL(runtimeUrl).port);
  process.env[env.webhooksLoopbackPorts] = webhookPorts.filter((port) => port !== own).join(',');
  // EMF metrics are for CloudWatch; locally they would only fill the terminal. Their namespace is the
  // stage's (on AWS the stack's name, `metricsNamespaceOf`): locally the default stage's.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_METRICS_NAMESPACE ??= 'IncidentService';
}
