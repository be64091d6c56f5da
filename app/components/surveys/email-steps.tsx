import { EMAIL_LIMITS } from '~/models/surveys/constants';
import { Check, FieldErrors, Radios, Select, TextInput } from './fields';
import type { ReplyReader } from './reply';

export type RecipientList = { id: number; name: string; fileName: string; status: 'mapping' | 'ready'; successCount: number; failedCount: number };

/**
 * The email channel's Target step (survey-builder.md section 2): respondents by tag, or by an uploaded CSV/Excel list.
 * The upload is a button of the step's (multipart) form: `intent=csv-upload` with the list name and the file.
 */
export function EmailTargetFields({
  r,
  tags,
  lists,
  draft,
  csvError,
  surveyId,
}: {
  surveyId: number;
  r: ReplyReader;
  tags: { id: number; name: string }[];
  lists: RecipientList[];
  draft: boolean;
  csvError: string | null;
}) {
  const chosen = new Set(((r.value('tagIds') as unknown[] | undefined) ?? []).map(String));
  const ready = lists.filter((l) => l.status === 'ready');
  const waiting = lists.filter((l) => l.status === 'mapping');
  return (
    <div className="card stack email-target">
      <h2>Respondents</h2>
      <Radios
        r={r}
        name="audience"
        legend="Identify respondents"
        options={[
          { value: 'tags', label: 'By tag' },
          { value: 'csv', label: 'By CSV upload' },
        ]}
      />
      <fieldset className="field audience-tags">
        <legend>Contacts with any of these tags</legend>
        <div className="choice-grid">
          {tags.map((t) => (
            <label key={t.id} className="check">
              <input type="checkbox" name="tagIds" value={t.id} defaultChecked={chosen.has(String(t.id))} /> {t.name}
            </label>
          ))}
        </div>
        {tags.length === 0 ? <p className="muted">No tags yet: create them under Settings → Tags.</p> : null}
        <FieldErrors errors={r.errorsUnder('tagIds')} />
      </fieldset>
      <div className="audience-csv stack">
        {ready.length ? (
          <Select r={r} name="listId" label="Recipient list" options={ready.map((l) => ({ value: l.id, label: `${l.name} (${l.successCount} addresses, ${l.failedCount} failed)` }))} />
        ) : (
          <FieldErrors errors={r.errors('listId')} />
        )}
        {waiting.length && draft ? (
          <ul className="stack" aria-label="Lists waiting for their column mapping">
            {waiting.map((l) => (
              <li key={l.id}>
                <a href={`/surveys/${surveyId}/lists/${l.id}`}>{`Map the columns of ${l.name}`}</a>
              </li>
            ))}
          </ul>
        ) : null}
        <fieldset className="field" data-testid="csv-upload">
          <legend>Upload a list</legend>
          {draft ? null : <p className="muted">A list can be uploaded only while the survey is a draft.</p>}
          <TextInput r={r} name="listName" label="List name" maxLength={EMAIL_LIMITS.listName} hint={`At most ${EMAIL_LIMITS.listName} characters`} />
          <div className="field">
            <label htmlFor="csv-file">CSV or Excel file</label>
            <input id="csv-file" type="file" name="file" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" disabled={!draft} aria-describedby="csv-hint" />
            <small id="csv-hint" className="muted">
              Under 5 MB, with a column of email addresses and optionally names; you map the columns next.{' '}
              <a href="/samples/survey-recipients.csv" download>
                Sample file
              </a>
            </small>
          </div>
          <button type="submit" className="btn" name="intent" value="csv-upload" disabled={!draft}>
            Upload list
          </button>
          {csvError ? (
            <p className="field-error" role="alert" data-testid="csv-error">
              {csvError}
            </p>
          ) : null}
        </fieldset>
      </div>
    </div>
  );
}

/** The email channel's part of the Settings step: schedule later (date, time, zone) and recurring (every N days). */
export function EmailScheduleFields({ r, zones }: { r: ReplyReader; zones: readonly string[] }) {
  return (
    <div className="card stack">
      <h2>Sending</h2>
      <div className="toggle-block">
        <Check r={r} name="schedule.sendLater" label="Schedule later (otherwise it is sent when published)" />
        <div className="toggled row wrap">
          <TextInput r={r} name="schedule.sendDate" type="date" label="Date" />
          <div className="field">
            <label htmlFor="schedule-time">Time</label>
            <input id="schedule-time" name="schedule.sendTime" type="time" defaultValue={r.text('schedule.sendTime') || '09:00'} />
            <FieldErrors errors={r.errors('schedule.sendTime')} />
          </div>
          <Select r={r} name="schedule.timezone" label="Time zone" placeholder="Select a time zone" options={zones.map((z) => ({ value: z, label: z.replace(/_/g, ' ') }))} />
        </div>
      </div>
      <div className="toggle-block">
        <Check r={r} name="schedule.recurring" label="Recurring survey" />
        <div className="toggled stack">
          <Radios
            r={r}
            name="schedule.interval"
            legend="Send every"
            options={[
              { value: '7', label: '7 days' },
              { value: '30', label: '30 days' },
              { value: '60', label: '60 days' },
              { value: 'custom', label: 'Custom' },
            ]}
          />
          <TextInput r={r} name="schedule.customDays" type="number" label="Custom interval (days)" min={1} max={EMAIL_LIMITS.customIntervalMax} />
        </div>
      </div>
    </div>
  );
}
