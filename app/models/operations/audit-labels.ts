/** The installation audit log's actions and their labels (ADR 152): apart from audit.server.ts so that screens can show them. */

export type OperatorAction =
  | 'operator.add'
  | 'operator.remove'
  | 'operator.link'
  | 'operator.password'
  | 'operator.signin'
  | 'account.suspend'
  | 'account.resume'
  | 'account.plan'
  | 'account.delete';

export const ACTION_LABELS: Record<OperatorAction, string> = {
  'operator.add': 'Operator named',
  'operator.remove': 'Operator removed',
  'operator.link': 'Set-password link issued',
  'operator.password': 'Operator password set',
  'operator.signin': 'Operator signed in',
  'account.suspend': 'Account suspended',
  'account.resume': 'Account resumed',
  'account.plan': 'Plan changed',
  'account.delete': 'Account deleted',
};
