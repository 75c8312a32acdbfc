import { useState, type FormEvent } from 'react';
import type { Column } from './columns.ts';
import { filterClause, OP_LABELS, opsFor, RELATED_TO, relatedToParts, type Filter, type FilterOp } from './filters.ts';

/** Filters are added one at a time, checked against the column's type before they are applied. */
export function FilterBar(props: { columns: readonly Column[]; filters: readonly Filter[]; onChange(filters: readonly Filter[]): void }) {
  const filterable = props.columns.filter((column) => opsFor(column.type).length > 0);
  const [field, setField] = useState(filterable[0]?.name ?? 'objectId');
  const column = filterable.find((c) => c.name === field) ?? filterable[0]!;
  const ops = opsFor(column.type);
  const [op, setOp] = useState<FilterOp>(ops[0]!);
  const currentOp = ops.includes(op) ? op : ops[0]!;
  const [value, setValue] = useState('');
  const [to, setTo] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const needsValue = currentOp !== 'exists' && currentOp !== 'notExists';
  const dates = column.type === 'Date' || column.type === 'timestamp';

  const add = (event: FormEvent) => {
    event.preventDefault();
    const filter: Filter = { field: column.name, op: currentOp, value: currentOp === 'between' ? `${value}..${to}` : value };
    try {
      filterClause(filter, column.type, column.targetClass);
    } catch (error) {
      setProblem((error as Error).message);
      return;
    }
    setProblem(null);
    props.onChange([...props.filters, filter]);
    setValue('');
    setTo('');
  };

  return (
    <div className="filters">
      <form onSubmit={add} aria-label="Add a filter">
        <select aria-label="Filter column" value={column.name} onChange={(e) => setField(e.target.value)}>
          {filterable.map((c) => (
            <option key={c.name} value={c.name}>{c.name}</option>
          ))}
        </select>
        <select aria-label="Filter operator" value={currentOp} onChange={(e) => setOp(e.target.value as FilterOp)}>
          {ops.map((o) => (
            <option key={o} value={o}>{OP_LABELS[o]}</option>
          ))}
        </select>
        {needsValue && (
          <input aria-label={currentOp === 'between' ? 'From' : 'Filter value'} type={dates && currentOp === 'between' ? 'date' : 'text'} value={value} placeholder={currentOp === 'in' ? 'a, b, c' : currentOp === 'pointsTo' || currentOp === 'holds' ? `objectId of ${column.targetClass ?? ''}` : ''} onChange={(e) => setValue(e.target.value)} />
        )}
        {currentOp === 'between' && <input aria-label="To" type={dates ? 'date' : 'text'} value={to} onChange={(e) => setTo(e.target.value)} />}
        <button type="submit">Add filter</button>
      </form>
      {problem && <p role="alert" className="problem">{problem}</p>}
      {props.filters.length > 0 && (
        <ul className="chips" aria-label="Filters">
          {props.filters.map((filter, index) => (
            <li key={index}>
              {chipText(filter)}
              <button type="button" aria-label={`Remove filter on ${filter.field}`} onClick={() => props.onChange(props.filters.filter((_, i) => i !== index))}>×</button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A filter in words; the relation one names the object whose members are shown. */
function chipText(filter: Filter): string {
  if (filter.field === RELATED_TO && filter.op === 'memberOf') {
    try {
      const owner = relatedToParts(filter.value);
      return `${owner.key} of ${owner.className} ${owner.objectId}`;
    } catch {
      return filter.value;
    }
  }
  return `${filter.field} ${OP_LABELS[filter.op]} ${filter.op === 'exists' || filter.op === 'notExists' ? '' : filter.value}`;
}
