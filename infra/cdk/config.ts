/** Deployment settings from CDK context (`-c name=value` or cdk.json), validated once. */
import type { Node } from 'constructs';
import * as z from 'zod';

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
  /** The stack's name outright (overrides the one `stage` derives). */
  stackName: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,100}$/, { error: 'stackName must be a CloudFormation stack name' }).optional(),
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
   * The first of two deploys that move a stack deployed before issue 28 onto nested stacks: the API's
   * routes are left out, so the old stack's routes are deleted before the nested stacks create them
   * again (API Gateway refuses a second route with the same key). docs/upgrading.md.
   */
  withoutRoutes: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]).default(false),
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
});

export type DeployConfig = z.output<typeof schema>;

/** The stack's name: `stackName`, else `IncidentService` or `IncidentService-<stage>`. */
export const stackNameOf = (config: Pick<DeployConfig, 'stackName' | 'stage'>) =>
  config.stackName ?? (config.stage ? `IncidentService-${config.stage}` : 'IncidentService');

export function readConfig(node: Node): DeployConfig {
  const raw = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, node.tryGetContext(key)]));
  const config = schema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  if (!config.success) {
    throw new Error(`Invalid CDK context: ${config.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  const { mailFromDomain, senderDomain } = config.data;
  if (mailFromDomain && !(senderDomain && mailFromDomain.toLowerCase().endsWith(`.${senderDomain.toLowerCase()}`))) {
    throw new Error('Invalid CDK context: mailFromDomain must be a subdomain of senderDomain');
  }
  if (mailFromDomain && config.data.senderIdentity === 'existing') {
    throw new Error('Invalid CDK context: mailFromDomain is set on the identity, which senderIdentity=existing leaves to its owner');
  }
  if (Boolean(config.data.apiDomain) !== Boolean(config.data.apiCertificateArn)) {
    throw new Error('Invalid CDK context: apiDomain and apiCertificateArn go together');
  }
  if (Boolean(config.data.jwtIssuer) !== Boolean(config.data.jwtAudience?.length)) {
    throw new Error('Invalid CDK context: jwtIssuer and jwtAudience go together');
  }
  return config.data;
}
