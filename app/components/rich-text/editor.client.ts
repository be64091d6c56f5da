/**
 * The article body's rich-text editor (ADR 058): ProseMirror over the form's textarea, loaded on demand in its own
 * chunk. The textarea stays the form's field and the source of truth: the editor starts from its HTML and writes
 * its HTML back into it (with an `input` event) after every change, so a form submission never depends on the
 * editor, and a page where this module fails to load keeps a working textarea. The server sanitises either way.
 */
import { baseKeymap, setBlockType, toggleMark, wrapIn, lift } from 'prosemirror-commands';
import { history, redo, undo } from 'prosemirror-history';
import { keymap } from 'prosemirror-keymap';
import { DOMParser as PMDOMParser, DOMSerializer, Schema, type MarkType, type NodeType } from 'prosemirror-model';
import { schema as basic } from 'prosemirror-schema-basic';
import { addListNodes, liftListItem, splitListItem, wrapInList } from 'prosemirror-schema-list';
import { EditorState, type Command, type Transaction } from 'prosemirror-state';
import { addColumnAfter, addRowAfter, deleteColumn, deleteRow, deleteTable, tableEditing, tableNodes } from 'prosemirror-tables';
import { EditorView } from 'prosemirror-view';

const schema = new Schema({
  nodes: addListNodes(basic.spec.nodes, 'paragraph block*', 'block').append(tableNodes({ tableGroup: 'block', cellContent: 'block+', cellAttributes: {} })),
  marks: basic.spec.marks,
});

export type UploadResult = { url: string; filename: string } | { error: string };

type Item = {
  label: string;
  text: string;
  run: (view: EditorView) => void;
  active?: (state: EditorState) => boolean;
  enabled?: (state: EditorState) => boolean;
};

function markActive(state: EditorState, type: MarkType) {
  const { from, $from, to, empty } = state.selection;
  return empty ? Boolean(type.isInSet(state.storedMarks || $from.marks())) : state.doc.rangeHasMark(from, to, type);
}

function blockActive(state: EditorState, type: NodeType, attrs: Record<string, unknown> = {}) {
  const { $from } = state.selection;
  const node = $from.parent;
  return node.type === type && Object.entries(attrs).every(([k, v]) => node.attrs[k] === v);
}

const cmd = (c: Command) => (view: EditorView) => {
  c(view.state, view.dispatch, view);
  view.focus();
};

function toggleLink(view: EditorView) {
  const type = schema.marks.link;
  const { state } = view;
  if (markActive(state, type)) {
    toggleMark(type)(state, view.dispatch);
    view.focus();
    return;
  }
  const href = window.prompt('Link address (https://…)', 'https://');
  if (!href || !/^(https?:\/\/|mailto:|\/)/i.test(href.trim())) {
    view.focus();
    return;
  }
  if (state.selection.empty) {
    const text = schema.text(href.trim(), [type.create({ href: href.trim() })]);
    view.dispatch(state.tr.replaceSelectionWith(text, false));
  } else toggleMark(type, { href: href.trim() })(state, view.dispatch);
  view.focus();
}

function insertTable(view: EditorView) {
  const { table, table_row: row, table_header: header, table_cell: cell, paragraph } = schema.nodes;
  const rowOf = (type: NodeType) =>
    row.create(
      null,
      [0, 1, 2].map(() => type.create(null, paragraph.create())),
    );
  view.dispatch(view.state.tr.replaceSelectionWith(table.create(null, [rowOf(header), rowOf(cell), rowOf(cell)])).scrollIntoView());
  view.focus();
}

