import { DeleteConfirm } from '~/components/ui/delete-confirm';
import {
  BRAND_COLORS,
  DATE_SEPARATORS,
  DATE_STRUCTURES,
  FORM_FIELD_TYPES,
  LIMITS,
  MESSAGE_KEYS,
  MESSAGE_LABELS,
  MESSAGE_LIMITS,
  PLACEHOLDERS,
  POSITIONS,
  QUESTION_TYPE_LABELS,
  QUESTION_TYPES,
  SCALE_SHAPES,
  SCALE_STYLES,
  THEME_LABELS,
  THEME_TYPES,
  type SurveyChannel,
  type SurveySubType,
} from '~/models/surveys/constants';
import type { SurveyQuestion } from '~/models/surveys/types';
import { Check, FieldErrors, Radios, Select, TextArea, TextInput } from './fields';
import { useEffect, useRef, useState } from 'react';
import { useHydrated, type ReplyReader } from './reply';

type Panel = 'components' | 'design' | 'messages';

/**
 * The design step's three side tabs as one exclusive accordion (`<details name>`: no script needed). All three
 * panels sit in the one step form, so Save, Next and every question button send the whole step (ADR 055).
 */
export function DesignPanels({
  channel,
  subType,
  questions,
  selected,
  panel,
  r,
  senders,
  logo,
}: {
  channel: SurveyChannel;
  subType: SurveySubType;
  questions: SurveyQuestion[];
  selected: SurveyQuestion | null;
  panel: Panel;
  r: ReplyReader;
  senders: string[];
  logo: React.ReactNode;
}) {
  const hasWelcome = questions.some((q) => q.type === 'welcome');
  const [open, setOpen] = useState<Panel>(panel);
  // With JavaScript the open panel is remembered in the form, so a save comes back to it ('toggle' does not bubble).
  useEffect(() => {
    const form = document.getElementById('step-form');
    if (!form) return;
    const onToggle = (e: Event) => {
      const details = e.target as HTMLDetailsElement;
      if (details.open && details.dataset.panel) setOpen(details.dataset.panel as Panel);
    };
    form.addEventListener('toggle', onToggle, true);
    return () => form.removeEventListener('toggle', onToggle, true);
  }, []);
  return (
    <div className="editor-panels">
      <input type="hidden" name="panel" value={open} />
      <details name="design-panel" open={panel === 'components'} data-panel="components" data-testid="panel-components">
        <summary>Choose Components</summary>
        <div className="panel">
          <ol className="question-cards" aria-label="Questions">
            {questions.map((q, i) => {
              const pinned = subType !== 'custom';
              return (
                <li key={q.id} className="question-card" aria-current={q.id === selected?.id ? 'true' : undefined} data-testid={`question-${i}`} data-type={q.type}>
                  <button type="submit" className="q-label" name="intent" value={`select:${q.id}`} title="Edit this question">
                    <strong>{QUESTION_TYPE_LABELS[q.type]}</strong> · {q.question}
                  </button>
                  <button type="submit" className="btn" name="intent" value={`up:${q.id}`} disabled={i === 0 || (pinned && i <= 1)} aria-label={`Move question ${i + 1} up`}>
                    ↑
                  </button>
                  <button type="submit" className="btn" name="intent" value={`down:${q.id}`} disabled={i === questions.length - 1 || (pinned && i === 0)} aria-label={`Move question ${i + 1} down`}>
                    ↓
                  </button>
                  <button type="submit" className="btn" name="intent" value={`clone:${q.id}`} disabled={q.type === 'welcome'} aria-label={`Clone question ${i + 1}`}>
                    Clone
                  </button>
                  <DeleteConfirm
                    id={`q-${q.id}`}
                    form="step-form"
                    intent={`delete:${q.id}`}
                    disabled={i === 0}
                    disabledReason="The first question cannot be deleted"
                    label={<span aria-label={`Delete question ${i + 1}`}>Delete</span>}
                  />
                </li>
              );
            })}
          </ol>
          <fieldset className="field">
            <legend>Add a question</legend>
            <div className="add-question">
              {QUESTION_TYPES.filter((t) => !(t === 'welcome' && hasWelcome)).map((t) => (
                <button key={t} type="submit" className="btn" name="intent" value={`add:${t}`} data-testid={`add-${t}`}>
                  + {QUESTION_TYPE_LABELS[t]}
                </button>
              ))}
            </div>
          </fieldset>
          {selected ? <QuestionEditor q={selected} r={r} /> : <p className="muted">Choose a question above to edit it.</p>}
        </div>
      </details>
      <details name="design-panel" open={panel === 'design'} data-panel="design" data-testid="panel-design">
        <summary>Design</summary>
        <div className="panel">
          <DesignFields channel={channel} r={r} senders={senders} logo={logo} />
        </div>
      </details>
      <details name="design-panel" open={panel === 'messages'} data-panel="messages" data-testid="panel-messages">
        <summary>Messages</summary>
        <div className="panel">
          <p className="muted">Manage all survey message related settings</p>
          {MESSAGE_KEYS.map((k) => (
            <TextInput key={k} r={r} name={`messages.${k}`} label={MESSAGE_LABELS[k]} maxLength={MESSAGE_LIMITS[k]} hint={`At most ${MESSAGE_LIMITS[k]} characters`} />
          ))}
        </div>
      </details>
    </div>
  );
}

