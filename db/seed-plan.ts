import { Faker, base, en } from '@faker-js/faker';

/**
 * The demo account's data as a plain plan, drawn from a seeded faker: the same seed and the same "now" give the
 * same plan (db/seed.ts writes it). Times are offsets back from "now", spread over the last 60 days, so the demo
 * always looks recent.
 */

export const DEMO_SEED = 20_261_123;
export const DEMO_DAYS = 60;
export const DEMO_CONVERSATIONS = 320;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export type PlanCompany = { name: string; domain: string; phone: string; country: string; city: string; description: string; tags: string[] };
export type PlanContact = {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  title: string | null;
  company: string | null;
  country: string;
  city: string;
  tags: string[];
  /** Index into the agents (0 owner, 1 admin, 2 Sam, 3 Riley) who owns the contact, or null. */
  owner: number | null;
};
export type PlanMessage = {
  kind: 'incoming' | 'outgoing' | 'note';
  /** Who wrote an outgoing message or a note: index into the agents. */
  agent: number | null;
  text: string;
  at: Date;
  attachment: { filename: string; contentType: string; body: string } | null;
};
export type PlanConversation = {
  inbox: 'support' | 'billing' | 'chat';
  contact: number;
  subject: string;
  status: 'open' | 'pending' | 'snoozed' | 'resolved';
  priority: number;
  assignee: number | null;
  team: 'Support' | 'Billing' | null;
  tags: string[];
  createdAt: Date;
  resolvedAt: Date | null;
  messages: PlanMessage[];
};

export const DEMO_TAGS = [
  { name: 'billing', color: 'orange' },
  { name: 'bug', color: 'red' },
  { name: 'feature-request', color: 'violet' },
  { name: 'vip', color: 'purple' },
  { name: 'refund', color: 'yellow' },
  { name: 'onboarding', color: 'green' },
  { name: 'feedback', color: 'teal' },
  { name: 'integration', color: 'blue' },
] as const;

type Topic = {
  inbox: PlanConversation['inbox'][];
  subject: (f: Faker) => string;
  ask: (f: Faker, first: string) => string;
  answer: string[];
  followUp: string[];
  tags: string[];
  team: PlanConversation['team'];
};

