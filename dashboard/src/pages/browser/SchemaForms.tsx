import { useState, type FormEvent } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema, FieldType } from '../../api/types.ts';

const FIELD_TYPES: readonly FieldType[] = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'GeoPoint', 'File', 'Pointer', 'Relation', 'Polygon', 'Bytes'];

/** A new, empty class (POST /1/schemas/<className>); the server checks the name. */
export function NewClassForm(props: { api: AppApi; onCreated(schema: ClassSchema): void }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      props.onCreated(await props.api.createClass(name));
      setName('');
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <form className="new-class" onSubmit={submit} aria-label="Create a class">
      <label>
        New class
        <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <button type="submit">Create class</button>
      {problem && <p role="alert" className="problem">{problem}</p>}
    </form>
  );
}

/** A new column of a type (PUT /1/schemas/<className>); Pointer and Relation name their target class. */
export function AddColumnForm(props: { api: AppApi; className: string; onChanged(schema: ClassSchema): void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<FieldType>('String');
  const [target, setTarget] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const needsTarget = type === 'Pointer' || type === 'Relation';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      props.onChanged(await props.api.addField(props.className, name, needsTarget ? { type, targetClass: target } : { type }));
      setName('');
    } catch (error) {
      setProblem(failureText(error));
    }
  };
  return (
    <details className="add-column">
      <summary>Add column</summary>
      <form onSubmit={submit} aria-label="Add a column">
        <label>
          Column name
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Column type
          <select value={type} onChange={(e) => setType(e.target.value as FieldType)}>
            {FIELD_TYPES.map((t) => (
              <option key={t} value={t}>{t}</option>
            ))}
          </select>
        </label>
        {needsTarget && (
          <label>
            Target class
            <input value={target} onChange={(e) => setTarget(e.target.value)} required />
          </label>
        )}
        <button type="submit">Add</button>
        {problem && <p role="alert" className="problem">{problem}</p>}
      </form>
    </details>
  );
}
