/** The productivity settings' plain values, apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/** Section 3 "Colour options". */
export const TAG_COLOURS = ['red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'violet', 'purple', 'brown', 'grey'] as const;
export type TagColour = (typeof TAG_COLOURS)[number];

/** Swatches for the colour options (Semantic UI's palette, whose names the specification uses). */
export const TAG_COLOUR_HEX: Record<TagColour, string> = {
  red: '#db2828',
  orange: '#f2711c',
  yellow: '#fbbd08',
  olive: '#b5cc18',
  green: '#21ba45',
  teal: '#00b5ad',
  blue: '#2185d0',
  violet: '#6435c9',
  purple: '#a333c8',
  brown: '#a5673f',
  grey: '#767676',
};

export const PRODUCTIVITY_PAGE_SIZE = 50;

/** The generic length message of section 5 ("Others"). */
export const maxLengthMessage = (n: number) => `Length must be less than or equal to ${n} characters`;
/** The specification's required-field wording ("Role Name is not allowed to be empty", "Source is not allowed to be empty"). */
export const emptyMessage = (label: string) => `${label} is not allowed to be empty`;
