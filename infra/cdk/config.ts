/** Deployment settings from CDK context (`-c name=value` or cdk.json), validated once. */
import type { Node } from 'constructs';
import * as z from 'zod';

/** The retention periods CloudWatch Logs accepts, in days. */
const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

const list = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()).filter(Boolean));

const schema = z.object({
  /** The verified SES sender. Required (`npm run synth` passes a placeholder). */
  senderEmail: z.email({ error: 'senderEmail is required: npx cdk deploy -c senderEmail=you@yourdomain.com (a verified SES identity)' }),
  /** Verify the whole domain as the SES identity (DKIM records to publish) instead of the sender address alone. */
  senderDomain: z
    .string()
    .regex(/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/i, { error: 'senderDomain must be a domain name, e.g. example.com' })
    .optional(),
  /** An external OIDC issuer instead of the default Cognito user pool (with jwtAudience). */
  jwtIssuer: z.url().optional(),
  jwtAudience: z.union([z.array(z.string()), list]).optional(),
  /** Default stage throttling: steady requests per second and burst. */
  throttleRate: z.coerce.number().positive().default(50),
  throttleBurst: z.coerce.number().int().positive().default(100),
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
  /** Where alarms are sent (optional e-mail subscription of the alarm topic). */
  alarmEmail: z.email().optional(),
});

export type DeployConfig = z.output<typeof schema>;

export function readConfig(node: Node): DeployConfig {
  const raw = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, node.tryGetContext(key)]));
  const config = schema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  if (!config.success) {
    throw new Error(`Invalid CDK context: ${config.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  if (config.data.senderDomain && !config.data.senderEmail.toLowerCase().endsWith(`@${config.data.senderDomain.toLowerCase()}`)) {
    throw new Error('Invalid CDK context: senderEmail must be an address of senderDomain');
  }
  if (Boolean(config.data.jwtIssuer) !== Boolean(config.data.jwtAudience?.length)) {
    throw new Error('Invalid CDK context: jwtIssuer and jwtAudience go together');
  }
  return config.data;
}
