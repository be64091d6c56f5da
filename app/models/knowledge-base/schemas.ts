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
