import type { ReactElement, ReactNode } from 'react';
import { useState } from 'react';
import { Button, Confirm, useNotify, useRefresh } from 'react-admin';
import { messageOf } from '../api/problem';

/** What a confirmed action button says and does. */
export interface ConfirmedActionProps {
  readonly label: string;
  readonly icon?: ReactElement;
  readonly color?: 'primary' | 'warning' | 'error';
  /** The dialog's title and text, and its confirm button (default: the label). */
  readonly title: string;
  readonly content: ReactNode;
  readonly confirmLabel?: string;
  /** Ask first (default); false runs at once (e.g. enabling what was disabled). */
  readonly ask?: boolean;
  /** The call; its refusal is shown as the service words it. */
  readonly run: () => Promise<unknown>;
  /** The notification once done. */
  readonly done: string;
}

/**
 * A button for a destructive or access-changing action: a confirmation first, then the call, a
 * notification and a refresh. Refusals (the last super user, the last sign-in method…) are shown as
 * they come.
 */
export function ConfirmedActionButton({
  label,
  icon,
  color = 'primary',
  title,
  content,
  confirmLabel,
  ask = true,
  run,
  done,
}: ConfirmedActionProps) {
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const go = () => {
    setBusy(true);
    run()
      .then(() => {
        notify(done, { type: 'success', messageArgs: { _: done } });
        refresh();
      })
      .catch((error: unknown) => notify(messageOf(error), { type: 'error', autoHideDuration: 10_000 }))
      .finally(() => {
        setBusy(false);
        setOpen(false);
      });
  };
  return (
    <>
      <Button
        label={label}
        disabled={busy}
        color={color}
        onClick={(event) => {
          // In a list row, the click is the button's, not the row's.
          event.stopPropagation();
          if (ask) setOpen(true);
          else go();
        }}
      >
        {icon}
      </Button>
      <Confirm
        isOpen={open}
        loading={busy}
        title={title}
        content={content}
        confirm={confirmLabel ?? label}
        onClose={() => setOpen(false)}
        onConfirm={go}
      />
    </>
  );
}
