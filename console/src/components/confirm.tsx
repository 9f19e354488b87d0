/**
 * Asking before an action: a native modal <dialog> (focus moves in and back, Escape cancels) with the API's
 * refusal shown in it, or, in a page's own flow, a second button that confirms.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { useAction } from '../hooks.js';
import { ErrorNote } from './ui.js';

/** A confirmation dialog shown while `open`; `danger` marks a destructive confirm button. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirm: string;
  danger?: boolean;
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
          <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={props.busy}>
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

/** A button that asks, in a ConfirmDialog, before a destructive action; the dialog closes once it succeeded. */
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
  const [open, setOpen] = useState(false);
  const action = useAction(props.onConfirm);
  const close = () => {
    action.clear();
    setOpen(false);
  };
  return (
    <>
      <button type="button" class="danger" aria-label={props.label} onClick={() => setOpen(true)}>
        {props.children}
      </button>
      <ConfirmDialog
        open={open}
        danger
        title={props.title}
        confirm={props.confirm}
        busy={action.busy}
        error={action.error}
        onConfirm={async () => {
          if (await action.run()) setOpen(false);
        }}
        onCancel={close}
      >
        <div>{props.message}</div>
      </ConfirmDialog>
    </>
  );
}

/** "Delete …", then in its place the button that does it (`confirm`) and "Keep it"; the API's refusal below. */
export function ConfirmInline(props: { start: string; confirm: string; onConfirm: () => Promise<unknown> }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction(props.onConfirm);
  return (
    <>
      <div class="actions">
        {!confirming ? (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            {props.start}
          </button>
        ) : (
          <>
            <button type="button" class="danger" disabled={action.busy} onClick={() => void action.run()}>
              {props.confirm}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        )}
      </div>
      <ErrorNote error={action.error} />
    </>
  );
}
