import { Heart, Star, ThumbsUp } from 'lucide-react';
import { faceLabel, scaleLabel, scaleOf } from '~/models/surveys/answers';
import type { SurveyMessages, SurveyQuestion } from '~/models/surveys/types';

/**
 * One question of a public survey as plain HTML inputs (ADR 061): every type answerable with JavaScript off. Scales
 * are radio buttons drawn as a row of choices; names follow `readAnswersFromForm` (a.{id}, c.{id}.{i}, f.{id}.{i}).
 */

type Raw = unknown;
const asText = (v: Raw) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
const choiceOf = (v: Raw) => (v && typeof v === 'object' && 'choice' in v ? String((v as { choice: unknown }).choice ?? '') : asText(v));
const choicesOf = (v: Raw) =>
  v && typeof v === 'object' && 'choices' in v && Array.isArray((v as { choices: unknown }).choices) ? (v as { choices: string[] }).choices ?? [] : [];
const commentOf = (v: Raw, choice: string) => {
  if (!v || typeof v !== 'object') return '';
  if ('comments' in v) return String((v as { comments?: Record<string, string> }).comments?.[choice] ?? '');
  if ('choice' in v && (v as { choice: string }).choice === choice) return String((v as { comment?: string }).comment ?? '');
  return '';
};

/** A face for a smiley or CSAT point: the mouth curves from sad (-1) to happy (1). */
function Face({ mood }: { mood: number }) {
  const k = Math.round(mood * 4);
  return (
    <svg width="32" height="32" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" aria-hidden="true">
      <circle cx="12" cy="12" r="10" />
      <path d="M9 9.5h.01M15 9.5h.01" strokeWidth="2.4" />
      <path d={`M8 ${k >= 0 ? 14.5 : 16.5}q4 ${k} 8 0`} />
    </svg>
  );
}

const SHAPES = { stars: Star, hearts: Heart, thumbs: ThumbsUp } as const;

function Scale({ q, value, describedBy }: { q: SurveyQuestion; value: Raw; describedBy?: string }) {
  const scale = scaleOf(q)!;
  const points = Array.from({ length: scale.max - scale.min + 1 }, (_, i) => scale.min + i);
  const current = asText(value);
  const faces = q.type === 'smiley' || q.type === 'csat';
  const Shape = q.type === 'rating' && q.settings.scaleStyle === 'shapes' ? SHAPES[q.settings.scaleShape ?? 'stars'] : null;
  const left = q.settings.leftText;
  const right = q.settings.rightText;
  return (
    <>
      <div className={`sv-scale${faces ? ' sv-faces' : ''}${q.type === 'nps' ? ' sv-nps' : ''}`}>
        {points.map((n) => {
          const id = `a-${q.id}-${n}`;
          const label = faces ? faceLabel(q.settings.range ?? 5, n) : scaleLabel(q, n);
          return (
            <span key={n}>
              <input type="radio" id={id} name={`a.${q.id}`} value={n} defaultChecked={current === String(n)} aria-describedby={describedBy} />
              <label htmlFor={id} title={label}>
                {faces ? (
                  <>
                    <Face mood={(n - (scale.min + scale.max) / 2) / ((scale.max - scale.min) / 2)} />
                    <span className="visually-hidden">{label}</span>
                  </>
                ) : Shape ? (
                  <>
                    <Shape size={24} aria-hidden="true" />
                    <span className="visually-hidden">{n}</span>
                  </>
                ) : (
                  label
                )}
              </label>
            </span>
          );
        })}
      </div>
      {left || right ? (
        <div className="sv-ends" aria-hidden="true">
          <span>{q.type === 'nps' ? `0 - ${left ?? ''}` : left}</span>
          <span>{q.type === 'nps' ? `10 - ${right ?? ''}` : right}</span>
        </div>
      ) : null}
    </>
  );
}

const FIELD_INPUT: Record<string, { type: string; autoComplete: string }> = {
  'full name': { type: 'text', autoComplete: 'name' },
  email: { type: 'email', autoComplete: 'email' },
  company: { type: 'text', autoComplete: 'organization' },
  department: { type: 'text', autoComplete: 'off' },
  'job title': { type: 'text', autoComplete: 'organization-title' },
  phone: { type: 'tel', autoComplete: 'tel' },
  website: { type: 'url', autoComplete: 'url' },
  country: { type: 'text', autoComplete: 'country-name' },
};

