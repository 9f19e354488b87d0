/**
 * `npm run cost [-- --write]`: what one idle stage costs a month, computed from the synthesized templates
 * (the default deployment, bundling skipped) with the prices below, as the Markdown table that
 * docs/deployment.md#what-it-costs holds between its `cost` markers. `--write` puts it there; without
 * it, it is printed. test/infra/cost.test.ts fails when the docs and this disagree, so the table cannot
 * drift from what a deploy creates.
 *
 * "Idle": nobody signs in, no alert comes, no e-mail is sent. What still runs is what runs by the clock
 * (the periodic rules' functions) and what is billed by the month (alarms, keys, stored data).
 */
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repositoryRoot } from '../paths.js';

/**
 * List prices, us-east-1, as the docs have used them since November 2026 (aws.amazon.com/<service>/pricing);
 * free tiers are left out (another stage or workload in the account may use them up).
 */
export const PRICES = {
  asOf: '2026-11',
  /** CloudWatch: a standard-resolution alarm, per metric it watches (a math expression's each count). */
  alarmMetric: 0.1,
  /** CloudWatch: a composite alarm. */
  compositeAlarm: 0.5,
  /** CloudWatch: a custom metric with data all month (prorated by the hours it has data). */
  customMetric: 0.3,
  /** KMS: a customer-managed key (rotation included). */
  kmsKey: 1.0,
  /** Secrets Manager: a secret. */
  secret: 0.4,
  /** Systems Manager Parameter Store: an advanced parameter (standard ones are free). */
  advancedParameter: 0.05,
  /** Lambda: per million requests; per GB-second on arm64. */
  lambdaRequestsPerMillion: 0.2,
  lambdaArmGbSecond: 0.0000133334,
  /** X-Ray: per million traces recorded. */
  xrayTracesPerMillion: 5.0,
  /** CloudWatch Logs: per GB ingested. */
  logsIngestedGb: 0.5,
  /** DynamoDB on demand: per million read request units. */
  dynamoReadsPerMillion: 0.125,
} as const;

/** What an idle periodic run does, by assumption (docs/deployment.md#what-it-costs repeats these). */
export const IDLE_RUN = {
  /** Its billed duration: a Query or two that find nothing. */
  durationMs: 50,
  /** Its log: START, END and REPORT lines and the invocation's JSON line. */
  logBytes: 700,
  /** Read units of its Queries. */
  readUnits: 2,
} as const;

const MINUTES_A_MONTH = 730 * 60;

type Resource = { Type: string; Properties?: Record<string, any> };
export interface CostLine {
  item: string;
  arithmetic: string;
  usd: number;
}

const usd = (value: number) => `$${value.toFixed(2)}`;
/** A unit price as listed (cents, or as many decimals as it has). */
const price = (value: number) => (Number(value.toFixed(2)) === value ? usd(value) : `$${value}`);
const count = (resources: Resource[], type: string) => resources.filter((resource) => resource.Type === type).length;

/** The metrics an alarm watches (what it is billed by): one, or each metric of its math expression. */
export const alarmMetricCount = (alarm: Resource) => (alarm.Properties?.Metrics ? (alarm.Properties.Metrics as { MetricStat?: unknown }[]).filter((query) => query.MetricStat).length : 1);

