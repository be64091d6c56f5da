import { describe, expect, it } from 'vitest';
import { areaFeatureOf, areaKeyOf } from './areas';

describe('areaFeatureOf', () => {
  it('finds the area of a page, its data request and its children, and nothing outside the map', () => {
    expect(areaFeatureOf('/inbox')).toBe('conversation/enabled');
    expect(areaFeatureOf('/inbox/42/tasks/github')).toBe('conversation/enabled');
    expect(areaFeatureOf('/inbox/42.data')).toBe('conversation/enabled');
    expect(areaFeatureOf('/workflows/builder?x=1')).toBe('workflowAutomation/enabled');
    expect(areaFeatureOf('/settings/sms/4')).toBe('channels/enabled');
    expect(areaFeatureOf('/settings/teams/')).toBe('teamManagement/enabled');
    // Open on every plan.
    for (const path of ['/home', '/search', '/settings', '/settings/my-plan', '/settings/users', '/settings/roles', '/settings/emails', '/inboxes', '/'])
      expect(areaFeatureOf(path), path).toBeNull();
  });

  it('names the area of a finer flag', () => {
    expect(areaKeyOf('channels/sms')).toBe('channels/enabled');
    expect(areaKeyOf('integrations/enabled')).toBe('integrations/enabled');
  });
});
