/**
 * An email survey's send in its own process, for the crash-window test (bulk-send-crash-window.test.ts).
 * Usage: node --import tsx tests/integration/survey-send-child.ts <accountId> <sendId>
 * (DATABASE_URL and SMTP_URL from the environment; CRASH_AFTER_END=n: see tests/helpers/crash-after-end.ts).
 */
import { runEmailSend } from '../../app/models/surveys/email-surveys.server';
import { crashAfterEnd } from '../helpers/crash-after-end';

crashAfterEnd();
const [accountId, sendId] = process.argv.slice(2).map(Number);
await runEmailSend({ accountId: accountId!, sendId: sendId! });
process.exit(0);
