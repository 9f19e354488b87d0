/**
 * A button that asks before a destructive action, in a native modal <dialog> (focus moves in and back,
 * Escape cancels). A refusal stays in the dialog in the API's words.
 */
import type { ComponentChildren } from 'preact';
import { useId, useRef } from 'preact/hooks';
import { ErrorNote } from '../components/ui.js';
import { useAction } from '../hooks.js';

export function ConfirmButton(props: {
  /** The button's text. */
  children: ComponentChildren;
  /** Its accessible name when the text alone is ambiguous ("Revoke Prometheus"). */
  label?: string;
  title: string;
  confirm: string;
  onConfirm: () => Promise<unknown>;
  message: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const action = useAction(props.onConfirm);
  const close = () => {
    action.clear();
    dialog.current?.close();
  };
  return (
    <>
      <button type="button" class="danger" aria-label={props.label} onClick={() => dialog.current?.showModal()}>
        {props.children}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} onClose={() => action.clear()}>
        <h2 id={`${id}-title`}>{props.title}</h2>
        <div>{props.message}</div>
        <ErrorNote error={action.error} />
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={async () => {
              if (await action.run()) dialog.current?.close();
            }}
          >
            {props.confirm}
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
