/** Form pieces the screens share. */
import type { ComponentChildren } from 'preact';
import { ErrorNote } from './ui.js';

/** A form's onSubmit: the page stays (no browser submit) and `run` does the work (its busy/error state shows by the form). */
export const submitWith = (run: () => unknown) => (event: Event) => {
  event.preventDefault();
  void run();
};

/** The <option>s for a list of named things (teams, monitors, escalation policies), each valued by its id. */
export function NameOptions({ items }: { items: readonly { id: string; name: string }[] | undefined }) {
  return (
    <>
      {items?.map((item) => (
        <option key={item.id} value={item.id}>
          {item.name}
        </option>
      ))}
    </>
  );
}

/** The <option>s for values of an API enumeration (TRIGGERED, HIGH…), each shown as a word ("Triggered"). */
export function WordOptions({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {value.charAt(0) + value.slice(1).toLowerCase()}
        </option>
      ))}
    </>
  );
}

/** A form's end: the API's refusal, then its primary submit button (disabled while the action runs). */
export function SubmitActions({ error, busy, children }: { error: Error | undefined; busy: boolean | undefined; children: ComponentChildren }) {
  return (
    <>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {children}
        </button>
      </div>
    </>
  );
}
