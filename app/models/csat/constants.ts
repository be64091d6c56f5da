/** Customer-satisfaction surveys (issue 15): the limits of suite.md section 5 and the defaults of section 9. Plain values: screens import them. */
export const CSAT_LIMITS = { subject: 40, heading: 40, commentTitle: 60, finishText: 60 } as const;

export const CSAT_DEFAULTS = {
  commentEnabled: false,
  commentEnabledBelow: 3,
  finishText: 'Thank you for your valuable feedback',
  ratingsType: 'star',
  allowMultipleFeedback: false,
  commentTitle: 'Can you tell us more about your experience?',
} as const;

export const CSAT_MESSAGES = {
  inboxes: 'Please select at least one inbox',
  subject: 'Subject is required',
  below: 'Choose a rating from 1 to 5',
  inboxTaken: 'This inbox already has a survey of this kind',
} as const;

export const CSAT_TOASTS = {
  created: 'Survey Created Successfully',
  updated: 'Survey Updated Successfully',
  deleted: 'Survey Deleted',
  logoUploaded: 'Logo successfully uploaded',
  logoRemoved: 'Logo Successfully Removed',
} as const;

/** The five points of the scale: stars or faces. */
export const RATING_LABELS: Record<'star' | 'emoji', string[]> = {
  star: ['1 star', '2 stars', '3 stars', '4 stars', '5 stars'],
  emoji: ['Very unhappy', 'Unhappy', 'Neutral', 'Happy', 'Very happy'],
};
export const RATING_GLYPHS: Record<'star' | 'emoji', string[]> = {
  star: ['★', '★★', '★★★', '★★★★', '★★★★★'],
  emoji: ['😞', '🙁', '😐', '🙂', '😄'],
};
