import type { ReactNode, Ref } from 'react';
import type { Loaded } from './use-load.ts';
import { ConsoleTable } from './console-table.tsx';
import { Loadable } from './loadable.tsx';

// What the console's lists of credentials share (API clients, SCIM tokens): the notice line, the
// block that shows a new secret once, the "Revoke …?" question and the table with a Revoke button a
// row. Every word comes from the caller (the copy module); the markup and its roles are here.

export type Notice = { text: string } | { error: string } | null;

/** Copies `value`; answers the notice to show (`copied`, or `failed` when the clipboard is refused). */
export async function copyText(value: string, copied: string, failed: string): Promise<Notice> {
  try {
    await navigator.clipboard.writeText(value);
    return { text: copied };
  } catch {
    return { error: failed };
  }
}

/** One status line, or one alert line for an error. */
export function NoticeLine({ notice }: { notice: Notice }) {
  if (notice && 'text' in notice) {
    return (
      <p role="status" className="notice">
        {notice.text}
      </p>
    );
  }
  return notice ? <p role="alert">{notice.error}</p> : null;
}

/**
 * A new secret, shown this once: a region named by its heading, the warning, the secret (`children`),
 * then Copy and "I have copied …". `level` is the heading's level in its section.
 */
export function ShownOnce(props: {
  titleId: string;
  level: 3 | 4;
  heading: string;
  headingRef?: Ref<HTMLHeadingElement>;
  warning: string;
  children: ReactNode;
  copyLabel: string;
  onCopy: () => void;
  doneLabel: string;
  onDone: () => void;
}) {
  const Heading = props.level === 3 ? 'h3' : 'h4';
  return (
    <div className="notice" role="region" aria-labelledby={props.titleId}>
      <Heading id={props.titleId} {...(props.headingRef ? { ref: props.headingRef, tabIndex: -1 } : {})}>
        {props.heading}
      </Heading>
      <p>{props.warning}</p>
      {props.children}
      <div className="row">
        <button type="button" className="button" onClick={props.onCopy}>
          {props.copyLabel}
        </button>
        <button type="button" className="button secondary" onClick={props.onDone}>
          {props.doneLabel}
        </button>
      </div>
    </div>
  );
}

/**
 * "Revoke …?" as an alert dialog, the focus on Cancel. With `escapable` it is non-modal and Escape
 * cancels it.
 */
export function ConfirmRevoke(props: {
  textId: string;
  text: string;
  confirmLabel: string;
  cancelLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  escapable?: boolean;
}) {
  return (
    <div
      role="alertdialog"
      {...(props.escapable
        ? {
            'aria-modal': false,
            onKeyDown: (event: { key: string }) => {
              if (event.key === 'Escape') props.onCancel();
            },
          }
        : {})}
      aria-labelledby={props.textId}
      className="notice"
    >
      <p id={props.textId}>{props.text}</p>
      <div className="row">
        <button type="button" className="button" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        <button type="button" className="button secondary" autoFocus onClick={props.onCancel}>
          {props.cancelLabel}
        </button>
      </div>
    </div>
  );
}

/** A row of a `TokenTable`: its cells, and its Revoke button unless it is already revoked. */
export interface TokenRow {
  id: string;
  cells: ReactNode[];
  revoke: { label: string; onClick: () => void; ref?: (el: HTMLButtonElement | null) => void } | null;
}

/**
 * The list: loading, failed, empty (`empty`), or a table of `rows(value)` with a column a heading,
 * then the Revoke column (its heading for screen readers only).
 */
export function TokenList<T>(
  props: Omit<TokenTableProps, 'rows'> & { list: Loaded<T>; rows: (value: T) => TokenRow[] },
) {
  const { list, rows, ...table } = props;
  return <Loadable loaded={list}>{(value) => <TokenTable {...table} rows={rows(value)} />}</Loadable>;
}

interface TokenTableProps {
  rows: TokenRow[];
  empty: string;
  labelledBy?: string;
  columns: string[];
  revokeLabel: string;
  busy: boolean;
}

function TokenTable(props: TokenTableProps) {
  const { rows } = props;
  if (rows.length === 0) return <p>{props.empty}</p>;
  return (
    <ConsoleTable
      columns={props.columns}
      actionLabel={props.revokeLabel}
      {...(props.labelledBy ? { labelledBy: props.labelledBy } : {})}
      rows={rows.map((row) => ({
        key: row.id,
        cells: row.cells,
        action: row.revoke ? (
          <button
            type="button"
            className="button secondary"
            disabled={props.busy}
            aria-label={row.revoke.label}
            ref={row.revoke.ref}
            onClick={row.revoke.onClick}
          >
            {props.revokeLabel}
          </button>
        ) : null,
      }))}
    />
  );
}