function DesignFields({ channel, r, senders, logo }: { channel: SurveyChannel; r: ReplyReader; senders: string[]; logo: React.ReactNode }) {
  const email = channel === 'email';
  const placeholderHint = (
    <span className="placeholders">
      Placeholders: {PLACEHOLDERS.join(' and ')} are replaced by the respondent's name and email.
    </span>
  );
  const inserter = email ? <PlaceholderButtons /> : null;
  return (
    <>
      {email ? (
        <>
          <TextInput r={r} name="design.subject" label="Subject" maxLength={LIMITS.designText} hint={placeholderHint} />
          {inserter}
          <Select r={r} name="design.sendFrom" label="Send Emails from" options={senders.map((s) => ({ value: s, label: s }))} placeholder="Select a sender" />
        </>
      ) : null}
      {logo}
      <TextInput r={r} name="design.header" label="Header" maxLength={LIMITS.designText} hint={email ? placeholderHint : undefined} />
      <TextInput r={r} name="design.subHeader" label="Sub Header" maxLength={LIMITS.designText} hint={email ? placeholderHint : undefined} />
      <div className="footer-toggle">
        <Check r={r} name="design.footerOn" label="Survey Footer" />
        <div className="footer-text">
          <TextArea r={r} name="design.footer" label="Footer text" rows={2} hint="Cleared when the footer is switched off." />
        </div>
      </div>
      <Check r={r} name="design.showQuestionNumber" label="Show Question Number" />
      <Check r={r} name="design.indicateMandatory" label="Indicate Mandatory Questions" />
      <Check r={r} name="design.showBranding" label="Show Branding" />
      {email ? null : <Check r={r} name="design.showProgressBar" label="Show Progress Bar" />}
      {email ? (
        <input type="hidden" name="design.themeType" value="email" />
      ) : (
        <Radios r={r} name="design.themeType" legend="Theme" options={THEME_TYPES[channel].map((t) => ({ value: t, label: THEME_LABELS[t] }))} />
      )}
      {channel === 'in-app' ? <Radios r={r} name="design.position" legend="Position" options={POSITIONS.map((p) => ({ value: p, label: p === 'left' ? 'Left' : 'Right' }))} /> : null}
      <fieldset className="field">
        <legend>Brand colour</legend>
        <div className="colors">
          {BRAND_COLORS.map((c) => (
            <label key={c.hex}>
              <input type="radio" name="design.brandColor" value={c.hex} defaultChecked={r.text('design.brandColor').toUpperCase() === c.hex.toUpperCase()} />
              <span className="swatch" style={{ background: c.hex }} aria-hidden="true" /> {c.name}
            </label>
          ))}
        </div>
        <FieldErrors errors={r.errors('design.brandColor')} />
      </fieldset>
    </>
  );
}

