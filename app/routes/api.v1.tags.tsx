import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { ENDPOINTS } from '~/models/api/endpoints.server';
import { handleApi } from '~/models/api/http.server';

/** /api/v1/tags. */
const ROUTE = [ENDPOINTS.listTags, ENDPOINTS.createTag];

export const loader = ({ request, params }: LoaderFunctionArgs) => handleApi(request, params, ROUTE);
export const action = ({ request, params }: ActionFunctionArgs) => handleApi(request, params, ROUTE);
