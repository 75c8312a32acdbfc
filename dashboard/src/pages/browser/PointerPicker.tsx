import type { KeyboardEvent } from 'react';
import type { AppApi } from '../../api/client.ts';
import type { ClassSchema, ParseObject } from '../../api/types.ts';
import type { Column } from './columns.ts';
import { useEditedText } from './useEditedText.ts';
import { labelField, PICK_LIMIT, pointerSearch } from './pickers.ts';
import { useSearch } from '../shared/useSearch.ts';

/**
 * A Pointer's editor: an objectId typed (Enter saves it; empty unsets), or an object of the target
 * class picked from the list that follows the typing (objectId prefix, or the start of the class's
 * name, username or title column).
 */
export function PointerPicker(props: { api: AppApi; column: Column; target: ClassSchema | undefined; value: unknown; onSave(value: unknown): void; onCancel(): void }) {
  const { text, problem, change, commit } = useEditedText(props.column, props.value, props.onSave);
  const target = props.column.targetClass ?? '';
  const label = labelField(props.target);
  const { matches, problem: searchProblem } = useSearch<ParseObject>(text, (typed) =>
    props.api.find(target, { where: pointerSearch(typed, label), order: 'objectId', limit: PICK_LIMIT, keys: label ? [label] : ['objectId'] }),
  );
  const keyDown = (event: KeyboardEvent) => {
    event.stopPropagation();
    if (event.key === 'Enter') {
      event.preventDefault();
      commit(text);
    } else if (event.key === 'Escape') props.onCancel();
  };
  return (
    <div className="json-editor" role="dialog" aria-label={`Edit ${props.column.name}`}>
      <label>
        {props.column.name} (Pointer → {target}): an objectId{label ? ` or the start of a ${label}` : ''}
        <input autoFocus aria-label={`New value of ${props.column.name}`} aria-invalid={problem ? true : undefined} value={text} placeholder="objectId" onKeyDown={keyDown} onChange={(e) => change(e.target.value)} />
      </label>
      {problem && <p role="alert" className="problem">{problem}</p>}
      {searchProblem && <p className="problem">{searchProblem}</p>}
      {matches.length > 0 && (
        <ul className="picks" aria-label={`Matching ${target} objects`}>
          {matches.map((object) => (
            <li key={object.objectId}>
              <button type="button" onClick={() => props.onSave({ __type: 'Pointer', className: target, objectId: object.objectId })}>
                {object.objectId}{label && typeof object[label] === 'string' ? ` · ${String(object[label])}` : ''}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="buttons">
        <button type="button" onClick={() => commit(text)}>Save</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </div>
  );
}
