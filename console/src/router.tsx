/**
 * A small router over the History API: paths are the console's URLs (deep links from e-mails and chat
 * open straight at the screen), links are plain `<a href>` taken over on click, so a screen reader and
 * the keyboard see ordinary links.
 */
import { useEffect, useState } from 'preact/hooks';

type Listener = () => void;
const listeners = new Set<Listener>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
  if (!options.replace) window.scrollTo(0, 0);
}

/** The current location; re-renders on navigation. */
export function useLocation(): URL {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    addEventListener('popstate', listener);
    return () => {
      listeners.delete(listener);
      removeEventListener('popstate', listener);
    };
  }, []);
  return new URL(location.href);
}

/** Same-origin links navigate in place (a modifier key or another target keeps the browser's way). */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}

/** Matches `pattern` (`/incidents/:id`) against `path`: the named parts, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (path === '/' && pattern === '/') return {};
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(have[i]!);
    else if (part !== have[i]) return undefined;
  }
  return params;
}
