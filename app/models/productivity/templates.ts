/** Section 3 "Template placeholders", written `{{firstName}}` in a template. */
export const TEMPLATE_PLACEHOLDERS = ['firstName', 'lastName', 'email', 'address'] as const;
export type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];

export type TemplateContact = {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  address?: { streetAddress?: string; locality?: string; postalCode?: string; country?: string } | null;
};

function formatAddress(address: TemplateContact['address']) {
  if (!address) return '';
  return [address.streetAddress, [address.postalCode, address.locality].filter(Boolean).join(' '), address.country]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(', ');
}

/**
 * Fills a template's placeholders from the contact: `{{ firstName }}` and `{{firstName}}` both work, a value the
 * contact lacks becomes empty, and anything that is not a known placeholder is left as written.
 * Pure, so the inbox can preview on the client and render on the server with the same result.
 */
export function renderTemplate(text: string, contact: TemplateContact | null | undefined) {
  const values: Record<TemplatePlaceholder, string> = {
    firstName: contact?.firstName ?? '',
    lastName: contact?.lastName ?? '',
    email: contact?.email ?? '',
    address: formatAddress(contact?.address),
  };
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    (TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name) ? values[name as TemplatePlaceholder] : whole,
  );
}
