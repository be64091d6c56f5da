import { z } from 'zod';
import {
  ARTICLE_BODY_MAX,
  ARTICLE_TITLE_MAX,
  CATEGORY_DESCRIPTION_MAX,
  CATEGORY_NAME_MAX,
  emptyMessage,
  KB_DETAIL_MAX,
  KB_NAME_MAX,
  maxLengthMessage,
  SEO_DESCRIPTION_MAX,
  SEO_DESCRIPTION_MIN,
  SEO_TITLE_MAX,
  SEO_TITLE_MIN,
  CUSTOM_CODE_MAX,
  GA_KEY_MESSAGE,
  HELP_NAME_MAX,
  HELP_NAME_MIN,
  KB_LANGUAGES,
  contrastRatio,
  DEFAULT_HEADER_TEXT_COLOR,
  HEADER_LINK_LABEL_MAX,
  HEADER_LINK_URL_MAX,
  HEADER_LINKS_MAX,
  HELP_ARTICLE_ORDERS,
  MIN_CONTRAST,
  normaliseHexColor,
  VERSIONS_KEPT_MAX,
  VERSIONS_KEPT_MIN,
} from './constants';

export * from './constants';

const minLengthMessage = (n: number) => `Length must be at least ${n} characters`;

function requiredText(label: string, max: number) {
  return z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
}

const optionalText = (max: number) => z.string().trim().max(max, maxLengthMessage(max)).optional().default('');

/** An optional text that, when given, is between min and max characters (the SEO fields of section 5). */
const optionalBounded = (min: number, max: number) => z.string().trim().min(min, minLengthMessage(min)).max(max, maxLengthMessage(max)).optional();

/** Section 5 "Knowledge base": name required, at most 20; description at most 150. */
export const KnowledgeBaseSchema = z.object({
  name: requiredText('Name', KB_NAME_MAX),
  detail: optionalText(KB_DETAIL_MAX),
});
export type KnowledgeBaseInput = z.infer<typeof KnowledgeBaseSchema>;

export const CategorySchema = z.object({
  name: requiredText('Name', CATEGORY_NAME_MAX),
  description: optionalText(CATEGORY_DESCRIPTION_MAX),
});
export type CategoryInput = z.infer<typeof CategorySchema>;

export const ArticleSchema = z.object({
  title: requiredText('Title', ARTICLE_TITLE_MAX),
  categoryId: z.coerce.number().int().positive().optional(),
  slug: z
    .string()
    .trim()
    .max(80, maxLengthMessage(80))
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'Use lower-case letters, digits and single hyphens')
    .optional(),
  body: z.string().max(ARTICLE_BODY_MAX, maxLengthMessage(ARTICLE_BODY_MAX)).optional().default(''),
  seoTitle: optionalBounded(SEO_TITLE_MIN, SEO_TITLE_MAX),
  seoDescription: optionalBounded(SEO_DESCRIPTION_MIN, SEO_DESCRIPTION_MAX),
});
export type ArticleInput = z.infer<typeof ArticleSchema>;

/**
 * An article's draft as typed, not yet checked: what an image upload sends back to the editor (the upload must not
 * answer "Title is required" when the agent only added a picture).
 */
export const ArticleDraftSchema = z.looseObject({});

/** Section 2 "General": the help centre's public name (3 to 30), a custom domain or none, the language, visibility. */
export const GeneralSettingsSchema = z.object({
  helpName: z
    .string({ error: emptyMessage('Help Center Name') })
    .trim()
    .min(HELP_NAME_MIN, minLengthMessage(HELP_NAME_MIN))
    .max(HELP_NAME_MAX, maxLengthMessage(HELP_NAME_MAX)),
  cname: z
    .string()
    .trim()
    .toLowerCase()
    .max(253, maxLengthMessage(253))
    .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'Enter a valid domain, e.g. help.example.com')
    .optional(),
  language: z.enum(KB_LANGUAGES.map((l) => l.code) as [string, ...string[]], { error: 'Choose a language from the list' }),
  docsVisible: z.boolean().optional().default(false),
});
export type GeneralSettingsInput = z.infer<typeof GeneralSettingsSchema>;

/**
 * Section 2 "SEO": a Google Analytics key (UA-digits-digits or G-XXXX; empty means no analytics, which the
 * specification's "required" would not allow while analytics is optional), IP anonymising, title and description.
 */
export const SeoSettingsSchema = z.object({
  gaKey: z
    .string()
    .trim()
    .regex(/^(UA-\d{4,10}-\d{1,4}|G-[A-Z0-9]{4,12})$/, GA_KEY_MESSAGE)
    .optional(),
  anonymizedIp: z.boolean().optional().default(false),
  seoTitle: optionalBounded(SEO_TITLE_MIN, SEO_TITLE_MAX),
  seoDescription: optionalBounded(SEO_DESCRIPTION_MIN, SEO_DESCRIPTION_MAX),
});
export type SeoSettingsInput = z.infer<typeof SeoSettingsSchema>;

