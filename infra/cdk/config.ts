/**
 * Deployment settings: one committed file per stage, `deploy/<stage>.json` (`infra/cdk/settings.ts`),
 * validated once here. `-c` selects the stage only: a setting given as context is refused, so a plain
 * `cdk deploy` never drops one (issue 46 §1).
 */
import type { Node } from 'constructs';
import * as z from 'zod';
import { guardSenderIdentity, readStageSettings, refuseSettingsInContext, stageFiles } from './settings.js';
import { allFunctions } from '../../shared/system.js';

/** The retention periods CloudWatch Logs accepts, in days. */
const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

const domain = (name: string) =>
  z.string().regex(/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/i, { error: `${name} must be a domain name, e.g. example.com` });

/**
 * A price ceiling in USD as End User Messaging takes it (`MaxPrice`, `MaxPricePerMinute`: up to two
 * digits, a point, up to five decimals): a number from the context, written the way the API accepts.
 */
const price = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a price in USD, e.g. 0.25` })
    .positive({ error: `${name} must be a price in USD above 0, e.g. 0.25` })
    .lt(100, { error: `${name} must be below 100 (USD)` })
    .refine((value) => Number(value.toFixed(5)) === value, { error: `${name} has at most 5 decimals` })
    .transform((value) => (Number.isInteger(value) ? value.toFixed(1) : String(value)));

const list = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()).filter(Boolean));

const schema = z.object({
  /**
   * Refused with a pointer: the sender address is the stack's `SenderEmail` CloudFormation parameter,
   * given once and kept by every later deploy (so `cdk diff` and `cdk destroy` need nothing).
   */
  senderEmail: z.never({ error: 'senderEmail is a stack parameter now: npx cdk deploy --parameters SenderEmail=you@yourdomain.com (given once; later deploys keep it)' }).optional(),
  /** Verify the whole domain as the SES identity (DKIM records to publish) instead of the sender address alone. */
  senderDomain: domain('senderDomain').optional(),
  /** A custom MAIL FROM domain under senderDomain (SPF alignment): its MX and TXT records become outputs. */
  mailFromDomain: domain('mailFromDomain').optional(),
  /**
   * `create` (the default): the stack creates the sender's SES identity. `existing`: another stage (or
   * the console) already holds it for this address or domain; this stage sends through it.
   */
  senderIdentity: z.enum(['create', 'existing']).default('create'),
  /** Deploy a second copy side by side: stack `IncidentService-<stage>` and every name derived from it. */
  stage: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,19}$/i, { error: 'stage must be a letter then up to 19 letters, digits or hyphens, e.g. staging' })
    .optional(),
  /**
   * The stack's name outright (overrides the one `stage` derives). At most 50 characters: the names
   * derived from it (`<stackName>-monitor-check`, a function's, at most 64) must fit.
   */
  stackName: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,49}$/, { error: 'stackName must be a CloudFormation stack name of at most 50 characters' }).optional(),
  /** A custom domain for the API (links in e-mails use it), with an ACM certificate in the stack's region. */
  apiDomain: domain('apiDomain').optional(),
  apiCertificateArn: z.string().regex(/^arn:aws[a-z-]*:acm:/, { error: 'apiCertificateArn must be an ACM certificate ARN' }).optional(),
  /** An external OIDC issuer instead of the default Cognito user pool (with jwtAudience). */
  jwtIssuer: z.url().optional(),
  jwtAudience: z.union([z.array(z.string()), list]).optional(),
  /** Default stage throttling: steady requests per second and burst. */
  throttleRate: z.coerce.number().positive().default(50),
  throttleBurst: z.coerce.number().int().positive().default(100),
  /** Each public route's own throttling (the links of e-mails): a flood there never uses the signed-in routes' share. */
  publicThrottleRate: z.coerce.number().positive().default(10),
  publicThrottleBurst: z.coerce.number().int().positive().default(20),
  /**
   * Each alert route's own throttling (`/v2/enqueue`, `/integrations/alertmanager`, `/heartbeats/{key}`),
   * for every key at once: sized (issue 46 §4, docs/deployment.md "Keys' rates and the routes'
   * buckets") so that a noisy client meets its key's own rate in the table (120 events or notifications,
   * 60 pings a minute: a 429 with Retry-After) long before it could fill the bucket every key shares.
   */
  alertThrottleRate: z.coerce.number().positive().default(200),
  alertThrottleBurst: z.coerce.number().int().positive().default(400),
  /**
   * Reserved concurrency of each paging-path function (`paging` in the system description), so no
   * flood elsewhere can starve a page. Off by default: a new account may have only 10 concurrent
   * executions, and Lambda keeps 100 unreserved.
   */
  pagingConcurrency: z.coerce.number().int().positive().optional(),
  /**
   * The web console's origin (issue 44), e.g. `https://console.example.com`: the incident links of Slack
   * messages and e-mails open `<consoleUrl>/incidents/<id>`. Without it the stack is deployed without a
   * console on purpose: synth warns, and those links stay the JSON API's (`CONSOLE_URL` set empty).
   */
  consoleUrl: z
    .url({ protocol: /^https?$/, error: 'consoleUrl must be the console\'s origin, e.g. https://console.example.com' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /**
   * The account's concurrency limit in this region (`aws lambda get-account-settings`, `AccountLimit.ConcurrentExecutions`,
   * less what other functions of the account already reserve): required with `pagingConcurrency`, which is
   * refused at synth unless it fits (`pagingConcurrencyFits`).
   */
  accountConcurrency: z.coerce.number().int().positive().optional(),
  /** CORS is off unless origins are given (comma-separated). */
  corsOrigins: z.union([z.array(z.string()), list]).optional(),
  /** RETAIN keeps the table (and its data) when the stack is deleted; use destroy for test stages. */
  removalPolicy: z.enum(['retain', 'destroy']).default('retain'),
  /** Days CloudWatch keeps function and access logs: one of the values CloudWatch accepts. */
  logRetentionDays: z.coerce
    .number()
    .int()
    .refine((days) => LOG_RETENTION_DAYS.includes(days), {
      error: `logRetentionDays must be one of ${[1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653].join(', ')}`,
    })
    .default(30),
  /** Powertools log level of every function. */
  logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  /**
   * The most one SMS may cost (USD), `MaxPrice` on every send: dearer destinations are refused (the
   * send fails, loudly) rather than billed. 0.25 covers a multi-part page to the US, Canada and most
   * of Europe with room to spare, and refuses the premium routes a mistyped number could reach.
   */
  smsMaxPrice: price('smsMaxPrice').default('0.25'),
  /** The most one minute of a call may cost (USD), `MaxPricePerMinute` on every call; the same reasoning. */
  voiceMaxPricePerMinute: price('voiceMaxPricePerMinute').default('0.25'),
  /** The alarm on SMS and voice spend: above this many USD in one day (UTC), from the receipts. */
  phoneDailySpendAlarm: z.coerce.number().positive().default(5),
  /**
   * The web console (issue 44): its own nested stack (S3 + CloudFront) and the user pool's managed
   * login for it. `false` leaves both out (an API-only deployment).
   */
  console: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]).default(true),
  /** Where alarms are sent (optional e-mail subscription of the alarm topic). */
  alarmEmail: z.email().optional(),
  /**
   * Cognito's self sign-up (issue 46 §2). `false`: only an administrator creates users
   * (`aws cognito-idp admin-create-user`, docs/deployment.md), whose account record is then made at
   * their first sign-in (the post-authentication trigger).
   */
  selfSignUp: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]).default(true),
  /**
   * Who may sign up themselves: addresses of these domains only (a pre-sign-up trigger refuses the
   * others before Cognito sends any code), or `*` for anyone. Unset with self sign-up on, Cognito may
   * not send through SES (a CloudFormation rule refuses `CognitoEmail=ses`): anyone could make it mail
   * any address from the stage's sender.
   */
  allowedSignUpDomains: z
    .array(z.union([z.literal('*'), domain('allowedSignUpDomains').transform((value) => value.toLowerCase())]))
    .min(1, { error: 'allowedSignUpDomains lists at least one domain, or "*"' })
    .refine((domains) => !domains.includes('*') || domains.length === 1, { error: 'allowedSignUpDomains is ["*"] alone, or domains' })
    .optional(),
});

