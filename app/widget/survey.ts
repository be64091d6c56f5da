/**
 * Parley's in-app survey module (ADR 061). The messenger widget (widget.ts) fetches this script only when its
 * session answer carries a survey — a published in-app survey whose page conditions match this page, for this
 * visitor — and hands it over in `window.__parleySv`. Everything is drawn in a shadow root. Answers are sent as
 * they are given (the server keeps them as a partial response, or as a draft when partial submission is off),
 * from a queue kept in localStorage and retried with backoff until the server has them. Budget: 12 KB gzipped.
 */

import { readableBrand } from '../models/surveys/colour';

type Q = { id: string; type: string; heading: string; question: string; isRequired: boolean; settings: Record<string, any> };
type Survey = {
  id: number;
  logo: string | null;
  questions: Q[];
  design: {
    themeType: string;
    position: string;
    brandColor: string;
    header: string;
    subHeader: string;
    footer: string;
    showBranding: boolean;
    showProgressBar: boolean;
    showQuestionNumber: boolean;
    indicateMandatory: boolean;
  };
  messages: { proceedToNext: string; completion: string; textPlaceholder: string; dropdownPlaceholder: string; mandatory: string };
  display: { method: string; delay: number | null; scroll: number | null; untilResponded: boolean };
  responseKey: string | null;
  answers: Record<string, unknown>;
};
type Item = { id: number; k: string; a: Record<string, unknown>; c: boolean; u: string };

