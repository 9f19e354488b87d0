/**
 * The AWS APIs the functions call, served locally on the runtime's port so the AWS SDK talks to
 * them unchanged (through AWS_ENDPOINT_URL_*): EventBridge PutEvents, EventBridge Scheduler
 * CreateSchedule/DeleteSchedule, the Lambda Invoke API (for `aws lambda invoke
 * --endpoint-url` and @aws-sdk/client-lambda), SES (the local mailbox behind SES's mailbox
 * simulator, see ses.ts), and End User Messaging SMS and Voice v2 (the phone inbox, see phones.ts).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { LocalEventBus, PutEventsEntry } from './bus.js';
import { findFunction, invokeFunction } from './functions.js';
import type { ScheduleRequest } from './scheduler.js';
import { localPhonesApi, type PhoneInbox } from './phones.js';
import { localSes, type AwsApiResponse } from './ses.js';

/** What these APIs (PutEvents, CreateSchedule, DeleteSchedule) hand to the bus and the scheduler, in whichever thread they run. */
export interface GatewayPorts {
  putEvents(entries: PutEventsEntry[]): ReturnType<LocalEventBus['putEvents']> | Promise<ReturnType<LocalEventBus['putEvents']>>;
  createSchedule(name: string, request: ScheduleRequest): { ScheduleArn: string } | Promise<{ ScheduleArn: string }>;
  deleteSchedule(name: string): void | Promise<void>;
  sendMessage(queueUrl: string, body: string, delaySeconds?: number): SentMessage | Promise<SentMessage>;
}

/** SendMessage's answer. */
export interface SentMessage {
  MessageId: string;
  MD5OfMessageBody: string;
}

/** The answer of the local AWS API a request is for; nothing (at once, not a promise) for any other request. */
export type AwsApis = (request: IncomingMessage, url: URL, body: Buffer) => Promise<AwsApiResponse | undefined> | undefined;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): AwsApiResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const restError = (status: number, type: string, message: string) =>
  json(status, { Message: message, message }, { 'x-amzn-errortype': type });

/**
 * A server of these APIs alone: the background thread's own (perf/background-worker.ts), so that what
 * its functions send (every e-mail, every event) never passes through the gateway's thread.
 */
export function serveAwsApis(apis: AwsApis): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      Promise.resolve(apis(request, new URL(request.url ?? '/', 'http://localhost'), Buffer.concat(chunks))).then(
        (answer) => {
          const { status, headers, body } = answer ?? json(404, { message: `No local AWS API at ${request.method} ${request.url}` });
          response.writeHead(status, headers ?? {});
          response.end(body);
        },
        (error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ message: error instanceof Error ? error.message : String(error) }));
        },
      );
    });
  });
}

const parse = (body: Buffer): unknown => (body.length ? JSON.parse(body.toString('utf8')) : {});

/** `phones`: the phone inbox, in the gateway's thread only (the background's functions send through the gateway's API). */
type Services = { background: GatewayPorts; mailboxUrl: string; phones?: PhoneInbox; log?: (line: string) => void };

/**
 * One local AWS API: which requests may be its own, told apart at once (a method, a header, a path
 * prefix), and its answer, which may still be nothing (a request it does not serve after all).
 */
interface LocalApi {
  claims(request: IncomingMessage, url: URL): boolean;
  answer(request: IncomingMessage, url: URL, body: Buffer): Promise<AwsApiResponse | undefined>;
}

export function awsApis(services: Services): AwsApis {
  const apis = localApis(services);
  // The service's own requests (most of the gateway's) are claimed by none and pass without a promise.
  return (request, url, body) => (apis.some((api) => api.claims(request, url)) ? firstAnswer(apis, request, url, body) : undefined);
}

/** The answer of the first API that claims the request and answers it. */
async function firstAnswer(apis: readonly LocalApi[], request: IncomingMessage, url: URL, body: Buffer): Promise<AwsApiResponse | undefined> {
  for (const api of apis) {
    if (!api.claims(request, url)) continue;
    const answer = await api.answer(request, url, body);
    if (answer) return answer;
  }
  return undefined;
}

