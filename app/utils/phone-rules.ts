/** Section 5, "International phone": a plus sign followed by 4 to 14 digits, with the specification's message. */
export const INTERNATIONAL_PHONE = { min: 4, max: 14, message: 'Phone number must have 14 digits.' } as const;
