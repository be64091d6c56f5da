import { useRichTextEditor } from '~/components/rich-text/use-rich-text-editor';

const LINK_IMAGES = { error: 'Campaign emails link their images: paste the image address instead' } as const;

/**
 * The campaign body's designer: the knowledge base's rich-text editor over the body's textarea (JavaScript only;
 * without it people write HTML in the textarea). Images go in by their web address: campaign mail never attaches.
 */
export function useHtmlDesigner(textareaId: string, enabled: boolean) {
  return useRichTextEditor(textareaId, enabled, { label: 'Body', accept: 'image/png,image/jpeg', upload: async () => LINK_IMAGES });
}