const TOPICS: Topic[] = [
  {
    inbox: ['support', 'chat'],
    subject: () => 'Cannot sign in after resetting my password',
    ask: (f, first) =>
      `Hi, I reset my password ${f.helpers.arrayElement(['this morning', 'yesterday', 'an hour ago'])} but the sign-in page still says my credentials are wrong. I tried in ${f.helpers.arrayElement(['Firefox', 'Chrome', 'Safari'])} too. Can you help?\n\nThanks, ${first}`,
    answer: [
      'Sorry about that! The reset link signs out every other session, so an old tab may still hold the previous password. Could you close every tab of the app and try once more?',
      'Thanks for the details. I have cleared the lock on your account after too many attempts; you should be able to sign in now.',
    ],
    followUp: ['That worked, thank you!', 'Still the same error, I am afraid. Screenshot attached.'],
    tags: ['bug'],
    team: 'Support',
  },
  {
    inbox: ['billing'],
    subject: (f) => `Invoice ${f.string.numeric(5)} shows the wrong VAT number`,
    ask: (f, first) =>
      `Hello, our latest invoice lists VAT number ${f.string.alphanumeric({ length: 10, casing: 'upper' })}, which is not ours. Could you send a corrected copy? Our finance team needs it before the month closes.\n\nBest regards,\n${first}`,
    answer: [
      'Thank you for spotting this. I have updated the billing details on your account and attached a corrected invoice.',
      'I have corrected the VAT number; the next invoice will carry it, and a new copy of this one is on its way.',
    ],
    followUp: ['Perfect, received it.', 'Thanks! Could you also add our PO number to it?'],
    tags: ['billing'],
    team: 'Billing',
  },
  {
    inbox: ['billing'],
    subject: () => 'Refund for a duplicate charge',
    ask: (f, first) =>
      `Hi there, my card was charged twice on ${f.date.month()} ${f.number.int({ min: 1, max: 28 })} for the same subscription (${f.finance.amount({ min: 29, max: 299, dec: 2, symbol: '€' })}). Please refund one of them.\n\n${first}`,
    answer: [
      'You are right, the payment was taken twice. I have refunded the duplicate; it shows on your statement within 5 to 10 business days.',
      'Sorry for the trouble. The second charge is refunded now, and I have asked our payments team to look into why it happened.',
    ],
    followUp: ['Great, thanks for the quick help.'],
    tags: ['billing', 'refund'],
    team: 'Billing',
  },
  {
    inbox: ['support', 'chat'],
    subject: () => 'Feature request: export reports to Excel',
    ask: (_f, first) =>
      `Hello team, we love the reports but our managers live in Excel. Would it be possible to export the weekly report as .xlsx rather than CSV?\n\nCheers, ${first}`,
    answer: [
      'Thanks for the suggestion! I have passed it to our product team and added your vote. CSV opens in Excel in the meantime.',
      'Great idea. I have logged it as a feature request; we will write back when it ships.',
    ],
    followUp: ['Thanks for passing it on!'],
    tags: ['feature-request', 'feedback'],
    team: 'Support',
  },
  {
    inbox: ['support'],
    subject: (f) => `Webhook to ${f.helpers.arrayElement(['Slack', 'Zapier', 'our CRM', 'Jira'])} stopped firing`,
    ask: (f, first) =>
      `Since ${f.helpers.arrayElement(['Monday', 'the last update', 'yesterday evening'])} our webhook has not received a single call. The endpoint answers 200 when we test it by hand. Anything changed on your side?\n\n${first}`,
    answer: [
      'I looked at the delivery log: the calls are refused with a TLS error since your certificate was renewed. Could you check the intermediate certificate on your server?',
      'We rolled out a change to retries on that day. Your endpoint now receives the calls again; sorry for the gap.',
    ],
    followUp: ['Found it, the intermediate was missing. All good now.', 'Confirmed, events are coming through again.'],
    tags: ['integration', 'bug'],
    team: 'Support',
  },
  {
    inbox: ['chat'],
    subject: () => 'Question about the Pro plan',
    ask: (f) =>
      `Hi! Does the Pro plan include ${f.helpers.arrayElement(['SLA policies', 'more than 5 agents', 'the API', 'custom roles'])}? We are a team of ${f.number.int({ min: 4, max: 40 })}.`,
    answer: ['Yes, it does, along with workflows and reports. I can set up a 14-day trial for you if you like.', 'It does! Here is the comparison page with every plan side by side.'],
    followUp: ['Sounds good, please do.', 'Thanks, that answers it.'],
    tags: ['billing'],
    team: null,
  },
  {
    inbox: ['support', 'chat'],
    subject: () => 'How do I invite my team?',
    ask: (_f, first) => `Hello, I just signed up and would like to add three colleagues. Where do I do that?\n\n${first}`,
    answer: ['Welcome aboard! Go to Settings → Users and choose Invite user; each colleague gets an email to set a password.'],
    followUp: ['Found it, thanks!'],
    tags: ['onboarding'],
    team: 'Support',
  },
  {
    inbox: ['support'],
    subject: () => 'Urgent: customers see an error on checkout',
    ask: (f, first) =>
      `Since ${f.number.int({ min: 5, max: 50 })} minutes ago every customer gets "Something went wrong" on our checkout page, which embeds your widget. This is costing us orders, please call me back.\n\n${first}`,
    answer: [
      'I am on it. A configuration change on our side broke embedded widgets for a few accounts; it is rolled back and checkouts work again.',
      'Thanks for raising it quickly. Your allowed-sites list did not include the new checkout domain; I added it and the error is gone.',
    ],
    followUp: ['Confirmed, working again. Thanks for the fast help.'],
    tags: ['bug', 'vip'],
    team: 'Support',
  },
  {
    inbox: ['support', 'chat'],
    subject: () => 'Importing our contacts from a spreadsheet',
    ask: (f, first) => `Hi, we have about ${f.number.int({ min: 200, max: 9000 })} contacts in a spreadsheet. Can we import them, including their company and tags?\n\n${first}`,
    answer: ['Yes: Customers → Import takes CSV and Excel files; you map the columns, and rows that cannot be read are listed to download.'],
    followUp: ['Worked like a charm.', 'A few rows failed on the phone column, I will fix those.'],
    tags: ['onboarding'],
    team: 'Support',
  },
  {
    inbox: ['billing'],
    subject: () => 'Changing our billing address',
    ask: (f, first) => `Hello, we moved offices. Our new address is ${f.location.streetAddress()}, ${f.location.zipCode()} ${f.location.city()}. Please use it from the next invoice on.\n\n${first}`,
    answer: ['Done: the next invoice goes to the new address.'],
    followUp: ['Thank you.'],
    tags: ['billing'],
    team: 'Billing',
  },
  {
    inbox: ['chat'],
    subject: () => 'Is there a mobile app?',
    ask: () => 'Hi, is there an app for phones? I would like to answer chats on the go.',
    answer: ['The web app works on phones: open it in your phone’s browser and add it to the home screen.'],
    followUp: ['Nice, will try.'],
    tags: ['feedback'],
    team: null,
  },
  {
    inbox: ['support'],
    subject: () => 'Emails arrive twice in the inbox',
    ask: (_f, first) => `Every customer email shows up twice as two conversations. We forward from Google Workspace.\n\n${first}`,
    answer: [
      'It looks like both forwarding and an IMAP connection are set up for the same address. Keeping one of them stops the duplicates.',
      'Google forwards a copy to each alias; I have merged the duplicates and you can remove the second alias in your forwarding settings.',
    ],
    followUp: ['That was it, thanks!'],
    tags: ['bug', 'integration'],
    team: 'Support',
  },
];

