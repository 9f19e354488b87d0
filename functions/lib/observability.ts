/**
 * Logs, metrics and traces for every function: one structured JSON log line per invocation (route
 * or function, status, latency, request id, caller id, cold start), business metrics as CloudWatch
 * EMF lines. Traces come from Lambda's active tracing on AWS (the invocation, its initialisation
 * and overhead, keyed by the trace id each log line carries). Log values are masked: e-mail
 * addresses keep only their first letter and domain, JWTs are dropped.
 *
 * Written here rather than with Powertools' logger and metrics, which cost every bundle about
 * 30 KB and its module load for the few things used (docs/performance.md). The settings keep
 * Powertools' names: POWERTOOLS_LOG_LEVEL (DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT; or Lambda's
 * AWS_LAMBDA_LOG_LEVEL), POWERTOOLS_SERVICE_NAME, POWERTOOLS_METRICS_NAMESPACE,
 * POWERTOOLS_METRICS_DISABLED.
 */
import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { setMetricSink } from '../../shared/platform/observability/metrics.js';
import { onNewSandbox } from '../../shared/platform/sandbox.js';

// Neither mask may start inside one of JSON's escapes (`\n`, `\u001e`): the masks apply to the
// serialized text, and one that swallowed half an escape would leave a line that is not JSON.
const EMAIL = /(?<!\\(?:u[0-9A-Fa-f]{0,3})?)([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/g;
const JWT = /(?<!\\(?:u[0-9A-Fa-f]{0,3})?)eyJ[\w-]+\.eyJ[\w-]+\.[\w-]*/g;
// An integration key (`shared/integrations/keys.ts`): 32 characters of `[a-z0-9]` standing alone, or right
// after a one-letter escape (`\n`); never from inside a `\u` escape.
const INTEGRATION_KEY = /(?:(?<=\\[nrtbf])|(?<![A-Za-z0-9\\]))[a-z0-9]{32}(?![A-Za-z0-9])/g;

/**
 * A log item as its JSON line, masked: errors at any depth as their name, message and stack, e-mail
 * addresses as `a***@example.com`, JWTs as `[jwt]`, integration keys as `[key]`. The masks apply to the serialized text (neither
 * pattern can reach across a JSON quote), which spares building a masked copy of every item.
 */
export function maskedJson(value: unknown): string {
  // A replacer takes JSON.stringify off its fast path: only for an item that holds an error.
  let text = holdsError(value) ? JSON.stringify(value, (_key, inner: unknown) => (inner instanceof Error ? describeError(inner) : inner)) : JSON.stringify(value);
  // Most lines hold neither; a substring test is far cheaper than a replace that finds nothing.
  if (text.includes('eyJ')) text = text.replace(JWT, '[jwt]');
  if (text.includes('@')) text = text.replace(EMAIL, '$1***@$2');
  return text.replace(INTEGRATION_KEY, '[key]');
}

function holdsError(value: unknown): boolean {
  if (value instanceof Error) return true;
  if (Array.isArray(value)) return value.some(holdsError);
  if (value && typeof value === 'object') {
    for (const key in value) if (Object.hasOwn(value, key) && holdsError((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** An error as a log attribute; for an AggregateError (several e-mails failed) the first few of its causes too. */
function describeError(error: Error): Record<string, unknown> {
  const described: Record<string, unknown> = { name: error.name, message: error.message, stack: error.stack };
  if (error.cause !== undefined) described.cause = error.cause instanceof Error ? describeError(error.cause) : error.cause;
  if (error instanceof AggregateError) {
    described.errors = error.errors.slice(0, 5).map((inner: unknown) => (inner instanceof Error ? describeError(inner) : String(inner)));
  }
  return described;
}

const LEVELS = { DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = Exclude<keyof typeof LEVELS, 'SILENT'>;

const service = () => process.env.POWERTOOLS_SERVICE_NAME ?? 'incident-service';
/** Read on every line, so that a test (or a changed environment) takes effect at once. */
const threshold = () => {
  const name = (process.env.POWERTOOLS_LOG_LEVEL ?? process.env.AWS_LAMBDA_LOG_LEVEL ?? 'INFO').toUpperCase();
  return name in LEVELS ? LEVELS[name as keyof typeof LEVELS] : LEVELS.INFO;
};
/** `Root=1-…;Parent=…;Sampled=1` → `1-…`, as Powertools reports it. */
const traceId = () => /Root=([^;]+)/.exec(process.env._X_AMZN_TRACE_ID ?? '')?.[1];

function write(level: Level, message: string, attributes: Record<string, unknown> = {}) {
  if (LEVELS[level] < threshold()) return;
  const { error, ...rest } = attributes;
  const line = maskedJson({
    level,
    message,
    timestamp: new Date().toISOString(),
    service: service(),
    xray_trace_id: traceId(),
    ...rest,
    ...(error !== undefined ? { error } : {}),
  });
  // Straight to the streams, not through console (which Lambda's runtime prefixes in text log format).
  (LEVELS[level] >= LEVELS.WARN ? process.stderr : process.stdout).write(`${line}\n`);
}

export const logger = {
  debug: (message: string, attributes?: Record<string, unknown>) => write('DEBUG', message, attributes),
  info: (message: string, attributes?: Record<string, unknown>) => write('INFO', message, attributes),
  warn: (message: string, attributes?: Record<string, unknown>) => write('WARN', message, attributes),
  error: (message: string, attributes?: Record<string, unknown>) => write('ERROR', message, attributes),
};

let namespaceMissingReported = false;

/**
 * One count (or, with `value`, one amount) as a CloudWatch embedded-metric-format line, with the service as a dimension besides `dimensions`,
 * in the stage's namespace (POWERTOOLS_METRICS_NAMESPACE, which the stack sets: stages never share one). Without it, nothing is
 * emitted, and that is logged once as an error: no metric lands in a namespace another stage's alarms watch.
 */
function emitCount(name: string, dimensions: Record<string, string>, value?: number) {
  if (process.env.POWERTOOLS_METRICS_DISABLED === 'true') return;
  const namespace = process.env.POWERTOOLS_METRICS_NAMESPACE;
  if (!namespace) {
    if (!namespaceMissingReported) logger.error('POWERTOOLS_METRICS_NAMESPACE is not set: metrics are not emitted', { metric: name });
    namespaceMissingReported = true;
    return;
  }
  const values = { service: service(), ...dimensions };
  const line = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [Object.keys(values)], Metrics: [{ Name: name, Unit: value === undefined ? 'Count' : 'None' }] }],
    },
    ...values,
    [name]: value ?? 1,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

setMetricSink(emitCount);

/** Functions that have run in this sandbox: on Lambda one per instance, locally all of them (until `newSandbox()`). */
const warm = new Set<string>();
onNewSandbox(() => warm.clear());

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
        emitCount('ColdStart', { function_name: name });
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
export function workerHandler<E, R>(name: string, handle: (event: E, context: Context) => Promise<R>, outcome: (result: R) => string = () => 'ok') {
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

/** A page that found nobody on call in a schedule it targets: an error (the `ScheduleNobodyOnCall` metric alarms on AWS). */
export const nobodyOnCall = (facts: { incident_id: string; step_order: number; schedule_id: string; schedule_name: string | null }) =>
  logger.error('nobody on call in a schedule an escalation step targets: its other targets were paged', { ...facts });
