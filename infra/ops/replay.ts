/**
 * `npm run replay`: re-delivers what landed in a dead-letter or on-failure queue.
 *
 *   npm run replay -- messages.json [--dry-run]
 *   npm run replay -- --from 2026-11-23T10:00:00Z --to 2026-11-23T11:00:00Z [--type incident.created]… [--dry-run]
 *
 * `messages.json` is what `aws sqs receive-message --message-attribute-names All` printed, one of its
 * messages, or one message body. Each message is replayed as what it is:
 * - a stream batch from the outbox publisher's queue (`DDBStreamBatchInfo`, shard and sequence numbers,
 *   no events): the outbox records written in that batch's time window (±5 min) are put on the bus again;
 * - a failed asynchronous invocation from a function's on-failure queue (`requestPayload`): the same
 *   function is invoked again with the same event;
 * - an event from a rule's dead-letter queue: its target (`TARGET_ARN`) is invoked with it, or, without
 *   that attribute, an event of the service is put on its bus again;
 * - a schedule's input from the escalation dead-letter queue (EventBridge Scheduler gave up on its
 *   target: `X-Amz-Scheduler-*` attributes, the body is the schedule's input): the escalation step is
 *   invoked with it (`TARGET_ARN`, else ESCALATION_STEP_FUNCTION_ARN, else `escalation-step` locally).
 * Every consumer is idempotent per event (and recipient), so replaying twice, or an event that was
 * delivered after all, sends nothing twice.
 *
 * On AWS: TABLE_NAME and EVENT_BUS_NAME from the stack's outputs, and credentials. `--local`: the
 * local runtime started with `npm start` (PORT, DYNAMODB_PORT).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { env, eventBus, table, workers } from '../../shared/system.js';
import { escalationStepInput } from '../../shared/paging/page.js';
import { EVENT_TYPES, OUTBOX_ITEM_TYPE, type EventType } from '../../shared/platform/events/model.js';
import { publish } from '../../shared/platform/events/publish.js';
import { replayWindow } from '../../shared/platform/events/replay.js';
import { runningRuntime, runtimeUrl } from '../local/cli/running.js';

/** Stream arrival and the service's write time differ by moments; the window is widened generously. */
const MARGIN_MS = 5 * 60 * 1000;

type Json = Record<string, unknown>;

