/** A value to copy (a secret shown once, a calendar link), for any screen. */
import { useState } from 'preact/hooks';

/** A value shown once or kept secret, ready to copy: a read-only field (select it by hand too) and a "Copy" button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div class="row">
      <label class="grow-field">
        {label}
        <input readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <button type="button" onClick={() => void copy()} aria-label={`Copy ${label.toLowerCase()}`}>
        Copy
      </button>
      <span role="status" class="muted">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Select the text and copy it.' : ''}
      </span>
    </div>
  );
}