/** One idle stage's month, line by line, from all its templates' resources (the root's and each nested stack's). */
export function idleStageCost(byId: Record<string, Resource>): CostLine[] {
  const resources = Object.values(byId);
  const lines: CostLine[] = [];
  const alarms = resources.filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
  const single = alarms.filter((alarm) => alarmMetricCount(alarm) === 1).length;
  const math = alarms.filter((alarm) => alarmMetricCount(alarm) > 1);
  const mathMetrics = math.reduce((sum, alarm) => sum + alarmMetricCount(alarm), 0);
  const metrics = single + mathMetrics;
  lines.push({
    item: `CloudWatch alarms: ${alarms.length} (${single} on one metric, ${math.length} metric-math alarms over ${mathMetrics} metrics)`,
    arithmetic: `${metrics} metrics × ${price(PRICES.alarmMetric)}`,
    usd: metrics * PRICES.alarmMetric,
  });
  const composites = count(resources, 'AWS::CloudWatch::CompositeAlarm');
  if (composites) lines.push({ item: `CloudWatch composite alarms: ${composites}`, arithmetic: `${composites} × ${price(PRICES.compositeAlarm)}`, usd: composites * PRICES.compositeAlarm });
  const keys = count(resources, 'AWS::KMS::Key');
  lines.push({ item: `KMS keys: ${keys}`, arithmetic: `${keys} × ${price(PRICES.kmsKey)}`, usd: keys * PRICES.kmsKey });
  const secrets = count(resources, 'AWS::SecretsManager::Secret');
  lines.push({ item: `Secrets Manager secrets: ${secrets}`, arithmetic: `${secrets} × ${price(PRICES.secret)}`, usd: secrets * PRICES.secret });
  const parameters = resources.filter((resource) => resource.Type === 'AWS::SSM::Parameter');
  const advanced = parameters.filter((parameter) => parameter.Properties?.Tier === 'Advanced').length;
  lines.push({ item: `SSM parameters: ${parameters.length} (${advanced} advanced)`, arithmetic: `${advanced} × ${price(PRICES.advancedParameter)}`, usd: advanced * PRICES.advancedParameter });

  // What runs by the clock: each periodic rule's target, every `rate(n minutes)`.
  const periodic = resources.filter((resource) => resource.Type === 'AWS::Events::Rule' && resource.Properties?.ScheduleExpression);
  let runs = 0;
  let gbSeconds = 0;
  let traced = 0;
  for (const rule of periodic) {
    const minutes = Number(/^rate\((\d+) minutes?\)$/.exec(rule.Properties!.ScheduleExpression)?.[1]);
    if (!minutes) throw new Error(`cost: a periodic rule's schedule is not rate(n minutes): ${rule.Properties!.ScheduleExpression}`);
    const perMonth = MINUTES_A_MONTH / minutes;
    for (const target of rule.Properties!.Targets as { Arn: { 'Fn::GetAtt'?: [string, string] } }[]) {
      const fn = byId[target.Arn['Fn::GetAtt']?.[0] ?? ''];
      if (fn?.Type !== 'AWS::Lambda::Function') throw new Error('cost: a periodic rule targets something other than a function of its stack');
      runs += perMonth;
      gbSeconds += perMonth * (IDLE_RUN.durationMs / 1000) * (fn.Properties!.MemorySize / 1024);
      if (fn.Properties!.TracingConfig?.Mode === 'Active') traced += perMonth;
    }
  }
  const lambda = (runs / 1e6) * PRICES.lambdaRequestsPerMillion + gbSeconds * PRICES.lambdaArmGbSecond;
  lines.push({
    item: `Lambda: ${periodic.length} periodic rules, ${runs.toLocaleString('en-US')} idle runs (${IDLE_RUN.durationMs} ms each)`,
    arithmetic: `${(runs / 1e6).toFixed(4)} M × ${usd(PRICES.lambdaRequestsPerMillion)} + ${Math.round(gbSeconds).toLocaleString('en-US')} GB-s × $${PRICES.lambdaArmGbSecond}`,
    usd: lambda,
  });
  lines.push({ item: 'X-Ray: each idle run traced', arithmetic: `${(traced / 1e6).toFixed(4)} M × ${price(PRICES.xrayTracesPerMillion)}`, usd: (traced / 1e6) * PRICES.xrayTracesPerMillion });
  const logGroups = count(resources, 'AWS::Logs::LogGroup');
  const logGb = (runs * IDLE_RUN.logBytes) / 1024 ** 3;
  lines.push({ item: `CloudWatch Logs: ${logGroups} log groups; the idle runs' lines (${IDLE_RUN.logBytes} bytes each)`, arithmetic: `${logGb.toFixed(3)} GB × ${price(PRICES.logsIngestedGb)}`, usd: logGb * PRICES.logsIngestedGb });
  const reads = runs * IDLE_RUN.readUnits;
  lines.push({
    item: `DynamoDB on demand: ${count(resources, 'AWS::DynamoDB::Table')} table, the idle runs' reads (${IDLE_RUN.readUnits} units each); storage and PITR of an empty table`,
    arithmetic: `${(reads / 1e6).toFixed(4)} M × ${price(PRICES.dynamoReadsPerMillion)}`,
    usd: (reads / 1e6) * PRICES.dynamoReadsPerMillion,
  });
  // The functions' cold-start metric (EMF, one per function that runs): the periodic ones run all month.
  const targets = new Set(periodic.flatMap((rule) => (rule.Properties!.Targets as { Arn: { 'Fn::GetAtt'?: [string, string] } }[]).map((target) => target.Arn['Fn::GetAtt']?.[0])));
  lines.push({ item: `Custom metrics with data all month: the cold starts of the ${targets.size} periodic functions`, arithmetic: `${targets.size} × ${price(PRICES.customMetric)}`, usd: targets.size * PRICES.customMetric });
  lines.push({
    item: `Free at rest: ${count(resources, 'AWS::SQS::Queue')} SQS queues, ${count(resources, 'AWS::SNS::Topic')} SNS topics, ${count(resources, 'AWS::Events::EventBus')} event bus and its rules, the schedule group, ${count(resources, 'AWS::ApiGatewayV2::Api')} HTTP API, Cognito (0 monthly active users), SES, CloudFront (${count(resources, 'AWS::CloudFront::Distribution')} distribution, no requests), S3 (${count(resources, 'AWS::S3::Bucket')} bucket, the console's few MB)`,
    arithmetic: '0',
    usd: 0,
  });
  return lines;
}

