import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form } from '@remix-run/react';
import { ErrorList, Field } from '~/components/ui/forms';

/**
 * The pieces of two-factor setup, shared by My Settings › Security and the setup page an account that requires
 * two-factor sends its users to at sign-in. Plain forms: they work without JavaScript.
 */

/** A form with one code field, told apart from its neighbours by its intent. */
export function CodeForm({
  intent,
  label,
  submitLabel,
  lastResult,
  hint,
  hidden,
}: {
  intent: string;
  label: string;
  submitLabel: string;
  lastResult?: SubmissionResult<string[]>;
  hint?: string;
  hidden?: Record<string, string>;
}) {
  const [form, fields] = useForm({ id: intent, lastResult, shouldValidate: 'onSubmit' });
  return (
    <Form method="post" {...getFormProps(form)}>
      {Object.entries(hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Field label={label} field={fields.code} inputMode="numeric" autoComplete="one-time-code" hint={hint} />
      <ErrorList id={form.errorId} errors={form.errors} />
      <button type="submit" className="btn btn-primary" name="intent" value={intent}>
        {submitLabel}
      </button>
    </Form>
  );
}

/** The authenticator app's secret: the otpauth link (opens the app on a phone) and the key to type in by hand. */
export function TotpSecret({ secret, uri, qrSvg }: { secret: string; uri: string; qrSvg: string }) {
  const grouped = secret.match(/.{1,4}/g)?.join(' ') ?? secret;
  return (
    <div className="stack" data-testid="totp-setup">
      <ol className="steps">
        <li>
          Open your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…) and add an account.
        </li>
        <li>
          Scan this code with the app:
          {/* Drawn on the server by the qrcode package from the setup link: paths only, no text of the user's. */}
          <div className="totp-qr" role="img" aria-label="QR code of the setup link" data-testid="totp-qr" dangerouslySetInnerHTML={{ __html: qrSvg }} />
          On this phone, <a href={uri}>open the setup link in your app</a> instead; or choose to enter a setup key and type:
          <p>
            <code className="secret-key" data-testid="totp-secret">
              {grouped}
            </code>
          </p>
          <small className="muted">Time-based, 6 digits, every 30 seconds.</small>
        </li>
        <li>Enter the 6-digit code the app shows to turn two-factor sign-in on.</li>
      </ol>
      <details>
        <summary>Setup link as text</summary>
        <code className="totp-uri" data-testid="totp-uri">
          {uri}
        </code>
      </details>
    </div>
  );
}

/** Ten recovery codes, shown once right after they were made. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div className="stack" data-testid="recovery-codes">
      <p role="status">
        <strong>Save these recovery codes now.</strong> Each one signs you in once if you lose your phone or cannot receive the code. They
        will not be shown again.
      </p>
      <ul className="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
