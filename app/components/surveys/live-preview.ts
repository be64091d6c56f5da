import { useEffect, useState } from 'react';
import type { SurveyDesign, SurveyMessages, SurveyQuestion } from '~/models/surveys/types';
import { formToObject } from './reply';

type Draft = { design?: Record<string, string>; messages?: Record<string, string>; question?: Record<string, unknown> };

const FLAGS = ['showQuestionNumber', 'indicateMandatory', 'showBranding', 'showProgressBar'] as const;

function settingsOf(raw: unknown): SurveyQuestion['settings'] {
  const s = { ...((raw as Record<string, unknown>) ?? {}) } as Record<string, unknown>;
  if (typeof s.range === 'string') s.range = Number(s.range) || undefined;
  if (Array.isArray(s.options)) s.options = s.options.filter(Boolean).map((o: Record<string, string>, order: number) => ({ ...o, enableComment: Boolean(o.enableComment), order }));
  if (Array.isArray(s.fields)) s.fields = s.fields.filter(Boolean).map((f: Record<string, string>, order: number) => ({ ...f, isRequired: Boolean(f.isRequired), order }));
  return s as SurveyQuestion['settings'];
}

/**
 * With JavaScript the preview follows the step form as it is typed in (section 2 "Previews"): the design, the
 * messages and the edited question are read from the form on every input; without JavaScript the preview shows
 * what was saved.
 */
export function useLivePreview(opts: { formKey: string; design: SurveyDesign; messages: SurveyMessages; questions: SurveyQuestion[]; selectedId: string | null }) {
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    setDraft(null);
    const form = document.getElementById('step-form') as HTMLFormElement | null;
    if (!form) return;
    const read = () => setDraft(formToObject(form) as Draft);
    form.addEventListener('input', read);
    form.addEventListener('change', read);
    return () => {
      form.removeEventListener('input', read);
      form.removeEventListener('change', read);
    };
  }, [opts.formKey]);
  if (!draft) return { design: opts.design, messages: opts.messages, questions: opts.questions };
  const d = draft.design ?? {};
  const design: SurveyDesign = {
    ...opts.design,
    ...(d as Partial<SurveyDesign>),
    // An unticked box is absent from the form (the design panel is always in the step form).
    ...Object.fromEntries(FLAGS.map((k) => [k, k in d])),
    footer: d.footerOn ? (d.footer ?? '') : '',
  };
  const messages = { ...opts.messages, ...(draft.messages as Partial<SurveyMessages>) };
  const q = draft.question;
  const questions = q
    ? opts.questions.map((x) =>
        x.id === opts.selectedId
          ? { ...x, heading: 'showHeading' in q ? String(q.heading ?? '') : '', question: String(q.question ?? ''), isRequired: 'isRequired' in q, settings: { ...x.settings, ...settingsOf(q.settings) } }
          : x,
      )
    : opts.questions;
  return { design, messages, questions };
}
