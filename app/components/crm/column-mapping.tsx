import { SelectField, type AnyField } from '~/components/ui/forms';
import { countLabel } from '~/utils/format';

/**
 * The mapping step of a CSV/Excel upload: one field chooser per column of the file above its first rows. Used by the
 * contact import and the email survey's recipient lists, so both map columns the same way.
 */
export function ColumnMappingTable({
  header,
  rows,
  columns,
  fallback,
  options,
}: {
  header: string[];
  rows: string[][];
  /** One conform field per column (`fields.mapping.getFieldList()`); `fallback` stands in for a missing one. */
  columns: AnyField[];
  fallback: AnyField;
  options: readonly { value: string; label: string }[];
}) {
  return (
    <>
      <div className="table-scroll">
        <table className="table" data-testid="mapping">
          <thead>
            <tr>
              {header.map((h, i) => (
                <th key={i} scope="col">
                  <SelectField label={h} field={columns[i] ?? fallback} options={options} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, r) => (
              <tr key={r}>
                {header.map((_, i) => (
                  <td key={i}>{row[i] ?? ''}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">Preview of the first {countLabel(rows.length, 'row')}.</p>
    </>
  );
}
