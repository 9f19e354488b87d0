/**
 * Where a webhook may point, and the one way its requests are sent.
 *
 * A target is refused unless it is `https`, carries no credentials, and its host (an IP literal,
 * or every address its name resolves to) is a public unicast address: loopback, private,
 * link-local, shared (carrier-grade NAT), multicast, unspecified, broadcast, reserved and
 * documentation ranges are refused, IPv4 and IPv6 alike, including IPv6 forms that embed an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16). The URL parser
 * normalises odd IPv4 literals first (`2130706433`, `0177.0.0.1`, `0x7f.1` are all 127.0.0.1).
 *
 * The local runtime's opt-in (`loopbackPorts`, the ports its user named in LOCAL_WEBHOOK_PORTS; the
 * deployed stack names none) also lets a webhook reach those ports of the same machine, and no
 * other: plain `http` to 127.0.0.1, [::1] or `localhost` with a named port, and `https` to any name
 * that resolves to loopback on a named port. Every other private address stays refused.
 *
 * `deliver` checks the target again, resolving the name once, and connects to exactly the
 * address it checked (the connection's `lookup` is pinned to it, so a DNS answer that changes in
 * between — rebinding — is never used), keeping the name for the Host header and TLS (SNI and the
 * certificate's name). It follows no redirect, gives up after 10 s in all (the answer's headers
 * and the part of its body it reads), keeps at most the first 1 KB of the response body and
 * drops the rest with the connection. It never throws for a network error: the result says what
 * happened.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv4, isIPv6 } from 'node:net';

/** A webhook request must be answered within this time (headers and the body read). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a response body is kept for the delivery record. */
export const RESPONSE_EXCERPT_BYTES = 1024;
/** The longest URL a webhook may have. */
export const MAX_URL_LENGTH = 2000;

export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'documentation';

const CLASS_TEXT: Record<AddressClass, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  shared: 'a shared (carrier-grade NAT) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  documentation: 'a documentation address',
};

export type RefusalReason = 'invalid' | 'too_long' | 'scheme' | 'credentials' | 'address' | 'unresolvable';

/** A target this module will not send to; the message is fit for the caller (it never carries the URL's credentials). */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
    readonly addressClass?: AddressClass,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to all of its addresses (injectable: tests answer names the machine cannot resolve). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export interface TargetOptions {
  /**
   * The local runtime's opt-in: the ports of the same machine a webhook may reach (the ones its user
   * named; none named, none reached). Unset on AWS: no loopback address at all, nor plain http.
   */
  loopbackPorts?: readonly number[];
  resolve?: Resolver;
}

/** The name of the local runtime's variable that names the ports (said in a refusal, so the user knows what to set). */
export const LOOPBACK_PORTS_VARIABLE = 'LOCAL_WEBHOOK_PORTS';

/** Reads a comma-separated list of ports (the functions' environment); anything else in it names no port. */
export const loopbackPortsFrom = (text: string): number[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => /^\d{1,5}$/.test(part))
    .map(Number)
    .filter((port) => port > 0 && port < 65536);

export interface CheckedTarget {
  url: URL;
  /** The host as a name or bare IP literal (no brackets). */
  host: string;
  /** Every address the host stands for, each one checked. */
  addresses: ResolvedAddress[];
}

// ---------------------------------------------------------------------------------------------
// Address classes

/** IPv4 special-purpose ranges (IANA registry) as [network, prefix length, class], the narrowest first where they nest (kept as text: a module constant builds no values by calls). */
const IPV4_RANGES: Array<[string, number, AddressClass]> = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function classifyV4Number(address: number): AddressClass | undefined {
  for (const [network, length, kind] of IPV4_RANGES) {
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    if ((address & mask) >>> 0 === parseV4(network)) return kind;
  }
  return undefined;
}

