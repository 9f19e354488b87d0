/** Small pieces every screen uses: times in the reader's zone, errors as the API said them, badges. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/client.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** An instant in the reader's own time zone, with the exact UTC time for machines and tooltips. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const date = new Date(at);
  return (
    <time dateTime={date.toISOString()} title={`${date.toISOString()} (shown in ${zone})`}>
      {dateTime.format(date)}
    </time>
  );
}

export const formatTime = (at: string) => dateTime.format(new Date(at));

/** An error as the API worded it, with each field's problem; announced to screen readers. */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div class="error" role="alert">
      <p>{error.message}</p>
      {details.length > 0 && (
        <ul>
          {details.map((detail) => (
            <li key={`${detail.field}:${detail.message}`}>
              <code>{detail.field}</code>: {detail.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge-${kind.toLowerCase()}`}>{children}</span>;
}

/** A screen's title: the page's heading (focused on arrival, so a screen reader starts there) and the tab's title. */
export function Heading({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Incidents`;
    ref.current?.focus();
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}