export type DeployConfig = z.output<typeof schema>;

/** The stack's name: `stackName`, else `IncidentService` or `IncidentService-<stage>`. */
export const stackNameOf = (config: Pick<DeployConfig, 'stackName' | 'stage'>) =>
  config.stackName ?? (config.stage ? `IncidentService-${config.stage}` : 'IncidentService');

/** Executions Lambda keeps unreserved in every account: reservations may never take the account below this. */
export const LAMBDA_UNRESERVED_MINIMUM = 100;
/** The functions `pagingConcurrency` reserves for (`paging` in the system description): N of the formula. */
export const pagingFunctionCount = () => allFunctions.filter((description) => description.paging).length;
/** The account limit `pagingConcurrency` needs: 100 + N × pagingConcurrency (Lambda refuses reservations beyond it at deploy). */
export const accountConcurrencyNeeded = (pagingConcurrency: number) => LAMBDA_UNRESERVED_MINIMUM + pagingFunctionCount() * pagingConcurrency;


/**
 * The name of the function the monitoring system invokes (issue 46 §3): the stack's name and
 * `-monitor-check`, whatever stack or construct holds it. Documented (docs/deployment.md), an
 * output (`MonitorCheckFunctionName`) and pinned by a test: never derive it otherwise.
 */
export const monitorCheckFunctionName = (stackName: string) => `${stackName}-monitor-check`;

