import { useState } from 'react';
import type { Column } from './columns.ts';
import { editedValue, editText } from './edit-values.ts';

/**
 * The text of a cell editor and what is wrong with it: `change` takes new text (and drops the
 * problem), `commit` turns text into the column's value and saves it, or says why it cannot.
 */
export function useEditedText(column: Column, value: unknown, onSave: (value: unknown) => void) {
  const [text, setText] = useState(() => editText(column, value));
  const [problem, setProblem] = useState<string | null>(null);
  const change = (next: string) => {
    setText(next);
    setProblem(null);
  };
  const commit = (raw: string) => {
    try {
      onSave(editedValue(column, raw));
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  return { text, problem, change, commit };
}
