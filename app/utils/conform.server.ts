/**
 * Forms are validated on the server only (ADR 027): routes take conform's zod parser from here, a `.server`
 * module the browser build replaces with an empty one, so that no screen ships zod.
 */
export { parseWithZod } from '@conform-to/zod/v4';
