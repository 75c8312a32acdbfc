import type { FieldSchema } from '../../api/types.ts';
import { pointerCandidates, pointerFieldsOf, POINTER_OPERATIONS, USER_FIELD_LISTS, withPointerField, type Permissions } from './permissions.ts';

const COLUMNS = [...USER_FIELD_LISTS, ...POINTER_OPERATIONS] as const;

/**
 * Pointer permissions: the user a field points at may read (`readUserFields`), write
 * (`writeUserFields`) or do one operation (its `pointerFields`) on that object. Only the class's
 * Pointer-to-_User and Array columns qualify, so only they are offered.
 */
export function PointerPermissions(props: { fields: Readonly<Record<string, FieldSchema>>; permissions: Permissions | null; onChange(next: Permissions): void }) {
  const { permissions } = props;
  const candidates = pointerCandidates(props.fields);
  return (
    <section aria-label="Pointer permissions">
      <h4>Pointer permissions</h4>
      {candidates.length === 0 ? (
        <p className="muted">No column of this class is a Pointer to _User or an Array, so none can grant access to the user it names.</p>
      ) : (
        <table className="config-table" aria-label="Pointer permissions per column">
          <thead>
            <tr><th>Column</th>{COLUMNS.map((column) => <th key={column}>{column}</th>)}</tr>
          </thead>
          <tbody>
            {candidates.map((field) => (
              <tr key={field} data-pointer-field={field}>
                <td>{field} <span className="muted">({props.fields[field]!.type})</span></td>
                {COLUMNS.map((column) => (
                  <td key={column}>
                    <input
                      type="checkbox"
                      aria-label={`pointer ${field}: ${column}`}
                      disabled={!permissions}
                      checked={permissions ? pointerFieldsOf(permissions, column).includes(field) : false}
                      onChange={(event) => permissions && props.onChange(withPointerField(permissions, column, field, event.target.checked))}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
