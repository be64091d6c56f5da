/**
 * The public booking and rescheduling pages' pickers (no JavaScript): a GET form for the time zone, links for the
 * days, and the day's times as radio buttons named `start`.
 */
type Choices = {
  tz: string;
  zones: string[];
  days: { key: string; label: string }[];
  day: string | null;
  dayLabel: string | null;
  times: { value: string; label: string }[];
};

export function TimeZoneForm(props: { tz: string; zones: string[]; hidden?: Record<string, string | null> }) {
  return (
    <form method="get" className="row wrap" aria-label="Time zone">
      {Object.entries(props.hidden ?? {}).map(([k, v]) => (v ? <input key={k} type="hidden" name={k} value={v} /> : null))}
      <label htmlFor="tz">Times shown in</label>
      <select id="tz" name="tz" defaultValue={props.tz}>
        {props.zones.map((z) => (
          <option key={z} value={z}>
            {z}
          </option>
        ))}
      </select>
      <button className="btn" type="submit">
        Show times
      </button>
    </form>
  );
}

export function DayLinks(props: { choices: Choices; href: (day: string) => string }) {
  const d = props.choices;
  return (
    <nav aria-label="Days" className="row wrap" data-testid="booking-days">
      {d.days.map((day) => (
        <a
          key={day.key}
          href={props.href(day.key)}
          className={day.key === d.day ? 'btn btn-primary' : 'btn'}
          aria-current={day.key === d.day ? 'date' : undefined}
        >
          {day.label}
        </a>
      ))}
    </nav>
  );
}

export function TimeRadios(props: { choices: Choices; checked?: string; error?: string }) {
  const d = props.choices;
  return (
    <fieldset>
      <legend>
        {d.dayLabel} ({d.tz})
      </legend>
      <div className="row wrap" data-testid="booking-times">
        {d.times.map((t) => (
          <label key={t.value} className="check">
            <input type="radio" name="start" value={t.value} defaultChecked={props.checked === t.value} required /> {t.label}
          </label>
        ))}
      </div>
      {props.error ? (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      ) : null}
    </fieldset>
  );
}