/** The answer area of one question (no heading): for the chat bubbles, which show the question apart. */
export function AnswerArea({ q, value, messages, errorId }: { q: SurveyQuestion; value: Raw; messages: SurveyMessages; errorId?: string }) {
  const name = `a.${q.id}`;
  const id = `a-${q.id}`;
  switch (q.type) {
    case 'welcome':
    case 'thank-you':
      return null;
    case 'nps':
    case 'rating':
    case 'smiley':
    case 'csat':
    case 'ces':
      return <Scale q={q} value={value} describedBy={errorId} />;
    case 'text':
      return (
        <textarea
          id={id}
          name={name}
          rows={4}
          maxLength={2000}
          placeholder={messages.textPlaceholder}
          defaultValue={asText(value)}
          aria-labelledby={`q-${q.id}`}
          aria-describedby={errorId}
        />
      );
    case 'date':
      return <input id={id} type="date" name={name} defaultValue={asText(value)} aria-labelledby={`q-${q.id}`} aria-describedby={errorId} />;
    case 'dropdown': {
      const current = choiceOf(value);
      return (
        <select id={id} name={name} defaultValue={current} aria-labelledby={`q-${q.id}`} aria-describedby={errorId}>
          <option value="">{messages.dropdownPlaceholder}</option>
          {(q.settings.options ?? []).map((o) => (
            <option key={o.choice} value={o.choice} title={o.tooltip || undefined}>
              {o.choice}
            </option>
          ))}
        </select>
      );
    }
    case 'radio':
    case 'checkbox': {
      const multi = q.type === 'checkbox';
      const picked = multi ? choicesOf(value) : [choiceOf(value)];
      return (
        <div className="sv-options">
          {(q.settings.options ?? []).map((o, i) => (
            <div key={o.choice} className="sv-option">
              <input
                type={multi ? 'checkbox' : 'radio'}
                id={`${id}-${i}`}
                name={name}
                value={o.choice}
                defaultChecked={picked.includes(o.choice)}
                aria-describedby={errorId}
              />
              <label htmlFor={`${id}-${i}`} title={o.tooltip || undefined}>
                {o.choice}
              </label>
              {o.enableComment ? (
                <input
                  className="sv-comment"
                  name={`c.${q.id}.${i}`}
                  aria-label={`Comment on ${o.choice}`}
                  placeholder="Add a comment (optional)"
                  maxLength={500}
                  defaultValue={commentOf(value, o.choice)}
                />
              ) : null}
            </div>
          ))}
        </div>
      );
    }
    case 'form': {
      const values = value && typeof value === 'object' ? (value as Record<string, string>) : {};
      return (
        <div className="sv-form">
          {(q.settings.fields ?? []).map((f, i) => (
            <div key={f.name} className="sv-field">
              <label htmlFor={`${id}-${i}`}>
                {f.label}
                {f.isRequired ? ' *' : ''}
              </label>
              <input
                id={`${id}-${i}`}
                name={`f.${q.id}.${i}`}
                maxLength={200}
                defaultValue={values[f.name] ?? ''}
                {...(FIELD_INPUT[f.type] ?? FIELD_INPUT['full name'])}
              />
            </div>
          ))}
        </div>
      );
    }
    default:
      return null;
  }
}

/** A whole question: number, heading, text, the mandatory mark, the answer area and its error. */
export function QuestionInput(props: { q: SurveyQuestion; number?: number; value: Raw; error?: string; messages: SurveyMessages; indicateMandatory: boolean }) {
  const { q, error } = props;
  const errorId = error ? `e-${q.id}` : undefined;
  return (
    <div className={`sv-question${error ? ' sv-invalid' : ''}`} role="group" aria-labelledby={`q-${q.id}`}>
      {q.heading ? <p className="sv-heading">{q.heading}</p> : null}
      <p className="sv-text" id={`q-${q.id}`}>
        {props.number ? <span className="sv-number">{props.number}. </span> : null}
        {q.question}
        {props.indicateMandatory && q.isRequired ? (
          <span className="sv-required" title="Required">
            {' '}
            *
          </span>
        ) : null}
      </p>
      <AnswerArea q={q} value={props.value} messages={props.messages} errorId={errorId} />
      {error ? (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
