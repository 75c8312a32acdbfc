import { useState, type KeyboardEvent } from 'react';
import { editText, type Column } from './columns.ts';
import { wireValue } from './filters.ts';

/** The editor of one cell, by the column's type: Enter saves, Escape leaves it as it was. */
export function CellEditor(props: { column: Column; value: unknown; onSave(value: unknown): void; onCancel(): void }) {
  const [text, setText] = useState(() => editText(props.column, props.value));
  const [problem, setProblem] = useState<string | null>(null);
  const label = `New value of ${props.column.name}`;

  const commit = (raw: string) => {
    if (props.column.type === 'String') return props.onSave(raw);
    if (raw.trim() === '') return props.onSave({ __op: 'Delete' });
    try {
      props.onSave(wireValue(props.column.type, raw));
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const keyDown = (event: KeyboardEvent) => {
    event.stopPropagation();
    if (event.key === 'Enter') {
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
  return (
    <span className="editor">
      <input
        autoFocus
        aria-label={label}
        aria-invalid={problem ? true : undefined}
        type={props.column.type === 'Number' ? 'number' : 'text'}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={keyDown}
        onBlur={props.onCancel}
        placeholder={props.column.type === 'Date' ? '2024-01-31T12:00:00Z' : undefined}
      />
      {problem && <span role="alert" className="problem">{problem}</span>}
    </span>
  );
}