/** Section 2 "Custom CSS & JS" (plan feature customJavascript): text, run only on the help host (ADR 056). */
export const CustomCodeSchema = z.object({
  customCss: z.string().max(CUSTOM_CODE_MAX, maxLengthMessage(CUSTOM_CODE_MAX)).optional().default(''),
  customJs: z.string().max(CUSTOM_CODE_MAX, maxLengthMessage(CUSTOM_CODE_MAX)).optional().default(''),
});

/** A help-centre path of id-slug segments, e.g. /articles/12-reset-password (section 5 "Redirect Rules"). */
const redirectPath = (label: string) =>
  z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(300, maxLengthMessage(300))
    .regex(/^(\/[a-z0-9]+(-[a-z0-9]+)*)+$/, 'Enter a path like /articles/12-reset-password');

export const RedirectRuleSchema = z
  .object({ source: redirectPath('Source'), destination: redirectPath('Destination') })
  .refine((v) => v.source !== v.destination, { path: ['destination'], message: 'The destination must differ from the source' });

const hexColor = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (!value) return null;
    const hex = normaliseHexColor(value);
    if (!hex) {
      ctx.addIssue({ code: 'custom', message: 'Enter a colour as #RRGGBB, e.g. #1F6FEB' });
      return z.NEVER;
    }
    return hex;
  });

const headerLink = z
  .object({
    label: z.string().trim().max(HEADER_LINK_LABEL_MAX, maxLengthMessage(HEADER_LINK_LABEL_MAX)).optional().default(''),
    url: z.string().trim().max(HEADER_LINK_URL_MAX, maxLengthMessage(HEADER_LINK_URL_MAX)).optional().default(''),
  })
  .superRefine((link, ctx) => {
    if (link.url && !link.label) ctx.addIssue({ code: 'custom', path: ['label'], message: 'Enter a label for this link' });
    if (link.label && !link.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'Enter the address of this link' });
    if (link.url) {
      let ok = false;
      try {
        const u = new URL(link.url);
        ok = (u.protocol === 'http:' || u.protocol === 'https:') && Boolean(u.hostname);
      } catch {
        ok = false;
      }
      if (!ok) ctx.addIssue({ code: 'custom', path: ['url'], message: 'Enter a web address starting with http:// or https://' });
    }
  });

/**
 * Customization (ADR 058): brand and header text colours (the text must reach 4.5:1 against the brand colour), up to
 * six header links (rows left empty are ignored), and whether to remove the logo (the logo file itself is read
 * from the multipart form, not by this schema).
 */
export const CustomizationSchema = z
  .object({
    brandColor: hexColor,
    headerTextColor: hexColor,
    headerLinks: z.array(headerLink).max(HEADER_LINKS_MAX, `At most ${HEADER_LINKS_MAX} header links`).optional().default([]),
    removeLogo: z.boolean().optional().default(false),
  })
  .superRefine((v, ctx) => {
    if (!v.brandColor) return;
    const ratio = contrastRatio(v.brandColor, v.headerTextColor ?? DEFAULT_HEADER_TEXT_COLOR);
    if (ratio < MIN_CONTRAST) {
      ctx.addIssue({
        code: 'custom',
        path: ['headerTextColor'],
        message: `The header text needs a contrast of at least ${MIN_CONTRAST}:1 with the brand colour; these two give ${ratio.toFixed(1)}:1`,
      });
    }
  });
export type CustomizationInput = z.infer<typeof CustomizationSchema>;

/** Advanced (ADR 058): what public article pages show, and the order of the help centre's article lists. */
export const AdvancedSettingsSchema = z.object({
  articleFeedback: z.boolean().optional().default(false),
  showLastUpdated: z.boolean().optional().default(false),
  showViewCount: z.boolean().optional().default(false),
  relatedArticles: z.boolean().optional().default(false),
  articleOrder: z.enum(HELP_ARTICLE_ORDERS.map((o) => o.value) as [string, ...string[]], { error: 'Choose an order from the list' }),
});

/** Version Control (ADR 058): versions kept per article; empty keeps every version. */
export const VersionSettingsSchema = z.object({
  versionsKept: z.coerce
    .number({ error: 'Enter a whole number' })
    .int('Enter a whole number')
    .min(VERSIONS_KEPT_MIN, `Keep at least ${VERSIONS_KEPT_MIN} versions, so that two can be compared`)
    .max(VERSIONS_KEPT_MAX, `At most ${VERSIONS_KEPT_MAX}`)
    .optional(),
  confirmRemoval: z.boolean().optional().default(false),
});
