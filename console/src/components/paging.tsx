/** Moving through a list the API hands out a page at a time (its `next_cursor`). */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type Resource, useAction } from '../hooks.js';

/** "First page" / "Next page" for a list shown one page at a time; nothing when there is one page only. */
export function Pager({ cursor, next, onPage }: { cursor: string | undefined; next: string | null | undefined; onPage: (cursor: string | undefined) => void }) {
  if (!cursor && !next) return null;
  return (
    <div class="actions">
      {cursor && (
        <button type="button" onClick={() => onPage(undefined)}>
          First page
        </button>
      )}
      {next && (
        <button type="button" onClick={() => onPage(next)}>
          Next page
        </button>
      )}
    </div>
  );
}

/**
 * A list that grows: the first page (`first`) and the pages fetched after it by `fetchPage(cursor)`, all shown
 * together; `items` picks a page's entries. `reset` forgets the pages after the first (before reading it again).
 */
export function useMore<P extends { next_cursor?: string | null }, T>(first: Resource<P>, items: (page: P) => T[], fetchPage: (cursor: string) => Promise<P>) {
  const [more, setMore] = useState<{ items: T[]; cursor: string | null } | undefined>();
  const cursor = more ? more.cursor : (first.data?.next_cursor ?? null);
  const load = useAction(async () => {
    if (!cursor) return;
    const page = await fetchPage(cursor);
    setMore({ items: [...(more?.items ?? []), ...items(page)], cursor: page.next_cursor ?? null });
  });
  return {
    items: [...(first.data ? items(first.data) : []), ...(more?.items ?? [])],
    cursor,
    load,
    reset: () => setMore(undefined),
  };
}

/** The button that fetches the next page of a `useMore` list, while there is one. */
export function MoreButton({ more, children }: { more: ReturnType<typeof useMore>; children: ComponentChildren }) {
  if (!more.cursor) return null;
  return (
    <button type="button" class="quiet" disabled={more.load.busy} onClick={() => void more.load.run()}>
      {children}
    </button>
  );
}
