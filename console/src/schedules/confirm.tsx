/** A confirmation in a native modal <dialog> (focus kept inside, Escape cancels), with the API's refusal shown in it. */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { ErrorNote } from '../components/ui.js';

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirm: string;
  busy?: boolean;
  error?: Error | undefined;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={() => props.open && props.onCancel()}>
      <form
        method="dialog"
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <ErrorNote error={props.error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={props.busy}>
            {props.confirm}
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
