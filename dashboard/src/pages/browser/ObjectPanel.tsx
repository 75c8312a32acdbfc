import { useEffect, useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { ApiFailure, failureText } from '../../api/errors.ts';
import type { ParseObject } from '../../api/types.ts';
import type { Column } from './columns.ts';
import { CellValue, type Follow } from './CellValue.tsx';

/** One object's fields, every column of its class, for the URL of one object (`…/browser/<className>/<objectId>`). */
export function ObjectPanel(props: { api: AppApi; className: string; objectId: string; columns: readonly Column[]; epoch: number; onFollow(follow: Follow): void; onClose(): void }) {
  const [object, setObject] = useState<ParseObject | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    props.api.get(props.className, props.objectId).then(
      (found) => live && setObject(found),
      (error: unknown) => live && setProblem(error instanceof ApiFailure && error.code === 101 ? `No object ${props.objectId} in ${props.className}.` : failureText(error)),
    );
    return () => {
      live = false;
    };
    // Read again after an edit in the grid (epoch), so the panel shows what is stored.
  }, [props.api, props.className, props.objectId, props.epoch]);
  return (
    <section className="object-panel" aria-label={`Object ${props.objectId}`}>
      <div className="row">
        <h3>{props.className} {props.objectId}</h3>
        <span className="spacer" />
        <button type="button" onClick={props.onClose}>Show all rows</button>
      </div>
      {problem && <p role="alert" className="problem">{problem}</p>}
      {object && (
        <dl>
          {props.columns.map((column) => (
            <div key={column.name} data-field={column.name}>
              <dt>{column.name} <span className="type">{column.targetClass ? `${column.type} → ${column.targetClass}` : column.type}</span></dt>
              <dd><CellValue className={props.className} row={object} column={column} onFollow={props.onFollow} /></dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
