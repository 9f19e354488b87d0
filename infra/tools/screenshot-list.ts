/** The README's pictures of the console (`npm run screenshots` takes each; the README shows each, test/http/console-host.test.ts). */
export const SCREENSHOTS = ['incidents', 'incident', 'on-call', 'schedule', 'monitors', 'monitor', 'escalation-policy', 'team', 'profile', 'webhooks', 'incidents-phone-dark'] as const;
