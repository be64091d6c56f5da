/** Plain values of the forms beside them (facebook-schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/** Facebook Messenger inbox form: the page, its access token and the Meta app's secret (secrets kept when left empty on update). */
export const SOCIAL_NAME_MAX = 20;

export const SOCIAL_SECRET_MAX = 500;
