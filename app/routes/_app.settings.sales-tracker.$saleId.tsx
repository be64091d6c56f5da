import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { ConversionEditorPage, conversionEditorHandle, conversionEditorMeta } from '~/components/conversions/conversion-editor';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { conversionEditorAction, conversionEditorLoader } from '~/models/conversions/editor-route.server';

/** Settings → Conversions: sales-tracker/add creates, sales-tracker/{saleId} edits (the spec's routes; one editor for goals and sales trackers, ADR 120). */
export const loader = (args: LoaderFunctionArgs) => conversionEditorLoader('tracker', args);
export const action = (args: ActionFunctionArgs) => conversionEditorAction('tracker', args);
export const handle = conversionEditorHandle;
export const meta = conversionEditorMeta;
export default ConversionEditorPage;

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