const NOTES = [
  'Checked the logs: nothing unusual on our side.',
  'Customer is on the annual plan, renewal next month.',
  'Escalated to engineering, ticket ENG-{n}.',
  'Called the customer, they will test again tomorrow.',
  'Same issue as last week, see the other conversation.',
  'Good candidate for a case study.',
];

const CONTACT_NOTES = [
  'Met at the customer day; interested in workflows.',
  'Prefers email over phone.',
  'Decision maker for the renewal.',
  'Asked for a call back in the afternoon (CET).',
  'Uses the API heavily.',
];

/** Phone numbers as people type them (normalised by the CRM on the way in). */
function phoneOf(f: Faker, country: string) {
  switch (country) {
    case 'DE':
      return `+49 30 ${f.string.numeric({ length: 7, allowLeadingZeros: false })}`;
    case 'GB':
      return `+44 20 7946 ${f.string.numeric(4)}`;
    case 'FR':
      return `+33 1 ${f.string.numeric(2)} ${f.string.numeric(2)} ${f.string.numeric(2)} ${f.string.numeric(2)}`;
    default:
      return `+1 (212) ${f.helpers.arrayElement(['555', '736', '918'])}-${f.string.numeric(4)}`;
  }
}

const COUNTRIES = ['DE', 'GB', 'US', 'FR', 'NL', 'US', 'DE'];

function slug(s: string) {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 30);
}

export type DemoPlan = { companies: PlanCompany[]; contacts: PlanContact[]; conversations: PlanConversation[]; contactNotes: { contact: number; agent: number; body: string }[] };

