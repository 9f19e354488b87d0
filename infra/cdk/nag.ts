/**
 * cdk-nag (AwsSolutions pack) findings we accept, each with its reason. Every other finding fails
 * `cdk synth` and the infra tests.
 */
import { Token, Validations, type Stack } from 'aws-cdk-lib';
import { routes } from '../../shared/system.js';

/** The public routes, from the system description (a new one is named here without an edit). */
const publicRouteKeys = () => routes.filter((route) => route.auth === 'none').map((route) => `${route.method} ${route.path}`);

export const ACKNOWLEDGED: Record<string, string> = {
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
    "Lambda roles use the AWS managed AWSLambdaBasicExecutionRole, which only lets a function write its own CloudWatch logs.",
  'AwsSolutions-IAM5[Resource::*]':
    'X-Ray trace submission (xray:PutTraceSegments, xray:PutTelemetryRecords) and dynamodb:ListStreams accept no resource but "*"; AWS requires it. ' +
    "The notifier's ses:SendEmail is on every identity because the SES sandbox also authorizes against each recipient's identity; its ses:FromAddress condition allows the stage's sender address only.",
  'AwsSolutions-COG2': 'MFA is optional (TOTP) so that self sign-up works for everyone; an organisation can require it in its user pool.',
  'AwsSolutions-COG8': 'The Plus feature plan is a paid add-on left to the operator; the Essentials plan covers sign-up and sign-in.',
  'AwsSolutions-SQS3': 'These queues are the dead-letter queues themselves.',
  // The web console (issue 44, infra/cdk/console.ts): static files in a private bucket behind CloudFront.
  'AwsSolutions-S1':
    "The console's bucket holds only the build, written by each deploy; CloudFront (origin access control) is its only reader. Its server access log would record CloudFront's fetches of static files.",
  'AwsSolutions-CFR1': 'The console is for responders wherever they are on call: no country is excluded.',
  'AwsSolutions-CFR2':
    'The distribution serves static files only (GET and HEAD, no data); a web ACL costs about $5-10 a month a stage. The API the console calls has its own throttling.',
  'AwsSolutions-CFR3':
    "Access logs of the console's static files would cost a log bucket per stage for requests that carry no data; every API call the console makes is in the API's access log.",
  'AwsSolutions-CFR4':
    "Without a custom domain the distribution uses CloudFront's default *.cloudfront.net certificate, whose minimum protocol CloudFront sets itself; browsers negotiate TLS 1.2 or 1.3 with it.",
  'AwsSolutions-L1': "CDK's BucketDeployment (which copies the console's build into its bucket) runs on the Python runtime its CDK release pins.",
  'AwsSolutions-IAM5[Action::s3:GetObject*]': "CDK's BucketDeployment reads the build from CDK's asset bucket and writes it into the console's bucket: CDK's own grants, on those two buckets only.",
  'AwsSolutions-IAM5[Action::s3:GetBucket*]': "CDK's BucketDeployment: the same grants, on the asset bucket and the console's bucket only.",
  'AwsSolutions-IAM5[Action::s3:List*]': "CDK's BucketDeployment: the same grants, on the asset bucket and the console's bucket only.",
  'AwsSolutions-IAM5[Action::s3:DeleteObject*]': "CDK's BucketDeployment: the same grants, on the console's bucket only.",
  'AwsSolutions-IAM5[Action::s3:Abort*]': "CDK's BucketDeployment: the same grants, on the console's bucket only.",
};

/** A value as cdk-nag prints it: itself when the environment fixes it, else its pseudo parameter. */
const concrete = (value: string, pseudo: string) => (Token.isUnresolved(value) ? pseudo : value);

/** Findings that name the stack's own resources. */
const stackFindings = (stack: Stack): Record<string, string> => ({
  [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${concrete(stack.account, '<AWS::AccountId>')}-${concrete(stack.region, '<AWS::Region>')}/*]`]:
    "CDK's BucketDeployment reads the console's build from CDK's asset bucket, where `cdk deploy` uploaded it.",
  [`AwsSolutions-IAM5[Resource::<ConsoleNestedStackConsoleNestedStackResource3C3A87D2.Outputs.${stack.stackName.replace(/[^A-Za-z0-9]/g, '')}ConsoleFilesE7649A3DArn>/*]`]:
    "CDK's BucketDeployment writes the console's build into the console's bucket, and only there.",
  'AwsSolutions-APIG4': `Only ${publicRouteKeys().length} routes are public (${publicRouteKeys().join(', ')}): the links in e-mails, which must work without signing in (a 256-bit token authorizes each), and the alert endpoints monitoring tools post to, which an integration key of about 165 bits authorizes (in the body, as PagerDuty's Events API has it, or in Authorization); each of these routes has throttling of its own.`,
  [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${stack.stackName}-escalation/*]`]:
    'The escalation scheduler creates one schedule per escalation step (names per incident, unknown in advance; each deletes itself after it ran), only within its own schedule group.',
  [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${stack.stackName}-webhooks/whk-*]`]:
    'The webhook worker creates one schedule per retry of a message due beyond 15 minutes (sooner ones go through the retry queue; names per message and attempt, unknown in advance; each deletes itself after it ran), only named whk-* within the webhook retries\' own schedule group.',
  [`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${stack.stackName}-escalation/esc-now-*]`]:
    "sms-inbound escalates an incident now (an SMS reply <n>e) by creating one schedule of its next step, due at once (names per incident and step, unknown in advance; each deletes itself after it ran), only named esc-now-* within the service's schedule group.",
});

/** Every acknowledgement for this stack, by finding id. */
export const acknowledgementsFor = (stack: Stack): Record<string, string> => ({ ...ACKNOWLEDGED, ...stackFindings(stack) });

export function acknowledgeFindings(stack: Stack) {
  for (const [id, reason] of Object.entries(acknowledgementsFor(stack))) {
    Validations.of(stack).acknowledge({ id, reason });
  }
}
