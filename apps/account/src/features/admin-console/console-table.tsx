import type { ReactNode } from 'react';

/** A row of a `ConsoleTable`: its cells in the order of the columns, and its action cell if any. */
export interface ConsoleTableRow {
  key: string;
  cells: ReactNode[];
  action?: ReactNode;
  /** Set as the row's `data-status` (styles mark a failed or pending row by it). */
  status?: string;
}

/**
 * The console's table: a heading a column, and with `actionLabel` a last column for each row's
 * buttons whose heading is for screen readers only. Every value cell carries its column's name,
 * which a narrow page shows beside the value when the rows become blocks.
 */
export function ConsoleTable(props: {
  columns: readonly string[];
  rows: readonly ConsoleTableRow[];
  actionLabel?: string;
  caption?: string;
  labelledBy?: string;
}) {
  const { columns, actionLabel } = props;
  return (
    <table className="console-table" {...(props.labelledBy ? { 'aria-labelledby': props.labelledBy } : {})}>
      {props.caption ? <caption>{props.caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
          {actionLabel ? (
            <th scope="col">
              <span className="visually-hidden">{actionLabel}</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.key} {...(row.status ? { 'data-status': row.status } : {})}>
            {row.cells.map((cell, i) => (
              <td key={i} data-label={columns[i]}>
                {cell}
              </td>
            ))}
            {actionLabel ? <td>{row.action}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