export function buildDemoPlan(opts: { seed?: number; now: Date; conversations?: number }): DemoPlan {
  const f = new Faker({ locale: [en, base] });
  f.seed(opts.seed ?? DEMO_SEED);
  const now = opts.now.getTime();

  const companies: PlanCompany[] = [];
  const usedDomains = new Set<string>();
  while (companies.length < 14) {
    const name = f.company.name();
    const domain = `${slug(name)}.example`;
    if (usedDomains.has(domain)) continue;
    usedDomains.add(domain);
    const country = f.helpers.arrayElement(COUNTRIES);
    companies.push({
      name,
      domain,
      phone: phoneOf(f, country),
      country,
      city: f.location.city(),
      description: f.company.catchPhrase(),
      tags: f.helpers.arrayElements(['vip', 'integration', 'feedback'], { min: 0, max: 1 }),
    });
  }

  const contacts: PlanContact[] = [];
  const usedEmails = new Set<string>();
  while (contacts.length < 140) {
    const firstName = f.person.firstName();
    const lastName = f.person.lastName();
    const company = f.number.float() < 0.7 ? f.helpers.arrayElement(companies) : null;
    const domain = company ? company.domain : f.helpers.arrayElement(['mail.example', 'inbox.example', 'post.example']);
    const email = `${slug(firstName)}.${slug(lastName)}@${domain}`;
    if (usedEmails.has(email)) continue;
    usedEmails.add(email);
    const country = company?.country ?? f.helpers.arrayElement(COUNTRIES);
    contacts.push({
      firstName,
      lastName,
      email,
      phone: f.number.float() < 0.6 ? phoneOf(f, country) : null,
      title: company ? f.person.jobTitle().slice(0, 40) : null,
      company: company?.name ?? null,
      country,
      city: company?.city ?? f.location.city(),
      tags: f.helpers.arrayElements(['vip', 'onboarding', 'feedback', 'integration'], { min: 0, max: f.number.float() < 0.3 ? 2 : 0 }),
      owner: f.number.float() < 0.5 ? f.number.int({ min: 0, max: 3 }) : null,
    });
  }

  const contactNotes = Array.from({ length: 40 }, () => ({
    contact: f.number.int({ min: 0, max: contacts.length - 1 }),
    agent: f.number.int({ min: 0, max: 3 }),
    body: f.helpers.arrayElement(CONTACT_NOTES),
  }));

  const conversations: PlanConversation[] = [];
  const total = opts.conversations ?? DEMO_CONVERSATIONS;
  for (let i = 0; i < total; i++) {
    const topic = f.helpers.arrayElement(TOPICS);
    const inbox = f.helpers.arrayElement(topic.inbox);
    const contactIndex = f.number.int({ min: 0, max: contacts.length - 1 });
    const contact = contacts[contactIndex];
    // More conversations recently than two months ago, as a growing team sees.
    const ageMs = Math.floor(Math.pow(f.number.float(), 1.4) * DEMO_DAYS * DAY) + f.number.int({ min: 5, max: 90 }) * 60_000;
    const createdAt = new Date(now - ageMs);
    const ageDays = ageMs / DAY;
    const roll = f.number.float();
    const status: PlanConversation['status'] =
      ageDays > 7 ? (roll < 0.9 ? 'resolved' : roll < 0.96 ? 'pending' : 'open') : roll < 0.35 ? 'open' : roll < 0.55 ? 'pending' : roll < 0.62 ? 'snoozed' : 'resolved';
    const priority = f.helpers.weightedArrayElement([
      { weight: 45, value: 0 },
      { weight: 20, value: 1 },
      { weight: 20, value: 2 },
      { weight: 10, value: 3 },
      { weight: 5, value: 4 },
    ]);
    const team = inbox === 'billing' ? 'Billing' : topic.team;
    const assignee = status === 'open' && f.number.float() < 0.35 ? null : inbox === 'billing' ? f.helpers.arrayElement([1, 3]) : f.helpers.arrayElement([0, 1, 2, 2, 3]);

    // The thread: the customer writes, an agent answers after a while, maybe back and forth, maybe a note.
    const messages: PlanMessage[] = [];
    let at = createdAt.getTime();
    const step = (minMinutes: number, maxMinutes: number) => {
      at = Math.min(at + f.number.int({ min: minMinutes, max: maxMinutes }) * 60_000, now - 60_000);
      return new Date(at);
    };
    const ask = topic.ask(f, contact.firstName);
    const screenshot = f.number.float() < 0.12;
    messages.push({
      kind: 'incoming',
      agent: null,
      text: ask,
      at: new Date(at),
      attachment: screenshot ? { filename: `screenshot-${f.string.numeric(4)}.txt`, contentType: 'text/plain', body: `Error details copied from the screen:\n${f.hacker.phrase()}\n` } : null,
    });
    const answered = !(status === 'open' && f.number.float() < 0.5);
    if (f.number.float() < 0.22) messages.push({ kind: 'note', agent: assignee ?? 2, text: f.helpers.arrayElement(NOTES).replace('{n}', f.string.numeric(3)), at: step(3, 120), attachment: null });
    if (answered) {
      const who = assignee ?? 2;
      // Chats are answered in minutes, mail in hours (sometimes late: that is what breaches an SLA).
      const delay = inbox === 'chat' ? step(1, 25) : step(10, f.number.float() < 0.2 ? 60 * 30 : 60 * 6);
      messages.push({ kind: 'outgoing', agent: who, text: f.helpers.arrayElement(topic.answer), at: delay, attachment: null });
      if (f.number.float() < 0.55) {
        messages.push({ kind: 'incoming', agent: null, text: f.helpers.arrayElement(topic.followUp), at: step(20, 60 * 20), attachment: null });
        if (status === 'resolved' || f.number.float() < 0.5)
          messages.push({ kind: 'outgoing', agent: who, text: 'Glad to help! Let us know if anything else comes up.', at: step(5, 60 * 4), attachment: null });
      }
    }
    const resolvedAt = status === 'resolved' ? step(5, 60 * 8) : null;
    conversations.push({
      inbox,
      contact: contactIndex,
      subject: topic.subject(f),
      status,
      priority,
      assignee,
      team,
      tags: [...new Set([...topic.tags.filter(() => f.number.float() < 0.8), ...(contact.tags.includes('vip') ? ['vip'] : [])])],
      createdAt,
      resolvedAt,
      messages,
    });
  }
  conversations.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return { companies, contacts, conversations, contactNotes };
}
