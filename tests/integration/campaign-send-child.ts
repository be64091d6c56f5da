/**
 * A campaign send in its own process, for the crash-window test (bulk-send-crash-window.test.ts), which SIGKILLs it.
 * Usage: node --import tsx tests/integration/campaign-send-child.ts <accountId> <campaignId>
 * (DATABASE_URL and SMTP_URL from the environment; CRASH_AFTER_END=n: see tests/helpers/crash-after-end.ts).
 */
import { runCampaignSend } from '../../app/models/campaigns/sending.server';
import { crashAfterEnd } from '../helpers/crash-after-end';

crashAfterEnd();
const [accountId, campaignId] = process.argv.slice(2).map(Number);
await runCampaignSend({ accountId: accountId!, campaignId: campaignId! });
process.exit(0);
