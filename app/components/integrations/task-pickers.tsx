import { Field, SelectField, type AnyField } from '~/components/ui/forms';
import type { AsanaPicker } from '~/models/integrations/asana/asana.server';
import type { ClickupPicker } from '~/models/integrations/clickup/clickup.server';

/**
 * Pickers for where a task goes (ADR 118): plain selects filled from the provider's API by the loader. Without
 * JavaScript, "Show projects" / "Show spaces" / "Show lists" submit the form as a GET, so the page comes back with the
 * next level read for the choice (and what was typed kept in the address). A typed ID is still accepted.
 */
function PickButton({ label }: { label: string }) {
  return (
    <p>
      <button type="submit" className="btn" formMethod="get" formNoValidate>
        {label}
      </button>
    </p>
  );
}

function PickError({ error }: { error: string | null }) {
  return error ? (
    <p className="field-error" role="alert">
      {error}
    </p>
  ) : null;
}

export function AsanaProjectPicker({ picker, fields }: { picker: AsanaPicker; fields: { workspace: AnyField; project: AnyField; projectId: AnyField } }) {
  return (
    <>
      <SelectField label="Workspace" field={fields.workspace} options={picker.workspaces.map((w) => ({ value: w.gid, label: w.name }))} />
      <PickButton label="Show projects" />
      <PickError error={picker.error} />
      <SelectField
        label="Project"
        field={fields.project}
        options={picker.projects.map((p) => ({ value: p.gid, label: p.name }))}
        placeholder={picker.projects.length ? 'No project (the workspace only)' : 'No projects listed (the workspace only)'}
      />
      <Field label="Or project ID" field={fields.projectId} hint="The digits in a project's Asana address, for a project not listed (optional)" />
    </>
  );
}

export function ClickupListPicker({ picker, fields }: { picker: ClickupPicker; fields: { team: AnyField; space: AnyField; list: AnyField; listId: AnyField } }) {
  return (
    <>
      <SelectField label="Workspace" field={fields.team} options={picker.teams.map((t) => ({ value: t.id, label: t.name }))} placeholder={picker.teams.length === 1 ? undefined : 'Choose a Workspace'} />
      {picker.teams.length > 1 ? <PickButton label="Show spaces" /> : null}
      <SelectField label="Space" field={fields.space} options={picker.spaces.map((x) => ({ value: x.id, label: x.name }))} placeholder={picker.spaces.length ? 'Choose a Space' : 'No spaces listed'} />
      <PickButton label="Show lists" />
      <PickError error={picker.error} />
      <SelectField label="List" field={fields.list} options={picker.lists.map((l) => ({ value: l.id, label: l.name }))} placeholder={picker.lists.length ? 'Choose a list' : 'No lists listed: choose a Space'} />
      <Field label="Or list ID" field={fields.listId} hint="The digits in a list's ClickUp address, for a list not shown (optional)" />
    </>
  );
}
