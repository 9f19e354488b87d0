/**
 * The web console on AWS (issue 44): a stack of its own holding a private bucket behind a CloudFront
 * distribution (origin access control; the bucket answers nobody else), the security headers declared
 * once in `consoleHosting` (shared/system.ts) as a response headers policy, and SPA routing by a
 * CloudFront Function (a path naming no file is answered with /index.html, while a missing file stays
 * a 404). The build is the console's (`console/build/build.ts`, run as the asset's local bundling);
 * its runtime settings (`config.json`: the API's URL and the sign-in's endpoints) are written beside it
 * by the deployment, never built in. `-c console=false` leaves all of it out.
 */
import { AssetHashType, DockerImage, Duration, NestedStack, RemovalPolicy, type NestedStackProps } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { consoleHosting, type ConsoleConfig } from '../../shared/system.js';
import { repositoryRoot } from '../paths.js';

/** A path with no file extension is one of the console's screens: the viewer gets /index.html. */
const SPA_ROUTING = `function handler(event) {
  var request = event.request;
  var last = request.uri.split('/').pop();
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}`;

export interface ConsoleHostingProps extends NestedStackProps {
  /** The origins the console's pages may call: the API's and the sign-in's (its Content-Security-Policy's connect-src). */
  connectOrigins: string[];
  removalPolicy: RemovalPolicy;
}

/** The bucket and the distribution: what the console is served from. */
export class ConsoleHosting extends NestedStack {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution>`: the console's origin (the app client's callback, CORS's allowed origin, the links in messages). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id, props);
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // The files are the build's, deployed again by every deploy: nothing in the bucket is data.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: props.removalPolicy === RemovalPolicy.DESTROY,
    });
    const security = {
      contentSecurityPolicy: { contentSecurityPolicy: consoleHosting.contentSecurityPolicy(props.connectOrigins), override: true },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
    };
    const otherHeaders = (cacheControl: string) => ({
      customHeaders: [
        { header: 'Cache-Control', value: cacheControl, override: true },
        { header: 'Cross-Origin-Opener-Policy', value: consoleHosting.securityHeaders['cross-origin-opener-policy'], override: true },
        { header: 'Permissions-Policy', value: consoleHosting.securityHeaders['permissions-policy'], override: true },
      ],
    });
    const pages = new ResponseHeadersPolicy(this, 'PageHeaders', {
      comment: "The console's pages and settings: security headers, asked for again every time",
      securityHeadersBehavior: security,
      customHeadersBehavior: otherHeaders(consoleHosting.revalidate),
    });
    const assets = new ResponseHeadersPolicy(this, 'AssetHeaders', {
      comment: "The console's content-hashed scripts and styles: security headers, kept a year",
      securityHeadersBehavior: security,
      customHeadersBehavior: otherHeaders(consoleHosting.immutableAssets),
    });
    const origin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    const routing = new CloudFrontFunction(this, 'Routing', {
      code: FunctionCode.fromInline(SPA_ROUTING),
      runtime: FunctionRuntime.JS_2_0,
      comment: "The console's screens are answered with /index.html",
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Incident console',
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        responseHeadersPolicy: pages,
        functionAssociations: [{ eventType: FunctionEventType.VIEWER_REQUEST, function: routing }],
      },
      additionalBehaviors: {
        'assets/*': {
          origin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: CachePolicy.CACHING_OPTIMIZED,
          responseHeadersPolicy: assets,
        },
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
  }
}

/**
 * The console's build, made at synthesis by `console/build/build.ts` (the asset's local bundling, no
 * Docker); skipped where the app skips bundling (the infra tests).
 */
const consoleBuild = () =>
  Source.asset(join(repositoryRoot, 'console'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
      local: {
        tryBundle(outputDir) {
          const built = spawnSync(process.execPath, ['--import', 'tsx', join(repositoryRoot, 'console/build/build.ts'), outputDir], { stdio: 'inherit' });
          if (built.status !== 0) throw new Error(`The console's build failed (exit ${built.status}).`);
          return true;
        },
      },
    },
  });

/** Puts the build and its settings in the bucket, then has CloudFront forget the page and the settings. */
export function deployConsole(scope: Construct, hosting: ConsoleHosting, config: ConsoleConfig) {
  new BucketDeployment(scope, 'ConsoleFiles', {
    destinationBucket: hosting.bucket,
    sources: [consoleBuild(), Source.jsonData(consoleHosting.configFile, config)],
    // A tab still open on the previous build keeps finding its scripts.
    prune: false,
    distribution: hosting.distribution,
    distributionPaths: ['/', '/index.html', `/${consoleHosting.configFile}`, '/manifest.webmanifest'],
    memoryLimit: 256,
  });
}