export function mountRichTextEditor(textarea: HTMLTextAreaElement, opts: { label: string; upload: (file: File) => Promise<UploadResult>; accept: string }) {
  const wrapper = document.createElement('div');
  wrapper.className = 'rte';
  const toolbar = document.createElement('div');
  toolbar.setAttribute('role', 'toolbar');
  toolbar.setAttribute('aria-label', 'Formatting');
  toolbar.setAttribute('aria-controls', `${textarea.id}-rich`);
  toolbar.className = 'rte-toolbar';
  const status = document.createElement('p');
  status.className = 'field-error';
  status.setAttribute('role', 'alert');
  status.hidden = true;
  const mountPoint = document.createElement('div');
  mountPoint.className = 'rte-area';

  const fileInput = document.createElement('input');
  fileInput.type = 'file';
  fileInput.accept = opts.accept;
  fileInput.hidden = true;
  fileInput.tabIndex = -1;

  const parse = (html: string) => {
    const div = document.createElement('div');
    div.innerHTML = html;
    return PMDOMParser.fromSchema(schema).parse(div);
  };
  const serialize = (state: EditorState) => {
    const div = document.createElement('div');
    div.appendChild(DOMSerializer.fromSchema(schema).serializeFragment(state.doc.content));
    // An empty document is an empty body, not "<p></p>".
    return state.doc.textContent.trim() === '' && !div.querySelector('img, table') ? '' : div.innerHTML;
  };

  const plugins = [
    history(),
    keymap({
      'Mod-z': undo,
      'Shift-Mod-z': redo,
      'Mod-y': redo,
      'Mod-b': toggleMark(schema.marks.strong),
      'Mod-i': toggleMark(schema.marks.em),
      'Mod-`': toggleMark(schema.marks.code),
      Enter: splitListItem(schema.nodes.list_item),
      'Mod-[': liftListItem(schema.nodes.list_item),
    }),
    keymap(baseKeymap),
    tableEditing(),
  ];

  let view: EditorView;
  let sourceMode = false;
  const dispatchTransaction = (tr: Transaction) => {
    const state = view.state.apply(tr);
    view.updateState(state);
    if (tr.docChanged) {
      textarea.value = serialize(state);
      textarea.dispatchEvent(new Event('input', { bubbles: true }));
    }
    refresh();
  };
  view = new EditorView(mountPoint, {
    state: EditorState.create({ doc: parse(textarea.value), plugins }),
    dispatchTransaction,
    // An image file pasted or dropped into the text is uploaded like one chosen with the Image button.
    handlePaste: (_view, event) => takeImageFile(event.clipboardData?.files),
    handleDrop: (_view, event) => takeImageFile((event as DragEvent).dataTransfer?.files),
    attributes: {
      id: `${textarea.id}-rich`,
      role: 'textbox',
      'aria-multiline': 'true',
      'aria-label': opts.label,
      class: 'rte-content',
    },
  });

  function showError(message: string) {
    status.textContent = message;
    status.hidden = !message;
  }

  function takeImageFile(files: FileList | undefined | null) {
    const file = files && [...files].find((f) => f.type.startsWith('image/'));
    if (!file) return false;
    void uploadFile(file);
    return true;
  }

  async function uploadFile(file: File) {
    showError('');
    toolbar.setAttribute('aria-busy', 'true');
    try {
      const result = await opts.upload(file);
      if ('error' in result) return showError(result.error);
      const fromName = result.filename.replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[-_]+/g, ' ');
      // The alternative text is what a screen reader says: asked for, with the file's name as the suggestion.
      const alt = window.prompt('Describe the image for readers who cannot see it', fromName)?.trim() || fromName;
      const node = schema.nodes.image.create({ src: result.url, alt });
      view.dispatch(view.state.tr.replaceSelectionWith(node).scrollIntoView());
      view.focus();
    } catch {
      showError('The image could not be uploaded. Try again, or use Upload image below the editor.');
    } finally {
      toolbar.removeAttribute('aria-busy');
    }
  }
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    fileInput.value = '';
    if (file) void uploadFile(file);
  });

  const { strong, em, code } = schema.marks;
  const { heading, paragraph, code_block: codeBlock, bullet_list: bulletList, ordered_list: orderedList, blockquote } = schema.nodes;
  const items: Item[] = [
    { label: 'Paragraph', text: '¶', run: cmd(setBlockType(paragraph)), active: (s) => blockActive(s, paragraph) },
    { label: 'Heading 2', text: 'H2', run: cmd(setBlockType(heading, { level: 2 })), active: (s) => blockActive(s, heading, { level: 2 }) },
    { label: 'Heading 3', text: 'H3', run: cmd(setBlockType(heading, { level: 3 })), active: (s) => blockActive(s, heading, { level: 3 }) },
    { label: 'Bold', text: 'B', run: cmd(toggleMark(strong)), active: (s) => markActive(s, strong) },
    { label: 'Italic', text: 'I', run: cmd(toggleMark(em)), active: (s) => markActive(s, em) },
    { label: 'Inline code', text: '</>', run: cmd(toggleMark(code)), active: (s) => markActive(s, code) },
    { label: 'Link', text: 'Link', run: toggleLink, active: (s) => markActive(s, schema.marks.link) },
    { label: 'Bulleted list', text: '• List', run: cmd(wrapInList(bulletList)) },
    { label: 'Numbered list', text: '1. List', run: cmd(wrapInList(orderedList)) },
    { label: 'Lift out of list or quote', text: '⇤', run: cmd((s, d) => liftListItem(schema.nodes.list_item)(s, d) || lift(s, d)) },
    { label: 'Quote', text: '“ ”', run: cmd(wrapIn(blockquote)) },
    { label: 'Code block', text: '{ }', run: cmd(setBlockType(codeBlock)), active: (s) => blockActive(s, codeBlock) },
    { label: 'Table', text: 'Table', run: insertTable },
    // Shaping a table: usable only with the cursor in one.
    { label: 'Add a row below', text: '+Row', run: cmd(addRowAfter), enabled: (st) => addRowAfter(st) },
    { label: 'Add a column to the right', text: '+Col', run: cmd(addColumnAfter), enabled: (st) => addColumnAfter(st) },
    { label: 'Delete the row', text: '−Row', run: cmd(deleteRow), enabled: (st) => deleteRow(st) },
    { label: 'Delete the column', text: '−Col', run: cmd(deleteColumn), enabled: (st) => deleteColumn(st) },
    { label: 'Delete the table', text: '−Table', run: cmd(deleteTable), enabled: (st) => deleteTable(st) },
    { label: 'Image', text: 'Image', run: () => fileInput.click() },
    { label: 'Undo', text: '↶', run: cmd(undo), enabled: (s) => undo(s) },
    { label: 'Redo', text: '↷', run: cmd(redo), enabled: (s) => redo(s) },
    { label: 'Edit HTML', text: 'HTML', run: () => toggleSource(), active: () => sourceMode },
  ];

  // One tab stop for the whole toolbar; arrow keys, Home and End move between its buttons (WAI-ARIA toolbar).
  const buttons = items.map((item, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'rte-btn';
    // The short face is hidden from assistive technology; the name is the full label (one text, no mismatch).
    const face = document.createElement('span');
    face.setAttribute('aria-hidden', 'true');
    face.textContent = item.text;
    const name = document.createElement('span');
    name.className = 'visually-hidden';
    name.textContent = item.label;
    b.append(face, name);
    b.title = item.label;
    b.tabIndex = i === 0 ? 0 : -1;
    b.addEventListener('mousedown', (e) => e.preventDefault());
    b.addEventListener('click', () => item.run(view));
    toolbar.appendChild(b);
    return b;
  });
  toolbar.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    const enabled = buttons.filter((b) => !b.disabled);
    const at = enabled.indexOf(buttons[i]);
    const next = e.key === 'ArrowRight' ? at + 1 : e.key === 'ArrowLeft' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? enabled.length - 1 : null;
    if (next === null || enabled.length === 0) return;
    e.preventDefault();
    const target = enabled[(next + enabled.length) % enabled.length];
    buttons.forEach((b) => (b.tabIndex = b === target ? 0 : -1));
    target.focus();
  });

  function refresh() {
    items.forEach((item, i) => {
      const b = buttons[i];
      if (item.active) b.setAttribute('aria-pressed', String(item.active(view.state)));
      const disabled = sourceMode ? item.label !== 'Edit HTML' : item.enabled ? !item.enabled(view.state) : false;
      b.disabled = disabled;
    });
    // The toolbar's one tab stop must be a button that can take focus.
    const stop = buttons.find((b) => b.tabIndex === 0);
    if (!stop || stop.disabled) {
      const first = buttons.find((b) => !b.disabled);
      buttons.forEach((b) => (b.tabIndex = b === first ? 0 : -1));
    }
  }

  /** "Edit HTML" shows the textarea itself; leaving it reads the textarea back into the editor. */
  function toggleSource() {
    sourceMode = !sourceMode;
    if (sourceMode) {
      mountPoint.hidden = true;
      textarea.hidden = false;
      textarea.focus();
    } else {
      view.updateState(EditorState.create({ doc: parse(textarea.value), plugins }));
      textarea.hidden = true;
      mountPoint.hidden = false;
      view.focus();
    }
    refresh();
  }

  wrapper.append(toolbar, status, mountPoint, fileInput);
  textarea.before(wrapper);
  textarea.hidden = true;
  refresh();

  return {
    destroy() {
      view.destroy();
      wrapper.remove();
      textarea.hidden = false;
    },
  };
}