((w: Window, d: Document) => {
  const g = w as unknown as { __parleySv?: { b: string; t: string; s: Survey }; __parleySvOn?: 1 };
  const boot = g.__parleySv;
  if (!boot || g.__parleySvOn) return;
  g.__parleySvOn = 1;
  const { b: base, t: token, s } = boot;
  const get = (k: string) => {
    try {
      return localStorage.getItem(k);
    } catch {
      return null;
    }
  };
  const set = (k: string, v: string) => {
    try {
      localStorage.setItem(k, v);
    } catch {
      /* private mode: the survey lasts as long as the page */
    }
  };
  const seen = 'parley:sv:' + s.id;
  // showUntilResponded off: once shown, never again (the server also stops offering it once answered).
  if (!s.display.untilResponded && get(seen) && !s.responseKey) return;
  const rnd = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (x) => (x % 36).toString(36)).join('');
  const key = s.responseKey || get(seen + ':k') || rnd();
  set(seen + ':k', key);
  const answers: Record<string, unknown> = { ...s.answers };

  // ------------------------------------------------------------------ sending, with retries
  const QK = 'parley:svq';
  let queue: Item[] = [];
  try {
    queue = JSON.parse(get(QK) || '[]');
  } catch {
    queue = [];
  }
  let wait = 1000;
  let timer = 0;
  let busy = false;
  const store = () => set(QK, JSON.stringify(queue));
  const flush = async (): Promise<void> => {
    if (busy || !queue.length) return;
    busy = true;
    const it = queue[0];
    let res: Response;
    try {
      res = await fetch(base + '/public/widget/survey/answer', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: JSON.stringify({ surveyId: it.id, responseKey: it.k, answers: it.a, complete: it.c, url: it.u }),
        credentials: 'omit',
        keepalive: true,
      });
      if (res.status >= 500 || res.status === 429 || res.status === 408) throw 0;
    } catch {
      // The connection dropped (or the server is busy): the same answer again, later.
      busy = false;
      timer = w.setTimeout(flush, wait) as unknown as number;
      wait = Math.min(wait * 2, 30000);
      return;
    }
    queue.shift();
    store();
    wait = 1000;
    busy = false;
    if (res.status === 410 && it.id === s.id) {
      const body = await res.json().catch(() => ({}));
      ended(body.error || 'This survey is closed.');
    }
    return flush();
  };
  w.addEventListener('online', () => {
    clearTimeout(timer);
    wait = 1000;
    void flush();
  });
  const send = (a: Record<string, unknown>, c: boolean) => {
    queue.push({ id: s.id, k: key, a, c, u: location.href });
    store();
    void flush();
  };
  void flush();

  // ------------------------------------------------------------------ drawing
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string) => {
    const e = d.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const svg = (paths: string[], size = 26) => {
    const ns = 'http://www.w3.org/2000/svg';
    const e = d.createElementNS(ns, 'svg');
    for (const [k, v] of Object.entries({
      width: String(size),
      height: String(size),
      viewBox: '0 0 24 24',
      fill: 'none',
      stroke: 'currentColor',
      'stroke-width': '1.8',
      'stroke-linecap': 'round',
      'stroke-linejoin': 'round',
      'aria-hidden': 'true',
    }))
      e.setAttribute(k, v);
    for (const p of paths) {
      const path = d.createElementNS(ns, 'path');
      path.setAttribute('d', p);
      e.append(path);
    }
    return e;
  };
  // lucide's star, heart and thumbs-up (ISC), and a face whose mouth curves with the mood.
  const SHAPES: Record<string, string> = {
    stars:
      'M11.5 2.3a.5.5 0 0 1 1 0l2.3 4.7a2 2 0 0 0 1.6 1.1l5.2.8a.5.5 0 0 1 .3.9l-3.8 3.7a2 2 0 0 0-.6 1.9l.9 5.2a.5.5 0 0 1-.8.6l-4.6-2.5a2 2 0 0 0-2 0l-4.6 2.5a.5.5 0 0 1-.8-.6l.9-5.2a2 2 0 0 0-.6-1.9L1.1 9.8a.5.5 0 0 1 .3-.9l5.2-.8a2 2 0 0 0 1.6-1.1z',
    hearts: 'M2 9.5a5.5 5.5 0 0 1 9.6-3.7.6.6 0 0 0 .8 0A5.5 5.5 0 0 1 22 9.5c0 2.3-1.5 4-3 5.5l-5.5 5.3a2 2 0 0 1-3 0L5 15c-1.5-1.5-3-3.2-3-5.5',
    thumbs:
      'M7 10v12M15 5.9 14 10h5.8a2 2 0 0 1 1.9 2.6l-2.3 8a2 2 0 0 1-2 1.4H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.8a2 2 0 0 0 1.8-1.1L12 2a3.1 3.1 0 0 1 3 3.9',
  };
  const face = (mood: number) => {
    const k = Math.round(mood * 4);
    return svg(['M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20', 'M9 9.5h.01M15 9.5h.01', `M8 ${k >= 0 ? 14.5 : 16.5}q4 ${k} 8 0`], 30);
  };
  const FACES: Record<number, string[]> = { 3: ['Unhappy', 'Neutral', 'Happy'], 5: ['Very unhappy', 'Unhappy', 'Neutral', 'Happy', 'Very happy'] };

  const D = s.design;
  const c = readableBrand(D.brandColor || '#2287FB');
  const side = D.position === 'right' ? 'right' : 'left';
  const theme = D.themeType === 'small' || D.themeType === 'pop-over' ? D.themeType : 'full';
  const css = `
:host{all:initial!important}
*{box-sizing:border-box;font:inherit;margin:0}
.o{position:fixed;z-index:2147483001;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:15px;line-height:1.4;color:#1f2937}
.o.full{inset:0;background:#fff;display:flex;align-items:center;justify-content:center;padding:16px}
.o.pop-over{inset:0;background:rgba(17,24,39,.45);display:flex;align-items:center;justify-content:center;padding:16px}
.o.small{bottom:20px;${side}:20px;width:340px;max-width:calc(100vw - 40px)}
.b{background:#fff;border-radius:14px;padding:18px;width:100%;max-width:560px;max-height:calc(100vh - 40px);overflow:auto;position:relative}
.small .b,.pop-over .b{box-shadow:0 10px 34px rgba(0,0,0,.25)}
.pop-over .b{max-width:420px}
.x{position:absolute;top:8px;${
    side === 'left' ? 'right' : 'left'
  }:8px;border:0;background:none;font-size:22px;cursor:pointer;color:#6b7280;line-height:1;padding:4px 8px}
.hd{font-weight:700;font-size:1.05em;padding-right:24px}
.sh,.ft,.pb,.pg{color:#6b7280;font-size:.85em}
.lg{max-height:32px;display:block;margin-bottom:6px}
.pg{display:flex;gap:8px;align-items:center;margin:8px 0}
.pg i{flex:1;height:5px;background:#e5e7eb;border-radius:3px;overflow:hidden}
.pg i b{display:block;height:100%;background:${c}}
.q{font-weight:600;margin:12px 0 10px}
.h{display:block;font-weight:400;color:#6b7280;font-size:.85em}
.r{color:#b91c1c}
.sc{display:flex;flex-wrap:wrap;gap:6px}
.sc button{min-width:36px;height:36px;padding:0 8px;border:1px solid #d1d5db;border-radius:8px;background:#fff;cursor:pointer;color:#374151;display:inline-flex;align-items:center;justify-content:center}
.sc button[aria-pressed=true]{background:${c};border-color:${c};color:#fff}
.ends{display:flex;justify-content:space-between;font-size:.8em;color:#6b7280;margin-top:4px}
textarea,input,select{width:100%;border:1px solid #d1d5db;border-radius:8px;padding:8px;background:#fff;color:#111}
.op{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:4px 0}
.op input[type=radio],.op input[type=checkbox]{width:auto;accent-color:${c}}
.op input.cm{flex-basis:100%;margin-left:22px}
label{font-size:.92em}
.f{margin:6px 0}
.e{color:#b91c1c;font-size:.85em;margin-top:6px}
.nv{display:flex;flex-direction:row-reverse;justify-content:space-between;gap:8px;margin-top:14px}
.bt{background:${c};color:#fff;border:1px solid ${c};border-radius:8px;padding:8px 16px;cursor:pointer}
.bt.s{background:#fff;color:${c}}
.ft{margin-top:12px}
.pb{margin-top:10px;text-align:center}
`;
  const host = el('div', { 'data-parley-survey': String(s.id) });
  const root = host.attachShadow({ mode: 'open' });
  const sheet = typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype ? new CSSStyleSheet() : null;
  if (sheet) {
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } else root.append(el('style', {}, css));
  const over = el('div', { class: 'o ' + theme });
  const box = el('div', { class: 'b', role: 'dialog', 'aria-label': D.header || 'Survey', 'aria-modal': theme === 'small' ? 'false' : 'true' });
  over.append(box);
  root.append(over);

  const qs = s.questions;
  const counted = qs.filter((q) => q.type !== 'welcome');
  let step = 0;
  // Back where the visitor left off: the first question without an answer.
  if (s.responseKey) while (step < qs.length - 1 && (qs[step].type === 'welcome' || answers[qs[step].id] !== undefined)) step++;

  const close = () => host.remove();
  const frame = () => {
    box.replaceChildren();
    const x = el('button', { class: 'x', 'aria-label': 'Close survey', type: 'button' }, '×');
    x.onclick = close;
    box.append(x);
    if (s.logo) box.append(el('img', { class: 'lg', src: base + s.logo, alt: '' }));
    if (D.header) box.append(el('div', { class: 'hd' }, D.header));
    if (D.subHeader) box.append(el('div', { class: 'sh' }, D.subHeader));
  };
  const tail = () => {
    if (D.footer) box.append(el('div', { class: 'ft' }, D.footer));
    if (D.showBranding) box.append(el('div', { class: 'pb' }, 'Powered by Parley'));
  };
  const ended = (text: string) => {
    frame();
    box.append(el('p', { class: 'q', role: 'status' }, text));
    tail();
    w.setTimeout(close, 6000);
  };

  /** Draws the answer area of a question; returns a reader of its value (undefined: no answer). */
  const area = (q: Q, into: HTMLElement): (() => unknown) => {
    const st = q.settings || {};
    const prev = answers[q.id] as any;
    const id = 'psv-' + q.id;
    switch (q.type) {
      case 'nps':
      case 'rating':
      case 'smiley':
      case 'csat':
      case 'ces': {
        const min = q.type === 'nps' || q.type === 'ces' ? 0 : 1;
        const max = q.type === 'nps' ? 10 : q.type === 'rating' && st.scaleStyle === 'text' ? 5 : st.range || (q.type === 'ces' ? 7 : 5);
        const row = el('div', { class: 'sc', role: 'radiogroup', 'aria-labelledby': id });
        let value: number | undefined = typeof prev === 'number' ? prev : undefined;
        const buttons: HTMLButtonElement[] = [];
        for (let n = min; n <= max; n++) {
          const faces = q.type === 'smiley' || q.type === 'csat';
          const label = faces
            ? (FACES[max] || FACES[5])[n - 1]
            : q.type === 'rating' && st.scaleStyle === 'text'
            ? (st.scaleLabels || ['Very Unsatisfied', 'Unsatisfied', 'Neutral', 'Satisfied', 'Very Satisfied'])[n - 1]
            : String(n);
          const b = el('button', { type: 'button', 'aria-pressed': String(value === n), 'aria-label': label, title: label });
          if (faces) b.append(face((n - (min + max) / 2) / ((max - min) / 2)));
          else if (q.type === 'rating' && st.scaleStyle === 'shapes') b.append(svg([SHAPES[st.scaleShape] || SHAPES.stars], 22));
          else b.textContent = label;
          b.onclick = () => {
            value = n;
            buttons.forEach((x, i) => x.setAttribute('aria-pressed', String(i + min === n)));
          };
          buttons.push(b);
          row.append(b);
        }
        into.append(row);
        if (st.leftText || st.rightText) {
          const ends = el('div', { class: 'ends' });
          ends.append(
            el('span', {}, q.type === 'nps' ? '0 - ' + (st.leftText || '') : st.leftText || ''),
            el('span', {}, q.type === 'nps' ? '10 - ' + (st.rightText || '') : st.rightText || ''),
          );
          into.append(ends);
        }
        return () => value;
      }
      case 'text':
      case 'date': {
        const input =
          q.type === 'text' ? el('textarea', { rows: '3', maxlength: '2000', placeholder: s.messages.textPlaceholder }) : el('input', { type: 'date' });
        input.setAttribute('aria-labelledby', id);
        input.value = typeof prev === 'string' ? prev : '';
        into.append(input);
        return () => input.value.trim() || undefined;
      }
      case 'dropdown': {
        const sel = el('select', { 'aria-labelledby': id });
        sel.append(el('option', { value: '' }, s.messages.dropdownPlaceholder));
        for (const o of st.options || []) sel.append(el('option', { value: o.choice }, o.choice));
        sel.value = prev && prev.choice ? prev.choice : '';
        into.append(sel);
        return () => (sel.value ? { choice: sel.value } : undefined);
      }
      case 'radio':
      case 'checkbox': {
        const multi = q.type === 'checkbox';
        const picked: string[] = prev ? (multi ? prev.choices || [] : [prev.choice]) : [];
        const rows: [HTMLInputElement, HTMLInputElement | null, string][] = [];
        (st.options || []).forEach((o: { choice: string; enableComment: boolean }, i: number) => {
          const line = el('div', { class: 'op' });
          const box2 = el('input', { type: multi ? 'checkbox' : 'radio', name: id, id: id + '-' + i });
          box2.checked = picked.includes(o.choice);
          line.append(box2, el('label', { for: id + '-' + i }, o.choice));
          let cm: HTMLInputElement | null = null;
          if (o.enableComment) {
            cm = el('input', { class: 'cm', 'aria-label': 'Comment on ' + o.choice, placeholder: 'Add a comment (optional)', maxlength: '500' });
            cm.value = prev ? (multi ? (prev.comments || {})[o.choice] || '' : prev.choice === o.choice ? prev.comment || '' : '') : '';
            line.append(cm);
          }
          rows.push([box2, cm, o.choice]);
          into.append(line);
        });
        return () => {
          const on = rows.filter((r) => r[0].checked);
          if (!on.length) return undefined;
          if (!multi) return { choice: on[0][2], comment: on[0][1]?.value.trim() || undefined };
          const comments: Record<string, string> = {};
          for (const r of on) if (r[1] && r[1].value.trim()) comments[r[2]] = r[1].value.trim();
          return { choices: on.map((r) => r[2]), comments };
        };
      }
      case 'form': {
        const TYPES: Record<string, string> = { email: 'email', phone: 'tel', website: 'url' };
        const inputs: [string, HTMLInputElement][] = [];
        (st.fields || []).forEach((f: { name: string; label: string; type: string; isRequired: boolean }, i: number) => {
          const wrap = el('div', { class: 'f' });
          const input = el('input', { id: id + '-' + i, type: TYPES[f.type] || 'text', maxlength: '200' });
          input.value = (prev && prev[f.name]) || '';
          wrap.append(el('label', { for: id + '-' + i }, f.label + (f.isRequired ? ' *' : '')), input);
          inputs.push([f.name, input]);
          into.append(wrap);
        });
        return () => {
          const v: Record<string, string> = {};
          for (const [name, input] of inputs) if (input.value.trim()) v[name] = input.value.trim();
          return Object.keys(v).length ? v : undefined;
        };
      }
      default:
        return () => undefined;
    }
  };

  const draw = () => {
    frame();
    const q = qs[step];
    const n = counted.indexOf(q) + 1;
    if (D.showProgressBar && n > 0) {
      const pg = el('div', { class: 'pg' });
      const bar = el('i');
      const fill = el('b');
      fill.style.width = (n / counted.length) * 100 + '%';
      bar.append(fill);
      pg.append(bar, el('span', {}, n + '/' + counted.length));
      box.append(pg);
    }
    const answerable = q.type !== 'welcome' && q.type !== 'thank-you';
    const title = el('div', { class: 'q', id: 'psv-' + q.id });
    if (q.heading) title.append(el('span', { class: 'h' }, q.heading));
    title.append((D.showQuestionNumber && answerable ? n + '. ' : '') + q.question);
    if (D.indicateMandatory && q.isRequired && answerable) title.append(el('span', { class: 'r' }, ' *'));
    box.append(title);
    const read = area(q, box);
    const err = el('div', { class: 'e', role: 'alert' });
    box.append(err);
    const nav = el('div', { class: 'nv' });
    const last = step >= qs.length - 1;
    const next = el(
      'button',
      { class: 'bt', type: 'button' },
      q.type === 'welcome' ? q.settings.buttonLabel || 'Start' : last ? 'Submit' : s.messages.proceedToNext || 'Next',
    );
    next.onclick = () => {
      const v = read();
      if (answerable && q.isRequired && v === undefined) {
        err.textContent = s.messages.mandatory;
        return;
      }
      const given: Record<string, unknown> = {};
      if (answerable && (v !== undefined || answers[q.id] !== undefined)) {
        given[q.id] = v ?? null;
        if (v === undefined) delete answers[q.id];
        else answers[q.id] = v;
      }
      if (last) {
        send(given, true);
        return ended(s.messages.completion);
      }
      if (Object.keys(given).length) send(given, false);
      step++;
      draw();
    };
    nav.append(next);
    if (step > 0 && q.type !== 'welcome') {
      const back = el('button', { class: 'bt s', type: 'button' }, 'Previous');
      back.onclick = () => {
        step--;
        draw();
      };
      nav.append(back);
    }
    box.append(nav);
    tail();
    (box.querySelector('button.bt, .sc button, input, textarea, select') as HTMLElement | null)?.focus({ preventScroll: true });
  };

  let shown = false;
  const show = () => {
    if (shown) return;
    shown = true;
    set(seen, '1');
    draw();
    d.body.append(host);
  };
  const m = s.display.method;
  if (m === 'delay') w.setTimeout(show, (s.display.delay || 0) * 1000);
  else if (m === 'exit')
    d.addEventListener('mouseout', (e) => {
      if (!e.relatedTarget && e.clientY <= 0) show();
    });
  else if (m === 'scroll') {
    const check = () => {
      const h = d.documentElement;
      const depth = h.scrollHeight <= w.innerHeight ? 100 : ((w.scrollY + w.innerHeight) / h.scrollHeight) * 100;
      if (depth >= (s.display.scroll ?? 100) - 1) {
        w.removeEventListener('scroll', check);
        show();
      }
    };
    w.addEventListener('scroll', check, { passive: true });
    check();
  } else show();
})(window, document);
