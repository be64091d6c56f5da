import { describe, expect, it } from 'vitest';
import { findMentionedUsers, mentionHandle, mentionTokens } from './mentions';

const users = [
  { id: 1, firstName: 'Olive', lastName: 'Owner', email: 'olive@acme.test' },
  { id: 2, firstName: 'Ana', lastName: 'Agent', email: 'ana.a@acme.test' },
  { id: 3, firstName: 'Ana', lastName: 'Béla', email: 'bela@acme.test' },
];

describe('mentions', () => {
  it('reads @words but not email addresses', () => {
    expect(mentionTokens('@Olive look, and mail x@acme.test. (@ana.a)')).toEqual(['Olive', 'ana.a']);
  });
  it('finds users by handle, first.last, email local part, or an unshared first name', () => {
    const ids = (t: string) => findMentionedUsers(t, users).map((u) => u.id);
    expect(ids('@OliveOwner please')).toEqual([1]);
    expect(ids('@olive')).toEqual([1]);
    expect(ids('@Ana')).toEqual([]);
    expect(ids('@AnaBela and @ana.agent')).toEqual([2, 3]);
    expect(ids('@ana.a')).toEqual([2]);
    expect(ids('no mention here')).toEqual([]);
  });
  it('makes handles without spaces or accents', () => {
    expect(mentionHandle(users[2])).toBe('AnaBela');
  });
});
