/** Push segments and push campaigns (section 9, ADR 083): the choices, here so that the screens ship no zod. */
export const PUSH_SEGMENT_NAME_MAX = 40;
export const PUSH_TITLE_MAX = 60;
export const PUSH_BODY_MAX = 200;
export const PUSH_URL_MAX = 1000;
export const PUSH_CONDITIONS_MAX = 10;

export const PUSH_OPERATORS = ['equals', 'notEquals', 'contains', 'lessThan', 'greaterThan'] as const;
export type PushOperator = (typeof PUSH_OPERATORS)[number];
export const OPERATOR_LABELS: Record<PushOperator, string> = {
  equals: 'equals',
  notEquals: 'not equals',
  contains: 'contains',
  lessThan: 'less than',
  greaterThan: 'greater than',
};

export const ACTION_KEYS = ['pageUrl', 'referrer', 'referrerType', 'dayOfWeek', 'hourOfDay', 'subscribed'] as const;
export const PROPERTY_KEYS = ['os', 'browser', 'platform', 'location', 'timezone'] as const;
export type ActionKey = (typeof ACTION_KEYS)[number];
export type PropertyKey = (typeof PROPERTY_KEYS)[number];
export const KEY_LABELS: Record<ActionKey | PropertyKey, string> = {
  pageUrl: 'Page URL',
  referrer: 'Referrer',
  referrerType: 'Referrer type',
  dayOfWeek: 'Day of week',
  hourOfDay: 'Hour of day',
  subscribed: 'Subscribed date',
  os: 'Operating system',
  browser: 'Browser',
  platform: 'Platform',
  location: 'Location (country code)',
  timezone: 'Time zone',
};

/** Section 5: pageUrl and referrer allow all; subscribed only less/greater than; day and hour all but contains; the rest equals and not equals. */
export function operatorsFor(key: string): readonly PushOperator[] {
  if (key === 'pageUrl' || key === 'referrer') return PUSH_OPERATORS;
  if (key === 'subscribed') return ['lessThan', 'greaterThan'];
  if (key === 'dayOfWeek' || key === 'hourOfDay') return ['equals', 'notEquals', 'lessThan', 'greaterThan'];
  return ['equals', 'notEquals'];
}

/** Section 9 constants. "refferal" is the specification's spelling of the stored value. */
export const REFERRER_TYPES = ['direct', 'searchEngine', 'refferal'] as const;
export const REFERRER_TYPE_LABELS: Record<(typeof REFERRER_TYPES)[number], string> = { direct: 'Direct', searchEngine: 'Search engine', refferal: 'Referral' };
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export const HOURS = Array.from({ length: 24 }, (_, h) => h);
export const PUSH_BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera'] as const;
export const PUSH_OSES = ['Windows 10.0', 'Windows 8.1', 'Windows 8.0', 'Windows 7.0', 'Linux', 'OS X', 'other'] as const;
export const PUSH_PLATFORMS = ['desktop', 'mobile'] as const;

/** The choices of a key's value, or null when it is typed (page URL, referrer, location, subscribed date). */
export function valueChoices(key: string): { value: string; label: string }[] | null {
  switch (key) {
    case 'referrerType':
      return REFERRER_TYPES.map((v) => ({ value: v, label: REFERRER_TYPE_LABELS[v] }));
    case 'dayOfWeek':
      return WEEKDAYS.map((d, i) => ({ value: String(i), label: d }));
    case 'hourOfDay':
      return HOURS.map((h) => ({ value: String(h), label: `${String(h).padStart(2, '0')}:00` }));
    case 'browser':
      return PUSH_BROWSERS.map((v) => ({ value: v, label: v }));
    case 'os':
      return PUSH_OSES.map((v) => ({ value: v, label: v }));
    case 'platform':
      return PUSH_PLATFORMS.map((v) => ({ value: v, label: v === 'desktop' ? 'Desktop' : 'Mobile' }));
    default:
      return null;
  }
}

export const PUSH_SEGMENT_TOASTS = { created: 'Push Segment Created', updated: 'Push Segment Updated', deleted: 'Push Segment Deleted' } as const;
export const REQUIRED_MESSAGE = 'This field is required';