export interface ReplayOutcome {
  message: number;
  kind: 'stream-batch' | 'failed-invocation' | 'rule-dead-letter' | 'schedule-dead-letter' | 'unknown';
  detail: unknown;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The messages of a file: a receive-message answer, one message, or one body; each as body and attributes. */
export function messagesOf(input: unknown): { body: Json; attributes: Record<string, string> }[] {
  const messages = isObject(input) && Array.isArray(input.Messages) ? input.Messages : [input];
  return messages.map((message) => {
    if (isObject(message) && typeof message.Body === 'string') {
      const attributes = Object.fromEntries(
        Object.entries(isObject(message.MessageAttributes) ? message.MessageAttributes : {}).map(([name, value]) => [name, String((value as Json).StringValue ?? '')]),
      );
      return { body: JSON.parse(message.Body) as Json, attributes };
    }
    if (!isObject(message)) throw new Error('Each message must be a JSON object');
    return { body: message, attributes: {} };
  });
}

let lambda: LambdaClient | undefined;
async function invokeAgain(functionArn: string, payload: unknown) {
  const result = await (lambda ??= new LambdaClient({})).send(
    new InvokeCommand({ FunctionName: functionArn, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
  );
  const answer = result.Payload ? new TextDecoder().decode(result.Payload) : '';
  if (result.FunctionError) throw new Error(`${functionArn} failed again: ${answer}`);
  return { function: functionArn, result: answer ? (JSON.parse(answer) as unknown) : null };
}

/** Replays every message of `input`; `dryRun` only says what would be replayed. */
/** The attribute EventBridge Scheduler puts on every message it dead-letters. */
const SCHEDULE_ARN_ATTRIBUTE = 'X-Amz-Scheduler-Schedule-Arn';

/** Replays every message of `input`; `dryRun` only says what would be replayed; `local`: against `npm start`. */
export async function replayMessages(input: unknown, options: { dryRun?: boolean; local?: boolean } = {}): Promise<ReplayOutcome[]> {
  const local = options.local ?? false;
  const outcomes: ReplayOutcome[] = [];
  for (const [index, { body, attributes }] of messagesOf(input).entries()) {
    const message = index + 1;
    const batch = body.DDBStreamBatchInfo;
    if (isObject(batch)) {
      const first = Date.parse(String(batch.approximateArrivalOfFirstRecord));
      const last = Date.parse(String(batch.approximateArrivalOfLastRecord ?? batch.approximateArrivalOfFirstRecord));
      if (Number.isNaN(first) || Number.isNaN(last)) throw new Error(`Message ${message}: DDBStreamBatchInfo has no arrival times`);
      const result = await replayWindow(new Date(first - MARGIN_MS), new Date(last + MARGIN_MS), options);
      outcomes.push({ message, kind: 'stream-batch', detail: result });
    } else if ('requestPayload' in body && isObject(body.requestContext) && typeof body.requestContext.functionArn === 'string') {
      const functionArn = body.requestContext.functionArn.replace(/:\$LATEST$/, '');
      outcomes.push({
        message,
        kind: 'failed-invocation',
        detail: options.dryRun ? { function: functionArn, payload: body.requestPayload } : await invokeAgain(functionArn, body.requestPayload),
      });
    } else if (typeof body['detail-type'] === 'string') {
      const target = attributes.TARGET_ARN;
      if (target) {
        outcomes.push({ message, kind: 'rule-dead-letter', detail: options.dryRun ? { function: target, payload: body } : await invokeAgain(target, body) });
      } else if (body.source === eventBus.source && (EVENT_TYPES as string[]).includes(body['detail-type']) && isObject(body.detail)) {
        const item = { type: OUTBOX_ITEM_TYPE as typeof OUTBOX_ITEM_TYPE, event_type: body['detail-type'] as EventType, detail: body.detail };
        outcomes.push({ message, kind: 'rule-dead-letter', detail: { bus: true, event_type: item.event_type, published: options.dryRun ? 0 : await publish([item]) } });
      } else {
        throw new Error(`Message ${message}: an event without TARGET_ARN that is not the service's own; pass the whole SQS message (with its attributes)`);
      }
    } else if (attributes[SCHEDULE_ARN_ATTRIBUTE]) {
      const input = escalationStepInput.safeParse(body);
      if (!input.success) throw new Error(`Message ${message}: a schedule's dead letter that is not an escalation step's input`);
      const target = attributes.TARGET_ARN || process.env[env.escalationStepArn] || (local ? workers.escalationStep.name : undefined);
      if (!target) throw new Error(`Message ${message}: a schedule's dead letter without TARGET_ARN; set ${env.escalationStepArn} to the escalation-step function's ARN`);
      outcomes.push({
        message,
        kind: 'schedule-dead-letter',
        detail: {
          schedule: attributes[SCHEDULE_ARN_ATTRIBUTE],
          error: attributes.ERROR_CODE ?? null,
          ...(options.dryRun ? { function: target, payload: input.data } : await invokeAgain(target, input.data)),
        },
      });
    } else {
      outcomes.push({ message, kind: 'unknown', detail: 'not a stream batch, a failed invocation, an event or a schedule\'s input: left alone' });
    }
  }
  return outcomes;
}

const USAGE = `Usage: npm run replay -- <messages.json> [--dry-run] [--local]
       npm run replay -- --from <ISO time> --to <ISO time> [--type <event type>]... [--dry-run] [--local]`;

/** Points the SDK at the local runtime started with `npm start`. */
/** The running `npm start` (found as `npm run token` finds it; PORT and DYNAMODB_PORT override). */
function useLocalRuntime() {
  const url = runtimeUrl();
  const dynamodb = process.env.DYNAMODB_PORT ? `http://127.0.0.1:${Number(process.env.DYNAMODB_PORT)}` : (runningRuntime()?.dynamodb.endpoint ?? 'http://127.0.0.1:8000');
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamodb;
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = url;
  process.env.AWS_ENDPOINT_URL_LAMBDA = url;
  process.env.AWS_REGION = 'local';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env[env.tableName] ??= table.name;
  process.env[env.eventBusName] ??= eventBus.name;
}

async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: { from: { type: 'string' }, to: { type: 'string' }, type: { type: 'string', multiple: true }, 'dry-run': { type: 'boolean' }, local: { type: 'boolean' } },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = args;
  const window = values.from !== undefined || values.to !== undefined;
  if (window ? positionals.length > 0 || !values.from || !values.to : positionals.length !== 1) {
    console.error(USAGE);
    process.exit(2);
  }
  const unknownTypes = (values.type ?? []).filter((type) => !(EVENT_TYPES as string[]).includes(type));
  if (unknownTypes.length) {
    console.error(`Unknown event type: ${unknownTypes.join(', ')} (one of ${EVENT_TYPES.join(', ')})\n${USAGE}`);
    process.exit(2);
  }
  if (values.local) useLocalRuntime();
  for (const name of [env.tableName, env.eventBusName]) {
    if (!process.env[name]) {
      console.error(`${name} is not set: use the stack's outputs (TableName, EventBusName), or --local.`);
      process.exit(2);
    }
  }
  const dryRun = values['dry-run'] ?? false;
  try {
    if (window) {
      const [from, to] = [new Date(values.from!), new Date(values.to!)];
      if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new Error('--from and --to take ISO 8601 times, e.g. 2026-11-23T10:00:00Z');
      console.log(JSON.stringify(await replayWindow(from, to, { dryRun, types: values.type as EventType[] | undefined }), null, 2));
    } else {
      let input: unknown;
      try {
        input = JSON.parse(readFileSync(positionals[0]!, 'utf8'));
      } catch (error) {
        throw new Error(`Cannot read ${positionals[0]}: ${(error as Error).message}`);
      }
      console.log(JSON.stringify(await replayMessages(input, { dryRun, local: values.local ?? false }), null, 2));
    }
  } catch (error) {
    console.error(`replay: ${(error as Error).message}`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
