import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api/client.js';
import type { Person, Session } from './auth/session.js';
import type { ConsoleConfig } from './config.js';

export interface ConsoleContext {
  config: ConsoleConfig;
  session: Session;
  api: Api;
  /** Who is signed in. */
  me: Person;
}

export const Console = createContext<ConsoleContext | undefined>(undefined);

/** The console's settings, session, API client and the signed-in person (inside <App>). */
export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error('useConsole outside <App>');
  return value;
}