/** The fields of the question being edited, by its type (section 3 "Question settings by type", section 5 limits). */
function QuestionEditor({ q, r }: { q: SurveyQuestion; r: ReplyReader }) {
  const p = 'question';
  const s = `${p}.settings`;
  const sides = (
    <>
      <TextInput r={r} name={`${s}.leftText`} label="Left label" maxLength={LIMITS.sideText} />
      <TextInput r={r} name={`${s}.rightText`} label="Right label" maxLength={LIMITS.sideText} />
    </>
  );
  let settings: React.ReactNode = null;
  switch (q.type) {
    case 'welcome':
      settings = <TextInput r={r} name={`${s}.buttonLabel`} label="Button label" maxLength={LIMITS.buttonLabel} hint={`At most ${LIMITS.buttonLabel} characters`} />;
      break;
    case 'radio':
    case 'checkbox':
    case 'dropdown': {
      const options = (r.value(`${s}.options`) as unknown[] | undefined) ?? [];
      settings = (
        <fieldset className="field">
          <legend>Options</legend>
          {options.map((_, i) => (
            <div key={i} className="option-row">
              <div className="stack">
                <TextInput r={r} name={`${s}.options[${i}].choice`} label={`Option ${i + 1}`} maxLength={LIMITS.option} />
                <TextInput r={r} name={`${s}.options[${i}].tooltip`} label="Tooltip" maxLength={LIMITS.tooltip} />
                <Check r={r} name={`${s}.options[${i}].enableComment`} label="Ask for a comment" />
              </div>
              <button type="submit" className="btn" name="intent" value={`remove-choice:${i}`} disabled={options.length <= LIMITS.options.min} aria-label={`Remove option ${i + 1}`}>
                Remove
              </button>
            </div>
          ))}
          <FieldErrors errors={r.errors(`${s}.options`)} />
          <button type="submit" className="btn" name="intent" value="add-choice">
            + Add option
          </button>
        </fieldset>
      );
      break;
    }
    case 'form': {
      const fields = (r.value(`${s}.fields`) as unknown[] | undefined) ?? [];
      settings = (
        <fieldset className="field">
          <legend>Fields</legend>
          {fields.map((_, i) => (
            <div key={i} className="option-row">
              <div className="stack">
                <Select r={r} name={`${s}.fields[${i}].type`} label={`Field ${i + 1} type`} options={FORM_FIELD_TYPES.map((t) => ({ value: t, label: t }))} />
                <TextInput r={r} name={`${s}.fields[${i}].label`} label="Label" maxLength={LIMITS.formLabel} />
                <Check r={r} name={`${s}.fields[${i}].isRequired`} label="Required" />
              </div>
              <button type="submit" className="btn" name="intent" value={`remove-choice:${i}`} disabled={fields.length <= LIMITS.formFields.min} aria-label={`Remove field ${i + 1}`}>
                Remove
              </button>
            </div>
          ))}
          <FieldErrors errors={r.errors(`${s}.fields`)} />
          <button type="submit" className="btn" name="intent" value="add-choice" disabled={fields.length >= LIMITS.formFields.max}>
            + Add field
          </button>
        </fieldset>
      );
      break;
    }
    case 'rating': {
      const labels = (r.value(`${s}.scaleLabels`) as unknown[] | undefined) ?? [];
      settings = (
        <>
          <Select r={r} name={`${s}.scaleStyle`} label="Scale style" options={SCALE_STYLES.map((x) => ({ value: x, label: x }))} />
          <Select r={r} name={`${s}.scaleShape`} label="Shape (shapes style)" options={SCALE_SHAPES.map((x) => ({ value: x, label: x }))} />
          <TextInput r={r} name={`${s}.range`} type="number" label="Range" min={LIMITS.ratingRange.min} max={LIMITS.ratingRange.max} hint={`${LIMITS.ratingRange.min} to ${LIMITS.ratingRange.max}`} />
          {labels.map((_, i) => (
            <TextInput key={i} r={r} name={`${s}.scaleLabels[${i}]`} label={`Label ${i + 1}`} maxLength={LIMITS.sideText} />
          ))}
          {sides}
        </>
      );
      break;
    }
    case 'smiley':
    case 'csat':
      settings = (
        <>
          <Radios r={r} name={`${s}.range`} legend="Faces" options={LIMITS.smileyRanges.map((n) => ({ value: n, label: String(n) }))} />
          {sides}
        </>
      );
      break;
    case 'ces':
      settings = (
        <>
          <Radios r={r} name={`${s}.range`} legend="Scale" options={LIMITS.cesRanges.map((n) => ({ value: n, label: `0 to ${n}` }))} />
          {sides}
        </>
      );
      break;
    case 'nps':
      settings = sides;
      break;
    case 'date':
      settings = (
        <>
          <Select r={r} name={`${s}.dateStructure`} label="Date structure" options={DATE_STRUCTURES.map((x) => ({ value: x, label: x }))} />
          <Select r={r} name={`${s}.dateSeparator`} label="Separator" options={DATE_SEPARATORS.map((x) => ({ value: x, label: x === ',' ? 'comma' : x }))} />
        </>
      );
      break;
    default:
      settings = null;
  }
  return (
    <fieldset className="field question-editor" data-testid="question-editor">
      <legend>Edit {QUESTION_TYPE_LABELS[q.type]} question</legend>
      <div className="toggle-block">
        <Check r={r} name={`${p}.showHeading`} label="Show an introduction" />
        <div className="toggled">
          <TextInput r={r} name={`${p}.heading`} label="Introduction" maxLength={LIMITS.heading} hint={`At most ${LIMITS.heading} characters`} />
        </div>
      </div>
      <TextInput r={r} name={`${p}.question`} label="Question" maxLength={LIMITS.question} hint={`At most ${LIMITS.question} characters`} />
      {q.type === 'welcome' || q.type === 'thank-you' ? null : <Check r={r} name={`${p}.isRequired`} label="Required" />}
      {settings}
    </fieldset>
  );
}

