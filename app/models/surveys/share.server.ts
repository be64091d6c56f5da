import { sendEmail } from '../mail/mail.server';
import { listWebInboxes } from '../channels/messenger-settings.server';

/**
 * The in-app installation snippet (section 2 "Share"): the messenger script of one of the account's web inboxes, told
 * which survey it carries. The survey module itself loads on demand inside that script (issue 14, "In-app").
 */
export async function inAppSnippet(opts: { accountId: number; uniqueId: string; scriptUrl: string }) {
  const inboxes = await listWebInboxes({ accountId: opts.accountId });
  const inbox = inboxes[0];
  if (!inbox) return null;
  return `<script src="${opts.scriptUrl}" data-inbox="${inbox.id}" data-survey="${opts.uniqueId}" async></script>`;
}

/**
 * "Send instructions to teammates": one mail per address through the product's outbound mail (SMTP, or the
 * development mailbox without it), with the snippet and the sender's note.
 */
export async function sendShareInstructions(opts: { accountId: number; from: string; surveyName: string; snippet: string; emails: string[]; message: string }) {
  const text =
    `${opts.from} asked you to install the survey "${opts.surveyName}" on your website.\n\n` +
    (opts.message ? `${opts.message}\n\n` : '') +
    `Paste this code before </body> on the pages where the survey may appear:\n\n${opts.snippet}\n`;
  for (const to of opts.emails) {
    await sendEmail({ accountId: opts.accountId, to, subject: `Install the survey "${opts.surveyName}"`, text });
  }
  return opts.emails.length;
}
