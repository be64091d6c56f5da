import { describe, expect, it } from 'vitest';
import { deniedFallback } from './denied-fallback';

const page = (path: string, method = 'GET', accept = 'text/html,application/xhtml+xml') =>
  deniedFallback({ method, url: `http://acme.localhost:3000${path}`, headers: new Headers({ accept }) });

describe('deniedFallback', () => {
  it('falls back to the settings page or the list one level up, else Home', () => {
    expect(page('/settings/sms')).toBe('/settings');
    expect(page('/settings/sms/4')).toBe('/settings/sms');
    expect(page('/settings/meetings/create')).toBe('/settings/meetings');
    expect(page('/campaigns/sms?status=sent')).toBe('/campaigns');
    expect(page('/campaigns')).toBe('/home');
    expect(page('/customers/segment/4')).toBe('/customers');
    expect(page('/knowledgebase/3/articles/9')).toBe('/knowledgebase');
    expect(page('/settings/sla-policy.data')).toBe('/settings');
  });
  it('keeps the 403 for form posts, API calls, non-page requests and Home itself', () => {
    expect(page('/settings/sms', 'POST')).toBeNull();
    expect(page('/api/v1/contacts')).toBeNull();
    expect(page('/settings/sms', 'GET', 'application/json')).toBeNull();
    expect(page('/home')).toBeNull();
    expect(page('/')).toBeNull();
    expect(page('/_root.data')).toBeNull();
  });
});