function parseV4(address: string): number {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** The eight 16-bit groups of an IPv6 address (any textual form, a dotted IPv4 tail included). */
function parseV6(address: string): number[] {
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  let text = address;
  if (last.includes('.')) {
    const n = parseV4(last);
    text = `${address.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = groups(rest ?? '');
  return rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function classifyV6(groups: number[]): AddressClass | undefined {
  const g = (i: number) => groups[i]!;
  const embeddedV4 = (hi: number, lo: number) => classifyV4Number(((hi << 16) | lo) >>> 0);
  const zeroUpTo = (n: number) => groups.slice(0, n).every((x) => x === 0);
  if (groups.every((x) => x === 0)) return 'unspecified';
  if (zeroUpTo(7) && g(7) === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped): the IPv4 address's own class.
  if (zeroUpTo(5) && g(5) === 0xffff) return embeddedV4(g(6), g(7));
  // ::a.b.c.d (IPv4-compatible, deprecated): the IPv4 address's class, else reserved.
  if (zeroUpTo(6)) return embeddedV4(g(6), g(7)) ?? 'reserved';
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix): the IPv4 address's class.
  if (g(0) === 0x64 && g(1) === 0xff9b && groups.slice(2, 6).every((x) => x === 0)) return embeddedV4(g(6), g(7));
  // 64:ff9b:1::/48 (local-use NAT64).
  if (g(0) === 0x64 && g(1) === 0xff9b && g(2) === 1) return 'private';
  // 2002:AABB:CCDD::/48 (6to4): the embedded IPv4 address's class.
  if (g(0) === 0x2002) return embeddedV4(g(1), g(2));
  if (g(0) === 0x2001 && g(1) === 0x0db8) return 'documentation';
  // 2001::/23: IETF protocol assignments (Teredo, ORCHID, benchmarking…).
  if (g(0) === 0x2001 && g(1) < 0x0200) return 'reserved';
  if (g(0) === 0x3fff && g(1) < 0x1000) return 'documentation';
  if ((g(0) & 0xfe00) === 0xfc00) return 'private';
  if ((g(0) & 0xffc0) === 0xfe80) return 'link-local';
  // fec0::/10: site-local (deprecated), private in effect.
  if ((g(0) & 0xffc0) === 0xfec0) return 'private';
  if ((g(0) & 0xff00) === 0xff00) return 'multicast';
  // Only 2000::/3 holds global unicast; the rest is unassigned or special.
  if ((g(0) & 0xe000) !== 0x2000) return 'reserved';
  return undefined;
}

/** The class of a special-purpose address, or undefined for a public unicast one. */
export function classifyAddress(address: string): AddressClass | undefined {
  if (isIPv4(address)) return classifyV4Number(parseV4(address));
  if (isIPv6(address)) return classifyV6(parseV6(address));
  throw new Error(`Not an IP address: ${address}`);
}

// ---------------------------------------------------------------------------------------------
// Checking a target

const HTTP_LOOPBACK_TEXT = 'URL must use https (plain http only to a loopback address with a port)';

/** The port a URL connects to (its scheme's when it names none). */
const portOf = (url: URL) => (url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port));

/** Checks what the URL alone tells (scheme, credentials, an IP literal's class); DNS comes after. */
export function parseTarget(text: string, options: Pick<TargetOptions, 'loopbackPorts'>): { url: URL; host: string; literal?: ResolvedAddress } {
  if (text.length > MAX_URL_LENGTH) throw new TargetRefused('too_long', `URL is too long (limit ${MAX_URL_LENGTH} characters)`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetRefused('invalid', 'URL is not valid');
  }
  const plainHttp = url.protocol === 'http:';
  const local = options.loopbackPorts !== undefined;
  if (url.protocol !== 'https:' && !(plainHttp && local)) throw new TargetRefused('scheme', 'URL must use https');
  if (url.username !== '' || url.password !== '') throw new TargetRefused('credentials', 'URL must not contain credentials');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal: ResolvedAddress | undefined = isIPv4(host) ? { address: host, family: 4 } : isIPv6(host) ? { address: host, family: 6 } : undefined;
  if (plainHttp) {
    const loopbackHost = literal ? classifyAddress(literal.address) === 'loopback' : host === 'localhost';
    if (!loopbackHost || url.port === '') throw new TargetRefused('scheme', HTTP_LOOPBACK_TEXT);
  }
  if (literal) checkAddress(literal.address, 'points to', portOf(url), options.loopbackPorts);
  return { url, host, ...(literal ? { literal } : {}) };
}

function checkAddress(address: string, verb: 'points to' | 'resolves to', port: number, loopbackPorts: readonly number[] | undefined) {
  const kind = classifyAddress(address);
  if (kind === undefined) return;
  if (kind === 'loopback' && loopbackPorts) {
    if (loopbackPorts.includes(port)) return;
    // Locally: only the ports the user named, never another service of this machine (the runtime's own, DynamoDB Local's).
    throw new TargetRefused('address', `URL ${verb} port ${port} of this machine, which ${LOOPBACK_PORTS_VARIABLE} does not name (${address})`, kind);
  }
  throw new TargetRefused('address', `URL ${verb} ${CLASS_TEXT[kind]} (${address})`, kind);
}

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * Checks a webhook URL completely (at create time and before each delivery): the URL, then every
 * address its name resolves to. Throws `TargetRefused`; answers the addresses to connect to.
 */
export async function checkTarget(text: string, options: TargetOptions): Promise<CheckedTarget> {
  const { url, host, literal } = parseTarget(text, options);
  if (literal) return { url, host, addresses: [literal] };
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? systemResolver)(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code && !NOT_FOUND_CODES.has(code)) throw new TargetRefused('unresolvable', `URL host could not be resolved (${code})`);
    addresses = [];
  }
  if (addresses.length === 0) throw new TargetRefused('unresolvable', 'URL host does not resolve');
  for (const { address } of addresses) checkAddress(address, 'resolves to', portOf(url), options.loopbackPorts);
  if (url.protocol === 'http:' && addresses.some(({ address }) => classifyAddress(address) !== 'loopback')) {
    throw new TargetRefused('scheme', HTTP_LOOPBACK_TEXT);
  }
  return { url, host, addresses };
}

// ---------------------------------------------------------------------------------------------
// Delivering

export interface DeliverOptions extends TargetOptions {
  /** The whole request's limit; 10 s unless a test shortens it. */
  timeoutMs?: number;
  /** Extra trusted certificate authorities (a test's self-signed receiver); the system's are always trusted. */
  ca?: string | Buffer;
}

export interface DeliveryResult {
  /** The response's status, when one arrived. */
  status?: number;
  duration_ms: number;
  /** What went wrong: a refused target, a network error, a timeout, a redirect not followed. */
  error?: string;
  /** True when the target itself was refused (its checks failed); no request was sent. */
  refused?: true;
  /** The response body's first 1 KB, as text (empty when there was none). */
  response_excerpt: string;
  /** The response's `Retry-After` header, as sent. */
  retry_after?: string;
}

/** `lookup` for a connection that may only go to the addresses already checked. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = family ? addresses.filter((address) => address.family === family) : addresses;
    if (usable.length === 0) {
      callback(Object.assign(new Error('No checked address of the requested family'), { code: 'ENOTFOUND' }), '');
      return;
    }
    if (options.all) callback(null, usable.map(({ address, family }): LookupAddress => ({ address, family })));
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
}

const networkErrorText = (error: unknown) => {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ? `${code}: ${message}` : String(message ?? error);
};

/**
 * POSTs `body` to `url` with `headers` (the signature headers; `content-type`, `content-length`,
 * `host` and `user-agent` are set here). Never throws for network errors or a refused target.
 */
export async function deliver(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: DeliverOptions,
): Promise<DeliveryResult> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const elapsed = () => Math.round(performance.now() - started);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const timedOut = `Timed out after ${timeoutMs} ms`;
  try {
    let target: CheckedTarget;
    try {
      target = await Promise.race([
        checkTarget(url, options),
        new Promise<never>((_, reject) => abort.signal.addEventListener('abort', () => reject(new Error(timedOut)), { once: true })),
      ]);
    } catch (error) {
      if (error instanceof TargetRefused) {
        return { duration_ms: elapsed(), error: error.message, response_excerpt: '', ...(error.reason === 'unresolvable' ? {} : { refused: true as const }) };
      }
      return { duration_ms: elapsed(), error: timedOut, response_excerpt: '' };
    }
    const result = await send(target, headers, body, options, abort.signal);
    return { duration_ms: elapsed(), ...result, ...(result.error === undefined && abort.signal.aborted ? { error: timedOut } : {}) };
  } finally {
    clearTimeout(timer);
  }
}

function send(
  { url, host, addresses }: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  options: DeliverOptions,
  signal: AbortSignal,
): Promise<Omit<DeliveryResult, 'duration_ms'>> {
  return new Promise((resolve) => {
    const payload = Buffer.from(body, 'utf8');
    const requestHeaders: OutgoingHttpHeaders = {
      ...headers,
      host: url.host,
      'content-type': 'application/json',
      'content-length': payload.length,
      'user-agent': 'incident-service-webhooks/1',
    };
    const secure = url.protocol === 'https:';
    let status: number | undefined;
    let retryAfter: string | undefined;
    const excerpt = { decoder: new TextDecoder('utf-8'), text: '', bytes: 0 };
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      request.destroy();
      resolve({
        ...(status !== undefined ? { status } : {}),
        ...(error !== undefined ? { error } : {}),
        response_excerpt: excerpt.text,
        ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
      });
    };
    const onResponse = (response: IncomingMessage) => {
      status = response.statusCode;
      const header = response.headers['retry-after'];
      if (typeof header === 'string') retryAfter = header;
      const redirect = status !== undefined && status >= 300 && status < 400 ? 'Redirect not followed' : undefined;
      response.on('data', (chunk: Buffer) => {
        const room = RESPONSE_EXCERPT_BYTES - excerpt.bytes;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        excerpt.bytes += part.length;
        // A character cut at the 1 KB mark is left out (the decoder holds its bytes back).
        excerpt.text += excerpt.decoder.decode(part, { stream: true });
        if (excerpt.bytes >= RESPONSE_EXCERPT_BYTES) finish(redirect);
      });
      response.on('end', () => {
        excerpt.text += excerpt.decoder.decode();
        finish(redirect);
      });
      response.on('error', (error) => finish(signal.aborted ? undefined : networkErrorText(error)));
    };
    const request = (secure ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: requestHeaders,
        agent: false,
        lookup: pinnedLookup(addresses),
        signal,
        ...(secure && options.ca ? { ca: options.ca } : {}),
      },
      onResponse,
    );
    request.on('error', (error) => finish(signal.aborted ? undefined : networkErrorText(error)));
    // The caller turns an abort into "Timed out"; this settles whatever stage the request is in.
    signal.addEventListener('abort', () => finish(), { once: true });
    request.end(payload);
  });
}
