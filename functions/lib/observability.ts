/**
 * Logs, metrics and traces for every function, with Powertools for AWS Lambda: one structured
 * JSON log line per invocation (route or function, status, latency, request id, caller id, cold
 * start), business metrics as CloudWatch EMF. Traces come from Lambda's active tracing on AWS (the
 * invocation, its initialisation and overhead, keyed by the trace id each log line carries); the
 * X-Ray SDK is not bundled (see docs/decisions.md). Log values are masked: e-mail addresses keep
 * only their first letter and domain, JWTs are dropped.
 */
import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { setMetricSink } from '../../shared/observability/metrics.js';

const SERVICE = 'incident-service';

const EMAIL = /([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/g;
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]*/g;

/** Masks e-mail addresses (`a***@example.com`) and JWTs in every string of a log item. */
export function mask(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(JWT, '[jwt]').replace(EMAIL, '$1***@$2');
  if (Array.isArray(value)) return value.map(mask);
  if (value instanceof Error) return mask({ name: value.name, message: value.message, stack: value.stack });
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, mask(inner)]));
  }
  return value;
}

class MaskingLogFormatter extends LogFormatter {
  /** The error, and for an AggregateError (several e-mails failed) the first few of its causes. */
  private describeError(error: Error): LogAttributes {
    const described = this.formatError(error);
    if (!(error instanceof AggregateError)) return described;
    return { ...described, errors: error.errors.slice(0, 5).map((inner: unknown) => (inner instanceof Error ? this.formatError(inner) : String(inner))) };
  }

  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    return new LogItem({
      attributes: mask({
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        xray_trace_id: attributes.xRayTraceId,
        ...additional,
        ...(attributes.error ? { error: this.describeError(attributes.error) } : {}),
      }) as LogAttributes,
    });
  }
}

export const logger = new Logger({ serviceName: SERVICE, logFormatter: new MaskingLogFormatter() });
export const metrics = new Metrics({ namespace: 'IncidentService', serviceName: SERVICE });

setMetricSink((name, dimensions) => {
  const single = metrics.singleMetric();
  for (const [dimension, value] of Object.entries(dimensions)) single.addDimension(dimension, value);
  single.addMetric(name, MetricUnit.Count, 1);
});

/** Functions that have run in this process: on Lambda one per instance, locally all of them. */
const warm = new Set<string>();

export interface InvocationFacts {
  /** Route key or function name. */
  operation: string;
  requestId: string;
  callerId?: string;
  status?: number | string;
}

/**
 * The observability middleware, outermost: the cold-start metric and one log line per invocation
 * (also after an error the error handler answered).
 */
export function observability<E, R>(describe: (event: E, response: R | undefined, context: Context) => InvocationFacts) {
  // Per request (the local runtime may run one handler for several requests at once).
  const started = new WeakMap<object, number>();
  const coldStarts = new WeakMap<object, boolean>();
  const line = (request: { event: E; response: R | null; context: Context }, error?: unknown) => {
    const response = request.response ?? undefined;
    const facts = describe(request.event, response, request.context);
    const fields = {
      function_name: request.context.functionName,
      cold_start: coldStarts.get(request) ?? false,
      operation: facts.operation,
      status: facts.status,
      latency_ms: Date.now() - (started.get(request) ?? Date.now()),
      request_id: facts.requestId,
      caller_id: facts.callerId,
    };
    if (error && response === undefined) logger.error('invocation failed', { ...fields, error: error as Error });
    else logger.info('invocation', fields);
  };
  const timing: MiddlewareObj<E, R> = {
    before: (request) => {
      started.set(request, Date.now());
      const name = request.context.functionName;
      const cold = !warm.has(name);
      coldStarts.set(request, cold);
      if (cold) {
        warm.add(name);
        const single = metrics.singleMetric();
        single.addDimension('function_name', name);
        single.addMetric('ColdStart', MetricUnit.Count, 1);
      }
    },
    after: (request) => line(request),
    onError: (request) => line(request, request.error),
  };
  // The function's name, request id and cold start go on the invocation line from the request's
  // own context (not the logger's shared one: locally several functions run in one process).
  return [timing];
}

/**
 * A worker (not behind the HTTP API) with the same observability: one log line per invocation
 * with its outcome; an error is logged and rethrown so the invoker's retry applies.
 */
export function workerHandler<E, R>(name: string, handle: (event: E) => Promise<R>, outcome: (result: R) => string = () => 'ok') {
  return middy<E, R>()
    .use(
      observability<E, R>((_, response, context) => ({
        operation: name,
        requestId: context.awsRequestId,
        status: response === undefined ? 'error' : outcome(response),
      })),
    )
    .handler(handle);
}
