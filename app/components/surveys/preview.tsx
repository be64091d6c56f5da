import { SURVEY_MESSAGES, TEXT_SCALE_LABELS, THEME_TYPES, type SurveyChannel } from '~/models/surveys/constants';
import type { SurveyDesign, SurveyMessages, SurveyQuestion } from '~/models/surveys/types';

const FACES_5 = ['😠', '🙁', '😐', '🙂', '😄'];
const FACES_3 = ['🙁', '😐', '🙂'];
const SHAPES: Record<string, string> = { stars: '★', thumbs: '👍', hearts: '♥' };
/** Section 2 "Previews": the header, sub-header and footer show only for these types in an email. */
const SCORE_TYPES = new Set(['rating', 'smiley', 'ces', 'csat', 'nps']);

type Props = {
  channel: SurveyChannel;
  name: string;
  design: SurveyDesign;
  messages: SurveyMessages;
  questions: SurveyQuestion[];
  selectedId: string | null;
  logoUrl: string | null;
};

/**
 * The survey as a respondent will see it, drawn on the server: the channel's theme (full, small, pop-over;
 * traditional, conversational; email) showing the question being edited (section 2 "Previews").
 */
export function SurveyPreview(props: Props) {
  const { channel, design, questions, selectedId } = props;
  const selected = questions.find((q) => q.id === selectedId) ?? null;
  const theme = design.themeType;
  let body;
  if (!(THEME_TYPES[channel] as readonly string[]).includes(theme)) body = <p data-testid="preview-empty">{SURVEY_MESSAGES.noTheme}</p>;
  else if (theme === 'traditional') body = <Traditional {...props} />;
  else if (!selected) body = <p data-testid="preview-empty">{SURVEY_MESSAGES.noPreview}</p>;
  else if (theme === 'conversational') body = <Conversational {...props} selected={selected} />;
  else if (theme === 'email') body = <Email {...props} selected={selected} />;
  else body = <InApp {...props} selected={selected} />;
  return (
    <aside className="preview-pane" aria-label="Preview" data-testid="preview" data-theme={theme}>
      <h2>Preview</h2>
      {body}
    </aside>
  );
}

function Frame({ design, className = '', children }: { design: SurveyDesign; className?: string; children: React.ReactNode }) {
  return (
    <div className={`pv ${className}`} style={{ ['--pv' as string]: design.brandColor }}>
      {children}
    </div>
  );
}

function Brand({ design }: { design: SurveyDesign }) {
  return design.showBranding ? <p className="pv-brand">Powered by Parley</p> : null;
}

function numberOf(questions: SurveyQuestion[], q: SurveyQuestion) {
  // Section 4: the count excludes the welcome question.
  const asked = questions.filter((x) => x.type !== 'welcome');
  return { current: asked.findIndex((x) => x.id === q.id) + 1, total: asked.length };
}

function InApp({ design, messages, questions, selected, logoUrl }: Props & { selected: SurveyQuestion }) {
  const n = numberOf(questions, selected);
  return (
    <Frame design={design} className={`pv-${design.themeType} pv-${design.position}`}>
      {logoUrl ? <img className="pv-logo" src={logoUrl} alt="" /> : null}
      {design.showProgressBar && selected.type !== 'welcome' ? (
        <p className="pv-progress">
          {n.current}/{n.total}
        </p>
      ) : null}
      <QuestionView q={selected} design={design} messages={messages} number={design.showQuestionNumber && selected.type !== 'welcome' ? n.current : null} />
      <button type="button" className="pv-btn" disabled>
        {selected.type === 'welcome' ? (selected.settings.buttonLabel ?? 'Start') : messages.proceedToNext}
      </button>
      {design.footer ? <p className="pv-footer">{design.footer}</p> : null}
      <Brand design={design} />
    </Frame>
  );
}

function Traditional({ design, messages, questions, selectedId, logoUrl, name }: Props) {
  let number = 0;
  return (
    <Frame design={design} className="pv-traditional">
      {logoUrl ? <img className="pv-logo" src={logoUrl} alt="" /> : null}
      <h3>{name}</h3>
      <div className="pv-list">
        {questions.map((q) => {
          if (q.type !== 'welcome') number += 1;
          return (
            <div key={q.id} data-selected={q.id === selectedId || undefined} className={q.id === selectedId ? 'pv-bubble' : undefined}>
              <QuestionView q={q} design={design} messages={messages} number={design.showQuestionNumber && q.type !== 'welcome' ? number : null} />
            </div>
          );
        })}
      </div>
      <button type="button" className="pv-btn" disabled>
        Submit Survey
      </button>
      {design.footer ? <p className="pv-footer">{design.footer}</p> : null}
      <Brand design={design} />
    </Frame>
  );
}

