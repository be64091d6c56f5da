import { data } from '@remix-run/node';
import { readPage } from '~/components/ui/pager';
import { readSort } from '~/components/ui/sort-header';
import { isRowId } from '~/utils/route-id';
import type { AppContext } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';
import { FieldInputError } from '../productivity/shared.server';
import { deleteCompanies, setCompanyFavourite, tagCompanies, COMPANY_SORT_COLUMNS } from './companies.server';
import { CONTACT_SORT_COLUMNS, deleteContacts, setContactFavourite, tagContacts } from './contacts.server';

/** Ids from a selection form: checkbox values and/or one comma-joined value ("ids comma-joined"). */
export function readIds(values: FormDataEntryValue[]) {
  return [
    ...new Set(
      values
        .flatMap((v) => String(v).split(','))
        .map((v) => v.trim())
        .filter((v) => /^\d{1,10}$/.test(v))
        .map(Number)
        .filter(isRowId),
    ),
  ];
}

function readTagFilter(url: URL) {
  const n = Number(url.searchParams.get('tag'));
  return isRowId(n) ? n : null;
}

/** The GET filters of a contact list (text, tag, sort, page). */
export function readContactFilters(url: URL) {
  const { sort, dir } = readSort(url, [...CONTACT_SORT_COLUMNS, 'default'] as const, 'default');
  return {
    q: url.searchParams.get('q')?.trim().slice(0, 100) ?? '',
    tag: readTagFilter(url),
    sort: sort === 'default' ? null : sort,
    dir,
    page: readPage(url),
  };
}

export function readCompanyFilters(url: URL) {
  const { sort, dir } = readSort(url, [...COMPANY_SORT_COLUMNS, 'default'] as const, 'default');
  return {
    q: url.searchParams.get('q')?.trim().slice(0, 100) ?? '',
    tag: readTagFilter(url),
    sort: sort === 'default' ? null : sort,
    dir,
    page: readPage(url),
  };
}

/** Back to the list the form was posted from, with its filters (the index route's `?index` dropped). */
function listUrl(request: Request) {
  const url = new URL(request.url);
  url.searchParams.delete('index');
  const qs = url.searchParams.toString();
  return `${url.pathname}${qs ? `?${qs}` : ''}`;
}

export type SelectionError = { formError: string };

/**
 * The selection form of a contact or company list: bulk delete, bulk tag, and the favourite toggle of a row.
 * Returns null when the intent is not one of these (the route handles its own or answers 400).
 */
export async function handleListAction(request: Request, ctx: AppContext, form: FormData, kind: 'contact' | 'company') {
  const intent = String(form.get('intent') ?? '');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  const back = listUrl(request);
  if (intent === 'delete') {
    const ids = readIds(form.getAll('ids'));
    if (!ids.length) return data<SelectionError>({ formError: 'Select at least one row' }, { status: 400 });
    const n = kind === 'contact' ? await deleteContacts({ ...who, ids }) : await deleteCompanies({ ...who, ids });
    if (!n) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(back, { type: 'info', text: 'Deleted' });
  }
  if (intent === 'tag') {
    const ids = readIds(form.getAll('ids'));
    const tagId = Number(form.get('tagId'));
    if (!ids.length) return data<SelectionError>({ formError: 'Select at least one row' }, { status: 400 });
    if (!isRowId(tagId)) return data<SelectionError>({ formError: 'Choose a tag' }, { status: 400 });
    try {
      if (kind === 'contact') await tagContacts({ ...who, ids, tagId });
      else await tagCompanies({ ...who, ids, tagId });
    } catch (err) {
      if (err instanceof FieldInputError) return data<SelectionError>({ formError: err.message }, { status: 400 });
      throw err;
    }
    return redirectWithToast(back, { type: 'info', text: kind === 'contact' ? 'Contact Updated' : 'Updated' });
  }
  if (intent === 'favourite') {
    // The list's one favourites form: the pressed button is `favourite=<id>:<true|false>`; a single-row form may
    // still post `id` and `value`.
    const pressed = /^(\d{1,15}):(true|false)$/.exec(String(form.get('favourite') ?? ''));
    const [id] = readIds(pressed ? [pressed[1]] : form.getAll('id'));
    if (!id) throw new Response('Not Found', { status: 404 });
    const isFavourite = (pressed ? pressed[2] : form.get('value')) === 'true';
    const row = kind === 'contact' ? await setContactFavourite({ ...who, id, isFavourite }) : await setCompanyFavourite({ ...who, id, isFavourite });
    if (!row) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(back, { type: 'info', text: kind === 'contact' ? 'Contact Updated' : 'Updated' });
  }
  return null;
}
