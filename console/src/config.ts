import type { ConsoleConfig } from '../../shared/system.js';

export type { ConsoleConfig };

/** The runtime settings the deployment wrote beside the build (locally, the host serves them). */
export async function loadConfig(): Promise<ConsoleConfig> {
  const answer = await fetch('/config.json', { cache: 'no-cache' });
  if (!answer.ok) throw new Error(`The console's settings (/config.json) could not be read: HTTP ${answer.status}.`);
  return (await answer.json()) as ConsoleConfig;
}
