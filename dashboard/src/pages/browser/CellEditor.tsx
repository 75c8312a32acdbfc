import type { KeyboardEvent } from 'react';
import type { Column } from './columns.ts';
import { editedAsJson } from './edit-values.ts';
import { useEditedText } from './useEditedText.ts';

const PLACEHOLDERS: Partial<Record<Column['type'], string>> = {
  Date: '2024-01-31T12:00:00Z',
  GeoPoint: 'latitude, longitude',
  Pointer: 'objectId',
};

/**
 * The editor of one cell, by the column's type: Enter saves (Ctrl+Enter in the JSON panel),
 * Escape leaves the value as it was. A value that does not fit the type is said, not sent.
 */
export function CellEditor(props: { column: Column; value: unknown; onSave(value: unknown): void; onCancel(): void }) {
  const { text, problem, change, commit } = useEditedText(props.column, props.value, props.onSave);
  const label = `New value of ${props.column.name}`;
  const json = editedAsJson(props.column);

  const keyDown = (event: KeyboardEvent) => {
    event.stopPropagation();
    if (event.key === 'Enter' && (!json || event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      commit(text);
    } else if (event.key === 'Escape') {
      props.onCancel();
    }
  };

  if (props.column.type === 'Boolean') {
    return (
      <select autoFocus aria-label={label} value={text} onKeyDown={keyDown} onChange={(e) => commit(e.target.value)} onBlur={props.onCancel}>
        <option value="">(not set)</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  if (json) {
    return (
      <div className="json-editor" role="dialog" aria-label={`Edit ${props.column.name}`}>
        <label>
          {props.column.name} ({props.column.type}, JSON)
          <textarea autoFocus aria-label={label} aria-invalid={problem ? true : undefined} rows={10} spellCheck={false} value={text} onChange={(e) => change(e.target.value)} onKeyDown={keyDown} />
        </label>
        {problem && <p role="alert" className="problem">{problem}</p>}
        <div className="buttons">
          <button type="button" onClick={() => commit(text)}>Save</button>
          <button type="button" onClick={props.onCancel}>Cancel</button>
        </div>
      </div>
    );
  }
  return (
    <span className="editor">
      <input
        autoFocus
        aria-label={label}
        aria-invalid={problem ? true : undefined}
        type={props.column.type === 'Number' ? 'number' : 'text'}
        value={text}
        onChange={(e) => change(e.target.value)}
        onKeyDown={keyDown}
        onBlur={props.onCancel}
        placeholder={PLACEHOLDERS[props.column.type]}
      />
      {problem && <span role="alert" className="problem">{problem}</span>}
    </span>
  );
}
