import { Form } from '@remix-run/react';
import { useEffect, useState } from 'react';
import {
  DISPLAY_METHOD_LABELS,
  DISPLAY_METHODS,
  LANGUAGE_LABELS,
  LANGUAGES,
  LIMITS,
  LINK_TYPE_LABELS,
  LINK_TYPES,
  type SurveyChannel,
} from '~/models/surveys/constants';
import { Check, FieldErrors, Radios, Select, TextArea, TextInput } from './fields';
import { CopyButton } from '~/components/ui/copy-button';
import type { ReplyReader } from './reply';

/** Target (section 2): in-app pages and timing, web retaking (email: EmailTargetFields). */
export function TargetFields({ channel, r }: { channel: SurveyChannel; r: ReplyReader }) {
  if (channel === 'web')
    return (
      <div className="card stack">
        <h2>Who sees it again</h2>
        <Check r={r} name="allowRetaking" label="Allow retaking the survey" />
        <Check r={r} name="refreshOnCompletion" label="Start again (refresh) on completion" />
      </div>
    );
  const pages = (r.value('allowedPages') as unknown[] | null | undefined) ?? [];
  return (
    <>
      <div className="card stack target-where">
        <h2>Where to show</h2>
        <Radios
          r={r}
          name="showOnAllPages"
          legend="Pages"
          options={[
            { value: 'all', label: 'All pages' },
            { value: 'some', label: 'Only certain pages' },
          ]}
        />
        <fieldset className="field page-conditions">
          <legend>Page conditions (when only certain pages)</legend>
          {pages.map((_, i) => (
            <div key={i} className="option-row">
              <div className="row wrap">
                <Select r={r} name={`allowedPages[${i}].linkType`} label={`Condition ${i + 1}`} options={LINK_TYPES.map((t) => ({ value: t, label: LINK_TYPE_LABELS[t] }))} />
                <TextInput r={r} name={`allowedPages[${i}].link`} label="Link" maxLength={LIMITS.link} placeholder="/pricing" />
              </div>
              <button type="submit" className="btn" name="intent" value={`remove-page:${i}`} aria-label={`Remove condition ${i + 1}`}>
                Remove
              </button>
            </div>
          ))}
          <FieldErrors errors={r.errors('allowedPages')} />
          <button type="submit" className="btn" name="intent" value="add-page" disabled={pages.length >= LIMITS.pages}>
            + Add condition
          </button>
        </fieldset>
      </div>
      <div className="card stack target-when">
        <h2>When to show</h2>
        <Radios r={r} name="displayMethod" legend="Display" options={DISPLAY_METHODS.map((m) => ({ value: m, label: DISPLAY_METHOD_LABELS[m] }))} />
        <div className="when-delay">
          <TextInput r={r} name="displayDelay" type="number" label="Delay (seconds)" min={LIMITS.delay.min} max={LIMITS.delay.max} hint={`${LIMITS.delay.min} to ${LIMITS.delay.max} seconds`} />
        </div>
        <div className="when-scroll">
          <TextInput r={r} name="displayScroll" type="number" label="Scroll depth (percent)" min={LIMITS.scroll.min} max={LIMITS.scroll.max} hint={`${LIMITS.scroll.min} to ${LIMITS.scroll.max} percent`} />
        </div>
        <Check r={r} name="showUntilResponded" label="Keep showing until the visitor responds" />
      </div>
    </>
  );
}

/** Settings (section 2): name, folder, language, partial submission, response limit, cut-off date. */
export function SettingsFields({ r, folders, cutOff }: { r: ReplyReader; folders: { id: number; name: string }[]; cutOff: { min: string; max: string } }) {
  return (
    <div className="card stack">
      <h2>General settings</h2>
      <TextInput r={r} name="name" label="Survey Name" maxLength={LIMITS.surveyName.max} />
      <Select r={r} name="folderId" label="Folder" options={folders.map((f) => ({ value: f.id, label: f.name }))} placeholder="Select a Folder" />
      <Select r={r} name="language" label="Language" options={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_LABELS[l] }))} placeholder="Select a language" />
      <Check r={r} name="allowPartialSubmission" label="Allow partial submission (keep the answers of respondents who stop half-way)" />
      <div className="toggle-block">
        <Check r={r} name="responseLimitOn" label="Response limit" />
        <div className="toggled">
          <TextInput r={r} name="responseLimit" type="number" label="Stop after this many responses" min={LIMITS.responseLimit.min} max={LIMITS.responseLimit.max} hint="0 to 1000" />
        </div>
      </div>
      <div className="toggle-block">
        <Check r={r} name="cutOffOn" label="Cut-off date" />
        <div className="toggled">
          <TextInput r={r} name="cutOffDate" type="date" label="Last day to respond" min={cutOff.min} max={cutOff.max} hint={`From today to ${cutOff.max}`} />
        </div>
      </div>
    </div>
  );
}

/** Share (section 2): the web link, or the in-app snippet with the send-instructions form. */
export function ShareStep({ channel, link, snippet, r }: { channel: SurveyChannel; link: string; snippet: string | null; r: ReplyReader }) {
  if (channel === 'web')
    return (
      <div className="card stack">
        <h2>Share the survey link</h2>
        <label htmlFor="share-link">Web link</label>
        <div className="row wrap">
          <input id="share-link" className="snippet" readOnly value={link} data-testid="share-link" />
          <CopyButton text={link} ms={1500} label="Copy link" />
        </div>
        <p className="muted">Anyone with the link can answer once the survey is published.</p>
      </div>
    );
  return (
    <>
      <div className="card stack">
        <h2>Install on your website</h2>
        {snippet ? (
          <>
            <label htmlFor="share-snippet">Installation code — paste it before &lt;/body&gt;</label>
            <textarea id="share-snippet" className="snippet" readOnly rows={3} value={snippet} data-testid="share-snippet" />
            <CopyButton text={snippet} ms={1000} label="Copy code" />
          </>
        ) : (
          <p className="muted" data-testid="no-messenger">
            In-app surveys show inside the chat messenger: create a messenger inbox under Settings → Chat Messenger first.
          </p>
        )}
      </div>
      {snippet ? (
        <Form method="post" className="card stack" aria-labelledby="share-title" data-testid="share-form">
          <h2 id="share-title">Send instructions to teammates</h2>
          <TextArea r={r} name="emails" label="Email addresses (separated by commas)" rows={2} hint={`At most ${LIMITS.shareEmails} addresses`} />
          <TextArea r={r} name="message" label="Message" rows={3} />
          <FieldErrors errors={r.errors('')} />
          <div className="actions">
            <button type="submit" className="btn btn-primary" name="intent" value="share">
              Send
            </button>
          </div>
        </Form>
      ) : null}
    </>
  );
}
