import type { ChatbotStep } from './constants';

/** A flow using every kind of step: the demo account's bot (db/seed) and the screens crawl show it. */
export const SAMPLE_FLOW: ChatbotStep[] = [
  { id: 's1', type: 'message', text: 'Hi! I am the Acme assistant.', next: 's2' },
  {
    id: 's2',
    type: 'question',
    text: 'What brings you here today?',
    choices: [
      { label: 'A question about my order', next: 's3' },
      { label: 'Pricing', next: 's5' },
      { label: 'Something else', next: 's4' },
    ],
    next: 's4',
  },
  { id: 's3', type: 'search', text: 'Tell me your question and I will look in our help centre.', next: 's6' },
  { id: 's4', type: 'collect', field: 'email', text: 'What is your email address, so we can follow up?', next: 's7' },
  { id: 's5', type: 'branch', rules: [{ contains: 'enterprise', next: 's8' }], next: 's7' },
  {
    id: 's6',
    type: 'question',
    text: 'Did that answer your question?',
    choices: [
      { label: 'Yes, thanks', next: 's9' },
      { label: 'No', next: 's7' },
    ],
    next: 's7',
  },
  { id: 's7', type: 'hours', open: 's8', closed: 's10' },
  { id: 's8', type: 'handover', text: 'Let me find someone from the team for you.', teamId: null, userId: null },
  { id: 's9', type: 'close', text: 'Glad I could help. Have a nice day!' },
  { id: 's10', type: 'message', text: 'The team is away right now; we will answer by email as soon as we are back.', next: null },
];
