import { useRouteLoaderData } from '@remix-run/react';

export type TagOption = { id: number; name: string };

/**
 * The account's tags as choices (filters and tag pickers) on any CRM page: the CRM layout reads them with its side
 * menu in one statement (ADR 136), so no page reads them again.
 */
export function useCrmTagOptions(): TagOption[] {
  return useRouteLoaderData<{ tagOptions: TagOption[] }>('routes/_app.customers')?.tagOptions ?? [];
}