function Conversational({ design, messages, questions, selected, logoUrl }: Props & { selected: SurveyQuestion }) {
  const n = numberOf(questions, selected);
  return (
    <Frame design={design} className="pv-conversational">
      {logoUrl ? <img className="pv-logo" src={logoUrl} alt="" /> : null}
      <div className="pv-bubble">
        <QuestionView q={selected} design={design} messages={messages} number={design.showQuestionNumber && selected.type !== 'welcome' ? n.current : null} />
      </div>
      <div className="pv-nav">
        <button type="button" className="pv-btn" disabled>
          Previous
        </button>
        {design.showProgressBar && selected.type !== 'welcome' ? (
          <span className="pv-progress">
            {n.current}/{n.total}
          </span>
        ) : null}
        <button type="button" className="pv-btn" disabled>
          {messages.proceedToNext}
        </button>
      </div>
      <Brand design={design} />
    </Frame>
  );
}

function Email({ design, messages, selected, logoUrl, name }: Props & { selected: SurveyQuestion }) {
  const score = SCORE_TYPES.has(selected.type);
  return (
    <Frame design={design} className="pv-email">
      <p className="pv-email-head">
        <strong>{design.subject}</strong>
        <br />
        From: {design.sendFrom || 'no-reply@example.com'}
      </p>
      {logoUrl ? <img className="pv-logo" src={logoUrl} alt="" /> : null}
      <h3>{name}</h3>
      {score ? (
        <>
          <p>
            <strong>{design.header || 'Header'}</strong>
          </p>
          <p>{design.subHeader || 'Sub Header'}</p>
        </>
      ) : null}
      <QuestionView q={selected} design={design} messages={messages} number={null} />
      {score && design.footer ? <p className="pv-footer">{design.footer}</p> : null}
      <Brand design={design} />
    </Frame>
  );
}

function Ends({ q }: { q: SurveyQuestion }) {
  if (!q.settings.leftText && !q.settings.rightText) return null;
  const nps = q.type === 'nps';
  return (
    <div className="pv-ends">
      <span>{nps ? `0 - ${q.settings.leftText ?? ''}` : q.settings.leftText}</span>
      <span>{nps ? `10 - ${q.settings.rightText ?? ''}` : q.settings.rightText}</span>
    </div>
  );
}

function Scale({ items }: { items: (string | number)[] }) {
  return (
    <div className="pv-scale" aria-hidden="true">
      {items.map((x, i) => (
        <span key={i}>{x}</span>
      ))}
    </div>
  );
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** One question as a respondent sees it (the answer controls are drawings: nothing here can be answered). */
export function QuestionView({ q, design, messages, number }: { q: SurveyQuestion; design: SurveyDesign; messages: SurveyMessages; number: number | null }) {
  const s = q.settings;
  let answer: React.ReactNode = null;
  switch (q.type) {
    case 'nps':
      answer = (
        <>
          <Scale items={range(0, 10)} />
          <Ends q={q} />
        </>
      );
      break;
    case 'rating':
      answer = (
        <>
          <Scale
            items={
              s.scaleStyle === 'text'
                ? (s.scaleLabels ?? [...TEXT_SCALE_LABELS])
                : s.scaleStyle === 'shapes'
                  ? range(1, s.range ?? 5).map(() => SHAPES[s.scaleShape ?? 'stars'])
                  : range(1, s.range ?? 5)
            }
          />
          <Ends q={q} />
        </>
      );
      break;
    case 'smiley':
    case 'csat':
      answer = (
        <>
          <Scale items={s.range === 3 ? FACES_3 : FACES_5} />
          <Ends q={q} />
        </>
      );
      break;
    case 'ces':
      answer = (
        <>
          <Scale items={range(0, s.range ?? 7)} />
          <Ends q={q} />
        </>
      );
      break;
    case 'radio':
    case 'checkbox':
      answer = (s.options ?? []).map((o, i) => (
        <span key={i} className="pv-choice" title={o.tooltip || undefined}>
          <span aria-hidden="true">{q.type === 'radio' ? '○' : '☐'}</span> {o.choice}
        </span>
      ));
      break;
    case 'dropdown':
      answer = <span className="pv-input">{messages.dropdownPlaceholder} ▾</span>;
      break;
    case 'text':
      answer = <span className="pv-input">{messages.textPlaceholder}</span>;
      break;
    case 'form':
      answer = (s.fields ?? []).map((f, i) => (
        <span key={i} className="pv-input">
          {f.label}
          {f.isRequired ? ' *' : ''}
        </span>
      ));
      break;
    case 'date':
      answer = <span className="pv-input">{((s.dateStructure ?? 'DDMMYYYY').match(/DD|MM|YYYY/g) ?? []).join(s.dateSeparator ?? '/')}</span>;
      break;
    default:
      answer = null;
  }
  return (
    <div className="stack" data-testid="preview-question" data-type={q.type}>
      {q.heading ? <p className="pv-heading">{q.heading}</p> : null}
      <h3>
        {number ? `${number}. ` : ''}
        {q.question}
        {design.indicateMandatory && q.isRequired ? (
          <span className="pv-req" aria-label="required">
            {' '}
            *
          </span>
        ) : null}
      </h3>
      {answer}
    </div>
  );
}
