import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { ENDPOINTS } from '~/models/api/endpoints.server';
import { handleApi } from '~/models/api/http.server';

/** /api/v1/conversations/:id/messages: read the thread, send a reply or add a note. */
const ROUTE = [ENDPOINTS.listMessages, ENDPOINTS.createMessage];

export const loader = ({ request, params }: LoaderFunctionArgs) => handleApi(request, params, ROUTE);
export const action = ({ request, params }: ActionFunctionArgs) => handleApi(request, params, ROUTE);
