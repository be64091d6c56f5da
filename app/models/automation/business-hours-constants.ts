/** Plain values of the forms beside them (schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
export const BUSINESS_HOURS_NAME_MAX = 50;

export const HOLIDAY_NAME_MAX = 20;

export const END_BEFORE_START_MESSAGE = 'End time cannot be before start time';

export const HOLIDAY_NAME_MESSAGE = 'Holiday Name is not allowed to be empty';

export const HOLIDAY_DATE_MESSAGE = 'Holiday Date is not allowed to be empty';

export const TIME_MESSAGE = 'Enter a time as HH:mm';

export const NO_OPEN_DAY_MESSAGE = 'Choose at least one day, or 24x7';

/** Day 0 is Sunday, as stored in the timings. */
export const WEEK_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** Section 9: Monday to Friday checked, 09:00 to 18:00. */
export const DEFAULT_OPEN_DAYS = [1, 2, 3, 4, 5];

export const DEFAULT_START_TIME = '09:00';

export const DEFAULT_END_TIME = '18:00';
