import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api/client.js';

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  /** Reads it again (after a change); the data shown stays until the new answer arrives. */
  reload: () => Promise<void>;
}

/**
 * Reads `load` when `key` changes, and again every `everyMs` while the tab is visible (the list of
 * incidents follows changes without a reload). A late answer for an older key is dropped.
 */
export function useResource<T>(load: () => Promise<T>, key: unknown[], everyMs?: number): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError | Error; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    try {
      const data = await latest.current();
      if (mine === generation.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === generation.current) setState((previous) => ({ data: previous.data, error: error as Error, loading: false }));
    }
  }, []);
  useEffect(() => {
    setState({ loading: true });
    void reload();
    if (!everyMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, everyMs);
    return () => clearInterval(timer);
  }, key);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Runs an action, keeping its error to show and whether it is under way. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | undefined>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
      return true;
    } catch (caught) {
      setError(caught as Error);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(undefined) };
}
