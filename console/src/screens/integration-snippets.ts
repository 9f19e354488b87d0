/**
 * The copy-ready configuration for a new integration key: Prometheus Alertmanager's receiver, Grafana's
 * webhook contact point, a PagerDuty Events API v2 client and a heartbeat ping, in the forms the README's
 * "Connecting Prometheus Alertmanager" and docs/walkthroughs.md document. Pure (no DOM): tested beside it.
 */

export interface Snippet {
  /** What it configures, as a person names it ("Prometheus Alertmanager"). */
  title: string;
  /** Where it goes (`alertmanager.yml`, a shell). */
  where: string;
  text: string;
}

/** What a snippet shows instead of a key that is no longer shown (an existing integration's). */
export const KEY_PLACEHOLDER = '<the integration key>';

/** The API's origin without a trailing slash. */
const origin = (apiUrl: string) => apiUrl.replace(/\/+$/, '');

/** A YAML double-quoted scalar (a key of digits alone stays a string). */
const yaml = (value: string) => JSON.stringify(value);

/** A shell word in single quotes. */
const sh = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export function alertmanagerSnippet(apiUrl: string, key: string): Snippet {
  return {
    title: 'Prometheus Alertmanager',
    where: 'alertmanager.yml',
    text: [
      'route:',
      '  receiver: incident-service',
      "  group_by: ['alertname', 'job']",
      'receivers:',
      '  - name: incident-service',
      '    webhook_configs:',
      `      - url: ${yaml(`${origin(apiUrl)}/integrations/alertmanager`)}`,
      '        send_resolved: true',
      '        http_config:',
      '          authorization:',
      '            type: Bearer',
      `            credentials: ${yaml(key)}`,
      '',
    ].join('\n'),
  };
}

/** Grafana's webhook contact point (file provisioning); in its UI: URL, then Authorization header "Bearer" with the key. */
export function grafanaSnippet(apiUrl: string, key: string): Snippet {
  return {
    title: 'Grafana',
    where: 'a contact point (provisioning/alerting/incident-service.yaml)',
    text: [
      'apiVersion: 1',
      'contactPoints:',
      '  - orgId: 1',
      '    name: incident-service',
      '    receivers:',
      '      - uid: incident-service',
      '        type: webhook',
      '        settings:',
      `          url: ${yaml(`${origin(apiUrl)}/integrations/alertmanager`)}`,
      '          httpMethod: POST',
      '          authorization_scheme: Bearer',
      `          authorization_credentials: ${yaml(key)}`,
      '',
    ].join('\n'),
  };
}

/** A trigger through PagerDuty's Events API v2 (`routing_key` authenticates; resolve with the same dedup_key). */
export function eventsV2Snippet(apiUrl: string, key: string): Snippet {
  const event = {
    routing_key: key,
    event_action: 'trigger',
    dedup_key: 'example-alert',
    payload: { summary: 'Example alert: checkout 5xx above 2%', source: 'checkout-api', severity: 'critical' },
  };
  return {
    title: 'Events API v2',
    where: 'a shell, or any PagerDuty Events API v2 client with this URL',
    text: [`curl -X POST ${sh(`${origin(apiUrl)}/v2/enqueue`)} \\`, `  -H 'content-type: application/json' \\`, `  -d ${sh(JSON.stringify(event))}`, ''].join('\n'),
  };
}

/** The heartbeat's URL holds the key (a secret): a cron job or Alertmanager's Watchdog receiver pings it. */
export function heartbeatSnippet(apiUrl: string, key: string): Snippet {
  const url = `${origin(apiUrl)}/heartbeats/${key}`;
  return {
    title: 'Heartbeat',
    where: 'a cron job, or a webhook_configs receiver of Alertmanager’s Watchdog route',
    text: [`curl -fsS -X POST ${sh(url)}`, '', '# alertmanager.yml, for the Watchdog alert (repeat_interval below the heartbeat’s interval):', '#   webhook_configs:', `#     - url: ${yaml(url)}`, '#       send_resolved: false', ''].join('\n'),
  };
}

/** Every snippet for a key: the heartbeat's only when the monitor expects pings. */
export function snippetsFor(apiUrl: string, key: string, heartbeat: boolean): Snippet[] {
  return [alertmanagerSnippet(apiUrl, key), grafanaSnippet(apiUrl, key), eventsV2Snippet(apiUrl, key), ...(heartbeat ? [heartbeatSnippet(apiUrl, key)] : [])];
}
