import { describe, expect, it } from 'vitest';
import { safeRedirect } from './safe-redirect';

describe('safeRedirect', () => {
  it.each([
    '/%09/evil.example/',
    '/%0a/evil.example/',
    '/%0d%0a/evil.example',
    '/\t/evil.example/',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '/%5Cevil.example',
    '/%2F/evil.example',
    '/%252F/evil.example',
    '%2F%2Fevil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'evil.example',
    '/%E0%A4%A',
    '',
    null,
    undefined,
  ])('refuses %j and falls back to the home page', (to) => {
    expect(safeRedirect(to)).toBe('/home');
  });

  it.each([
    ['/inbox', '/inbox'],
    ['/inbox?status=open&page=2', '/inbox?status=open&page=2'],
    ['/settings/users#top', '/settings/users#top'],
    ['/crm/../inbox', '/inbox'],
    ['/customers?q=a%20b', '/customers?q=a%20b'],
  ])('keeps the same-host path %s', (to, expected) => {
    expect(safeRedirect(to)).toBe(expected);
  });
});
