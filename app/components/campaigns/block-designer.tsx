import { useEffect, useState } from 'react';
import { DESIGN_BLOCK_LABELS, DESIGN_BLOCK_TYPES, emptyBlock, renderDesign, type DesignBlock, type TextDesign } from '~/models/campaigns/design';

/**
 * The block designer (ADR 095), loaded lazily by BlockDesignerSwitch once the page is interactive: heading, text,
 * image, button, divider and two-column blocks. Every change writes the rendered html into the body's textarea (what
 * the server keeps and mails) and the document into the `textDesign` field; a sandboxed frame previews the html.
 */
export default function BlockDesigner({ textareaId, initial, onDesign }: { textareaId: string; initial: TextDesign | null; onDesign: (json: string) => void }) {
  const [blocks, setBlocks] = useState<DesignBlock[]>(initial?.blocks ?? [emptyBlock('heading'), emptyBlock('text')]);
  const html = renderDesign({ version: 1, blocks });
  useEffect(() => {
    const area = document.getElementById(textareaId);
    if (area instanceof HTMLTextAreaElement) {
      area.value = html;
      area.dispatchEvent(new Event('input', { bubbles: true }));
    }
    onDesign(JSON.stringify({ version: 1, blocks }));
  }, [html, blocks, textareaId, onDesign]);

  const change = (i: number, patch: Partial<DesignBlock>) => setBlocks((bs) => bs.map((b, j) => (j === i ? ({ ...b, ...patch } as DesignBlock) : b)));
  const move = (i: number, by: number) =>
    setBlocks((bs) => {
      const to = i + by;
      if (to < 0 || to >= bs.length) return bs;
      const next = [...bs];
      [next[i], next[to]] = [next[to], next[i]];
      return next;
    });
  const remove = (i: number) => setBlocks((bs) => bs.filter((_, j) => j !== i));

  return (
    <div className="block-designer stack" data-testid="block-designer">
      <ol className="stack block-list" aria-label="Blocks">
        {blocks.map((b, i) => (
          <li key={i} className="card stack" data-block={b.type}>
            <div className="row">
              <strong>{DESIGN_BLOCK_LABELS[b.type]}</strong>
              <div className="spacer" />
              <button type="button" className="btn" onClick={() => move(i, -1)} disabled={i === 0} aria-label={`Move block ${i + 1} up`}>
                ↑
              </button>
              <button type="button" className="btn" onClick={() => move(i, 1)} disabled={i === blocks.length - 1} aria-label={`Move block ${i + 1} down`}>
                ↓
              </button>
              <button type="button" className="btn" onClick={() => remove(i)} aria-label={`Remove block ${i + 1}`}>
                Remove
              </button>
            </div>
            <BlockFields block={b} index={i} change={(p) => change(i, p)} />
          </li>
        ))}
      </ol>
      <div className="row" role="group" aria-label="Add a block">
        {DESIGN_BLOCK_TYPES.map((t) => (
          <button key={t} type="button" className="btn" onClick={() => setBlocks((bs) => [...bs, emptyBlock(t)])}>
            + {DESIGN_BLOCK_LABELS[t]}
          </button>
        ))}
      </div>
      <iframe title="Designed email preview" sandbox="" srcDoc={`<!doctype html><body style="font-family:Helvetica,Arial,sans-serif;color:#1f2937;max-width:600px;margin:0 auto;padding:16px">${html}</body>`} className="email-preview-frame" />
    </div>
  );
}

function BlockFields({ block, index, change }: { block: DesignBlock; index: number; change: (p: Partial<DesignBlock>) => void }) {
  const id = (f: string) => `block-${index}-${f}`;
  const text = (f: string, label: string, value: string, long = false) => (
    <div className="field">
      <label htmlFor={id(f)}>{label}</label>
      {long ? (
        <textarea id={id(f)} rows={4} value={value} onChange={(e) => change({ [f]: e.target.value } as Partial<DesignBlock>)} />
      ) : (
        <input id={id(f)} value={value} onChange={(e) => change({ [f]: e.target.value } as Partial<DesignBlock>)} />
      )}
    </div>
  );
  switch (block.type) {
    case 'heading':
      return text('text', 'Heading text', block.text);
    case 'text':
      return text('text', 'Text (a blank line starts a paragraph)', block.text, true);
    case 'image':
      return (
        <>
          {text('src', 'Image address (https://...)', block.src)}
          {text('alt', 'Alternative text', block.alt)}
          {text('href', 'Link (optional)', block.href)}
        </>
      );
    case 'button':
      return (
        <>
          {text('label', 'Button label', block.label)}
          {text('href', 'Link', block.href)}
          <div className="field">
            <label htmlFor={id('color')}>Colour</label>
            <input id={id('color')} type="color" value={block.color} onChange={(e) => change({ color: e.target.value })} />
          </div>
        </>
      );
    case 'divider':
      return <p className="muted">A line between blocks.</p>;
    case 'columns':
      return (
        <>
          {text('left', 'Left column', block.left, true)}
          {text('right', 'Right column', block.right, true)}
        </>
      );
  }
}
