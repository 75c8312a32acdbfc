import type { Column } from './columns.ts';

/** Which columns the grid shows; objectId always stays. */
export function ColumnChooser(props: { columns: readonly Column[]; hidden: ReadonlySet<string>; onChange(hidden: ReadonlySet<string>): void }) {
  return (
    <details className="column-chooser">
      <summary>Columns</summary>
      <fieldset>
        <legend>Shown columns</legend>
        {props.columns
          .filter((column) => column.name !== 'objectId')
          .map((column) => (
            <label key={column.name}>
              <input
                type="checkbox"
                checked={!props.hidden.has(column.name)}
                onChange={(event) => {
                  const next = new Set(props.hidden);
                  if (event.target.checked) next.delete(column.name);
                  else next.add(column.name);
                  props.onChange(next);
                }}
              />
              {column.name}
            </label>
          ))}
      </fieldset>
    </details>
  );
}
