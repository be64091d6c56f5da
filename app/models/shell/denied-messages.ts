/**
 * The two "not allowed" sentences every screen may show. They live in this module of their own so that a browser
 * bundle that shows them does not carry the plan catalogue and the permission list along (ADR 110).
 */
export const FEATURE_DENIED_MESSAGE = 'Your current plan does not support this feature. Please contact your account administrator.';
export const ROLE_LOCKED_MESSAGE = 'Your current roles does not allow to update. Please contact your account administrator.';
