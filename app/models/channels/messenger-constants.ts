/** Plain values of the forms beside them (messenger-settings.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/**
 * The Messenger settings of a web inbox, kept in `inboxes.settings` (jsonb) by section: what the settings pages
 * edit and what the widget and the chat page read. Shared by the screens and the server (no ORM here).
 */

/** Section 9: brand colours (name → hex the widget paints with) and fonts. */
export const BRAND_COLOURS = {
  blue: '#2563eb',
  orange: '#ea580c',
  red: '#dc2626',
  violet: '#7c3aed',
  teal: '#0d9488',
  navy: '#1e3a8a',
  yellow: '#ca8a04',
} as const;

export type BrandColour = keyof typeof BRAND_COLOURS;

export const BRAND_COLOUR_NAMES = Object.keys(BRAND_COLOURS) as BrandColour[];

export const FONTS = ['Impact', 'Arial', 'Georgia', 'Tahoma', 'Verdana', 'Times New Roman', 'Roboto'] as const;

/** Section 9: font sizes 16 Regular, 13 Small, 20 Large. */
export const FONT_SIZES = [
  { value: '16', label: 'Regular' },
  { value: '13', label: 'Small' },
  { value: '20', label: 'Large' },
] as const;

export const POSITIONS = ['right', 'left'] as const;

/** A section's stored values as conform default values (checkboxes are "on" or absent, numbers are strings). */
export function sectionFormDefaults(value: Record<string, unknown>) {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'boolean' ? (v ? 'on' : undefined) : v === undefined || v === null ? undefined : String(v);
  return out;
}