/**
 * The stage's settings: `-c stage=<stage>` (none: `default`) names `deploy/<stage>.json`, read,
 * validated by the schema (an unknown key is refused, like a malformed value), and checked against
 * the stage's sender identity record (`deploy/<stage>.lock.json`).
 */
export function readConfig(node: Node): DeployConfig {
  const files = stageFiles(node);
  refuseSettingsInContext(node, Object.keys(schema.shape), files);
  const settings = readStageSettings(files);
  const invalid = (message: string) => new Error(`Invalid settings in ${files.shown}: ${message}`);
  if ('stage' in settings) throw invalid("stage: a stage's settings file is named after it (deploy/<stage>.json): leave stage out");
  const config = schema.strict().safeParse({ ...settings, ...(files.stage ? { stage: files.stage } : {}) });
  if (!config.success) {
    throw invalid(config.error.issues.map((issue) => `${[...issue.path, ...('keys' in issue ? issue.keys : [])].join('.')}: ${issue.message}`).join('; '));
  }
  const { mailFromDomain, senderDomain } = config.data;
  if (mailFromDomain && !(senderDomain && mailFromDomain.toLowerCase().endsWith(`.${senderDomain.toLowerCase()}`))) {
    throw invalid('mailFromDomain must be a subdomain of senderDomain');
  }
  if (mailFromDomain && config.data.senderIdentity === 'existing') {
    throw invalid('mailFromDomain is set on the identity, which senderIdentity=existing leaves to its owner');
  }
  if (Boolean(config.data.apiDomain) !== Boolean(config.data.apiCertificateArn)) {
    throw invalid('apiDomain and apiCertificateArn go together');
  }
  if (Boolean(config.data.jwtIssuer) !== Boolean(config.data.jwtAudience?.length)) {
    throw invalid('jwtIssuer and jwtAudience go together');
  }
  const { pagingConcurrency, accountConcurrency } = config.data;
  if (pagingConcurrency !== undefined) {
    const needed = accountConcurrencyNeeded(pagingConcurrency);
    const formula = `${LAMBDA_UNRESERVED_MINIMUM} + ${pagingFunctionCount()} paging functions × pagingConcurrency ${pagingConcurrency} = ${needed}`;
    if (accountConcurrency === undefined) {
      throw invalid(
        `pagingConcurrency needs accountConcurrency, the account's concurrency limit (aws lambda get-account-settings: AccountLimit.ConcurrentExecutions, less other functions' reservations); it must be at least ${formula}`,
      );
    }
    if (accountConcurrency < needed) {
      const most = Math.floor((accountConcurrency - LAMBDA_UNRESERVED_MINIMUM) / pagingFunctionCount());
      const instead = most >= 1 ? `lower pagingConcurrency to at most ${most}` : 'leave pagingConcurrency off (this account can reserve none)';
      throw invalid(
        `pagingConcurrency ${pagingConcurrency} does not fit accountConcurrency ${accountConcurrency}: it needs ${formula}; ${instead}, or raise the quota (Service Quotas: Lambda, Concurrent executions) to at least ${needed}`,
      );
    }
  }
  if (config.data.allowedSignUpDomains && (!config.data.selfSignUp || config.data.jwtIssuer)) {
    throw invalid('allowedSignUpDomains narrows self sign-up, which selfSignUp=false (or jwtIssuer) turns off');
  }
  guardSenderIdentity(node, files, senderIdentityRecord(config.data));
  return config.data;
}

/**
 * What the stage's SES identity is, as a word that changes exactly when CloudFormation would replace
 * (or delete) the identity the stage owns: `address` (the `SenderEmail` parameter's; a parameter,
 * kept by every deploy), `domain:<domain>`, or `existing:…` (owned by another stage).
 */
export const senderIdentityRecord = (config: Pick<DeployConfig, 'senderIdentity' | 'senderDomain'>) => {
  const identity = config.senderDomain ? `domain:${config.senderDomain.toLowerCase()}` : 'address';
  return config.senderIdentity === 'existing' ? `existing:${identity}` : identity;
};