function localApis(services: Services): LocalApi[] {
  const ses: LocalApi = {
    claims: (request, url) => request.method === 'POST' && url.pathname === '/' && String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded'),
    answer: (request, _url, body) => localSes(request, body, services.mailboxUrl, services.background),
  };

  const events: LocalApi = {
    claims: (request) => String(request.headers['x-amz-target']).startsWith('AWSEvents.'),
    answer: async (request, _url, body) => {
      const target = String(request.headers['x-amz-target']);
      if (target !== 'AWSEvents.PutEvents') return json(400, { __type: 'UnknownOperationException', message: target });
      try {
        const { Entries } = parse(body) as { Entries?: PutEventsEntry[] };
        return json(200, await services.background.putEvents(Entries ?? []), { 'content-type': 'application/x-amz-json-1.1' });
      } catch (error) {
        if (error instanceof SyntaxError) return json(400, { __type: 'SerializationException', message: error.message });
        return json(500, { __type: 'InternalException', message: (error as Error).message });
      }
    },
  };

  const scheduler: LocalApi = {
    claims: (request, url) => (request.method === 'POST' || request.method === 'DELETE') && url.pathname.startsWith('/schedules/'),
    answer: async (request, url, body) => {
      const schedule = /^\/schedules\/([^/]+)$/.exec(url.pathname);
      if (!schedule) return undefined;
      const name = decodeURIComponent(schedule[1]!);
      try {
        if (request.method === 'DELETE') {
          await services.background.deleteSchedule(name);
          return json(200, {});
        }
        return json(200, await services.background.createSchedule(name, parse(body) as ScheduleRequest));
      } catch (error) {
        const type = (error as Error).name;
        const status = type === 'ConflictException' ? 409 : type === 'ResourceNotFoundException' ? 404 : 400;
        return restError(status, type, (error as Error).message);
      }
    },
  };

  const lambda: LocalApi = {
    claims: (request, url) => request.method === 'POST' && url.pathname.startsWith('/2015-03-31/functions/'),
    answer: async (request, url, body) => {
      const invocation = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
      if (!invocation) return undefined;
      const name = decodeURIComponent(invocation[1]!);
      if (!findFunction(name)) return restError(404, 'ResourceNotFoundException', `Function not found: ${name}`);
      let payload: unknown;
      try {
        payload = parse(body);
      } catch (error) {
        // As Lambda answers a payload that is not JSON.
        return restError(400, 'InvalidRequestContentException', `Could not parse request body into json: ${(error as Error).message}`);
      }
      if (request.headers['x-amz-invocation-type'] === 'Event') {
        void invokeFunction(name, payload).catch((error: unknown) => services.log?.(`async invoke of ${name} failed: ${String(error)}`));
        return { status: 202, body: '' };
      }
      try {
        const result = await invokeFunction(name, payload);
        return json(200, result ?? null, { 'x-amz-executed-version': '$LATEST' });
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        return json(200, { errorType: failure.name, errorMessage: failure.message }, { 'x-amz-function-error': 'Unhandled' });
      }
    },
  };

  // SQS's JSON protocol (issue 46 §5): SendMessage to the local queues, delayed on the service clock.
  const sqs: LocalApi = {
    claims: (request) => String(request.headers['x-amz-target']).startsWith('AmazonSQS.'),
    answer: async (request, _url, body) => {
      const target = String(request.headers['x-amz-target']);
      const sqsJson = (status: number, answer: unknown) => json(status, answer, { 'content-type': 'application/x-amz-json-1.0' });
      if (target !== 'AmazonSQS.SendMessage') return sqsJson(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: target });
      try {
        const { QueueUrl, MessageBody, DelaySeconds } = parse(body) as { QueueUrl?: string; MessageBody?: string; DelaySeconds?: number };
        return sqsJson(200, await services.background.sendMessage(QueueUrl ?? '', MessageBody ?? '', DelaySeconds));
      } catch (error) {
        const type = (error as Error).name === 'AWS.SimpleQueueService.NonExistentQueue' ? 'com.amazonaws.sqs#QueueDoesNotExist' : 'com.amazonaws.sqs#InvalidParameterValue';
        return sqsJson(400, { __type: type, message: (error as Error).message });
      }
    },
  };

  const phones: LocalApi = {
    claims: (request) => services.phones !== undefined && String(request.headers['x-amz-target']).startsWith('PinpointSMSVoiceV2.'),
    answer: (request, _url, body) => localPhonesApi(request, body, services.phones!),
  };

  return [ses, events, scheduler, sqs, lambda, phones];
}