const PLACEHOLDER_FIELDS = new Set(['design.subject', 'design.header', 'design.subHeader']);

/**
 * Section 4: a placeholder goes in at the cursor of the subject, header or sub-header last used. JavaScript only;
 * without it the placeholders are typed.
 */
function PlaceholderButtons() {
  const hydrated = useHydrated();
  const last = useRef<HTMLInputElement | null>(null);
  useEffect(() => {
    const form = document.getElementById('step-form');
    if (!form) return;
    const onFocus = (e: FocusEvent) => {
      const el = e.target as HTMLInputElement;
      if (PLACEHOLDER_FIELDS.has(el.name)) last.current = el;
    };
    form.addEventListener('focusin', onFocus);
    return () => form.removeEventListener('focusin', onFocus);
  }, []);
  if (!hydrated) return null;
  const insert = (text: string) => {
    const el = last.current ?? (document.querySelector('input[name="design.subject"]') as HTMLInputElement | null);
    if (!el) return;
    const start = el.selectionStart ?? el.value.length;
    const end = el.selectionEnd ?? start;
    el.setRangeText(text, start, end, 'end');
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.focus();
  };
  return (
    <div className="row wrap placeholders" data-testid="placeholder-buttons">
      {PLACEHOLDERS.map((p) => (
        <button key={p} type="button" className="btn" onMouseDown={(e) => e.preventDefault()} onClick={() => insert(p)}>
          Insert {p}
        </button>
      ))}
    </div>
  );
}
