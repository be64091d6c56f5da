/**
 * Streams an AI answer into the reply box (ADR 081). Loaded on the first click of an AI button, so the
 * conversation page's first load does not carry it. Returns the sentence to show under the buttons.
 */
export async function streamAiAnswer(conversationId: number, button: HTMLButtonElement, box: HTMLTextAreaElement) {
  const body = new FormData(button.form ?? undefined, button);
  body.delete('files');
  const res = await fetch(`/inbox/${conversationId}/ai`, { method: 'POST', body }).catch(() => null);
  if (!res) return 'The AI server could not be reached.';
  if (!res.ok || !res.body) return res.text();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  box.value = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    box.value += r.value;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }
  return 'AI suggestion in the reply box: review it before you send.';
}
