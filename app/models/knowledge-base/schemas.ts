import { z } from 'zod';
import {
  ARTICLE_BODY_MAX,
  ARTICLE_TITLE_MAX,
  CATEGORY_DESCRIPTION_MAX,
  CATEGORY_NAME_MAX,
  CNAME_MESSAGE,
  emptyMessage,
  GA_KEY_MESSAGE,
  GA_KEY_PATTERN,
  HELP_NAME_MAX,
  HELP_NAME_MIN,
  KB_DETAIL_MAX,
  KB_LANGUAGES,
  KB_NAME_MAX,
  maxLengthMessage,
  SEO_DESCRIPTION_MAX,
  SEO_DESCRIPTION_MIN,
  SEO_TITLE_MAX,
  SEO_TITLE_MIN,
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

const checkbox = z.preprocess((v) => v === 'on' || v === 'true' || v === true, z.boolean());
const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

/** Settings → General (section 5): the public name 3 to 30, a custom domain or none, the language, visibility. */
export const HelpCentreGeneralSchema = z.object({
  helpName: z
    .string({ error: emptyMessage('Name') })
    .trim()
    .min(HELP_NAME_MIN, minLengthMessage(HELP_NAME_MIN))
    .max(HELP_NAME_MAX, maxLengthMessage(HELP_NAME_MAX)),
  cname: z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => v === '' || DOMAIN.test(v), CNAME_MESSAGE)
    .optional()
    .default(''),
  language: z.enum(KB_LANGUAGES.map((l) => l.code) as [string, ...string[]], { error: 'Choose a language' }),
  docsVisible: checkbox,
});
export type HelpCentreGeneralInput = z.infer<typeof HelpCentreGeneralSchema>;

/**
 * Settings → SEO (section 5). The key is checked by its pattern when given; left empty, the help centre loads no
 * analytics script (the specification makes it required, which would force Google Analytics on every help centre
 * that only wants a title: ADR 053).
 */
export const HelpCentreSeoSchema = z.object({
  gaKey: z
    .string()
    .trim()
    .refine((v) => v === '' || GA_KEY_PATTERN.test(v), GA_KEY_MESSAGE)
    .optional()
    .default(''),
  anonymizedIp: checkbox,
  seoTitle: optionalBounded(SEO_TITLE_MIN, SEO_TITLE_MAX),
  seoDescription: optionalBounded(SEO_DESCRIPTION_MIN, SEO_DESCRIPTION_MAX),
});
export type HelpCentreSeoInput = z.infer<typeof HelpCentreSeoSchema>;

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
