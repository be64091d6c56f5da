import { Form } from '@remix-run/react';
import type { SurveyMessages, SurveyQuestion } from '~/models/surveys/types';
import { QuestionInput } from './question-input';

/**
 * Every question of a survey in one plain-HTML form with one "Submit Survey" (`intent=submit`): the web survey's
 * traditional format and the email survey's page (ADR 061, ADR 062). Errors are shown under their question.
 */
export function AllQuestionsForm({
  questions,
  messages,
  values,
  errors,
  showQuestionNumber,
  indicateMandatory,
}: {
  questions: SurveyQuestion[];
  messages: SurveyMessages;
  values: Record<string, unknown>;
  errors: Record<string, string>;
  showQuestionNumber: boolean;
  indicateMandatory: boolean;
}) {
  const errorCount = Object.keys(errors).length;
  let n = 0;
  return (
    <Form method="post" className="sv-card sv-all" noValidate reloadDocument>
      {errorCount ? (
        <p className="form-error" role="alert">
          Please check {errorCount === 1 ? 'the answer marked below' : `the ${errorCount} answers marked below`}.
        </p>
      ) : null}
      {questions.map((q) =>
        q.type === 'welcome' ? (
          <div key={q.id} className="sv-welcome">
            {q.heading ? <p className="sv-heading">{q.heading}</p> : null}
            <p className="sv-text">{q.question}</p>
          </div>
        ) : q.type === 'thank-you' ? null : (
          <QuestionInput
            key={q.id}
            q={q}
            number={showQuestionNumber ? ++n : undefined}
            value={values[q.id] as never}
            error={errors[q.id]}
            messages={messages}
            indicateMandatory={indicateMandatory}
          />
        ),
      )}
      <button type="submit" name="intent" value="submit" className="sv-btn">
        Submit Survey
      </button>
    </Form>
  );
}