/** The table, as docs/deployment.md holds it. */
export function costTable(lines: CostLine[]): string {
  const total = lines.reduce((sum, line) => sum + line.usd, 0);
  return [
    `| One idle stage, per month (us-east-1 list prices, ${PRICES.asOf}; \`npm run cost\`) | Arithmetic | USD |`,
    '|---|---|---|',
    ...lines.map((line) => `| ${line.item} | ${line.arithmetic} | ${usd(line.usd)} |`),
    `| **Total** | | **${usd(total)}** |`,
  ].join('\n');
}

export const totalOf = (lines: CostLine[]) => lines.reduce((sum, line) => sum + line.usd, 0);

/** Every resource of the default deployment (root and nested stacks), bundling skipped. */
/** A stage with every setting at its default: an empty settings file of its own (`deploy/default.json` as `{}`). */
function defaultSettingsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cost-settings-'));
  writeFileSync(join(dir, 'default.json'), '{}\n');
  return dir;
}

export async function defaultDeploymentResources(app = new App({ context: { 'aws:cdk:bundling-stacks': [], settingsDir: defaultSettingsDir() } })): Promise<Record<string, Resource>> {
  const { buildApp } = await import('../cdk/app.js');
  const { stack } = buildApp(app);
  const stacks: Stack[] = [stack, ...stack.node.findAll().filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))];
  const { Template } = await import('aws-cdk-lib/assertions');
  return Object.assign({}, ...stacks.map((each) => (Template.fromStack(each).toJSON() as { Resources: Record<string, Resource> }).Resources)) as Record<string, Resource>;
}

export const DOC = join(repositoryRoot, 'docs/deployment.md');
const START = '<!-- cost:start (npm run cost -- --write) -->';
const END = '<!-- cost:end -->';

/** The table the docs hold now. */
export function documentedTable(text = readFileSync(DOC, 'utf8')): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/deployment.md has no ${START} … ${END}`);
  return text.slice(start + START.length, end).trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const table = costTable(idleStageCost(await defaultDeploymentResources()));
  if (process.argv.includes('--write')) {
    const text = readFileSync(DOC, 'utf8');
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    if (start < 0 || end < start) throw new Error(`docs/deployment.md has no ${START} … ${END}`);
    writeFileSync(DOC, `${text.slice(0, start + START.length)}\n${table}\n${text.slice(end)}`);
    console.log(`docs/deployment.md: written`);
  }
  console.log(table);
}
