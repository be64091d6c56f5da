/**
 * Parley's messenger widget: the one script a customer pastes into their site.
 *   <script src="https://parley.example.com/public/widget.js" data-inbox="12" async></script>
 * No framework; everything it draws lives in a shadow root, so the host page's CSS cannot reach it and its own
 * CSS cannot leak out. It talks to /public/widget/* (CORS, token in a header, never cookies) and listens on the
 * visitor socket /widget/ws, falling back to polling when the socket cannot open. Compiled by esbuild on the
 * server (app/models/channels/widget-bundle.server.ts); its gzip size is tested to stay under 20 KB.
 */

/** `buttons`: a chatbot's question waiting for its answer (ADR 075); pressing one sends its label. */
type Msg = { id: number; from: 'visitor' | 'agent'; text: string; at: string; author: string | null; edited?: boolean; attachments: { name: string; url: string; kind?: 'image' | 'audio' | 'file' }[]; buttons?: string[] };
type Fields = { name: boolean; email: boolean; phone: boolean; subject: boolean; message: boolean; attachment: boolean; captcha: boolean };
type Config = {
  color: string;
  position: 'left' | 'right';
  font: string;
  fontSize: number;
  greeting: string;
  teamName: string;
  welcomeMessage: string;
  showLauncher: boolean;
  trackPageViews: boolean;
  attachments: boolean;
  /** A help centre to search before a chat starts (GET help?q=). */
  help: boolean;
  offline: { message: string; heading: string; submitButton: string; submitMessage: string; fields: Fields };
};
type Session = {
  token: string;
  online: boolean;
  config: Config;
  conversationId: number | null;
  messages: Msg[];
  captcha: { question: string; token: string } | null;
  /** An in-app survey this page shows this visitor (ADR 061): only then is the survey module fetched. */
  survey?: unknown;
  /** Some published in-app survey exists: asked again when a single-page site changes its address. */
  surveysLive?: boolean;
  /** A chatbot answers in this inbox: the chat shows even while the team is away. */
  bot?: boolean;
  /** A message campaign for this visitor (ADR 082): shown after `delay` seconds on the page; a reply answers it. */
  campaign?: { id: number; text: string; author: string | null; delay: number } | null;
};

((w: Window, d: Document) => {
  const script = (d.currentScript || d.querySelector('script[data-inbox]')) as HTMLScriptElement | null;
  if (!script || (w as unknown as { __parley?: 1 }).__parley) return;
  (w as unknown as { __parley?: 1 }).__parley = 1;
  const data = script.dataset;
  const base = new URL(script.src).origin;
  const inbox = data.inbox || '';
  const storeKey = 'parley:' + inbox;
  const seen = new Set<number>();
  let token = '';
  let lastId = 0;
  let socket: WebSocket | null = null;
  let pollTimer = 0;
  let typingSent = 0;
  let typingTimer = 0;
  let cfg: Config;
  let campaign = 0;

  const load = () => {
    try {
      return JSON.parse(localStorage.getItem(storeKey) || '{}') as { t?: string; p?: 1 };
    } catch {
      return {};
    }
  };
  // `p`: this browser subscribed to web push, so its visits refresh the push segment facts (ADR 115).
  const save = (v: { t?: string; c?: number | null; p?: 1 }) => {
    try {
      localStorage.setItem(storeKey, JSON.stringify({ ...load(), ...v }));
    } catch {
      /* private mode: the chat lasts as long as the page */
    }
  };

  const api = async (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = 'Bearer ' + token;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(base + '/public/widget/' + path, { method, headers, body: payload, credentials: 'omit' });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw Object.assign(new Error(json.error || 'Something went wrong'), { data: json, status: res.status });
    return json;
  };

  /** A random key of a message (crypto.randomUUID is missing on plain-HTTP pages of some browsers). */
  const messageKey = () => {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => (x < 16 ? '0' : '') + x.toString(16)).join('');
  };
  /** A send the network or a restarting server failed (no answer, 502, 503) is tried again three times. */
  const sendWithRetries = async <T,>(send: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        const status = (err as { status?: number }).status;
        const transient = status === undefined || status === 502 || status === 503 || status === 504;
        if (!transient || attempt >= 3) throw err;
        await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
      }
    }
  };

  // ------------------------------------------------------------------ drawing
  const host = d.createElement('div');
  host.setAttribute('data-parley-widget', '');
  const root = host.attachShadow({ mode: 'open' });
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string) => {
    const e = d.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text) e.textContent = text;
    return e;
  };
  // Icons are lucide's (ISC), drawn as inline SVG: an emoji shows as an empty box where no emoji font is installed.
  const ICONS = {
    chat: 'M2.992 16.342a2 2 0 0 1 .094 1.167l-1.065 3.29a1 1 0 0 0 1.236 1.168l3.413-.998a2 2 0 0 1 1.099.092 10 10 0 1 0-4.777-4.719',
    clip: 'm16 6-8.414 8.586a2 2 0 0 0 2.829 2.829l8.414-8.586a4 4 0 1 0-5.657-5.657l-8.379 8.551a6 6 0 1 0 8.485 8.485l8.379-8.551',
  };
  const icon = (name: keyof typeof ICONS, size = 20) => {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = d.createElementNS(ns, 'svg');
    for (const [k, v] of Object.entries({ width: String(size), height: String(size), viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'stroke-linejoin': 'round', 'aria-hidden': 'true' })) svg.setAttribute(k, v);
    const path = d.createElementNS(ns, 'path');
    path.setAttribute('d', ICONS[name]);
    svg.append(path);
    return svg;
  };

  const css = (c: Config) => `
:host{all:initial!important}
*{box-sizing:border-box;font:inherit;margin:0;letter-spacing:normal;word-spacing:normal;text-transform:none;text-indent:0;text-shadow:none}
.w{all:initial;display:block;position:fixed;bottom:20px;${c.position}:20px;z-index:2147483000;font-family:${JSON.stringify(c.font)},sans-serif;font-size:${
    c.fontSize
  }px;color:#1f2937;line-height:1.4}
.l{width:56px;height:56px;border-radius:50%;border:0;background:${
    c.color
  };color:#fff;font-size:26px;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25);float:${c.position}}
.p{display:none;flex-direction:column;width:340px;max-width:calc(100vw - 40px);height:480px;max-height:calc(100vh - 110px);margin-bottom:12px;background:#fff;border-radius:12px;overflow:hidden;box-shadow:0 8px 30px rgba(0,0,0,.25)}
.o .p{display:flex}
.h{background:${c.color};color:#fff;padding:14px 16px}
.h b{display:block;font-size:1.1em}
.h small{opacity:.9}
.x{float:right;background:none;border:0;color:#fff;font-size:20px;cursor:pointer}
.n{float:right;background:none;border:1px solid #fff;border-radius:4px;color:#fff;font-size:.8em;margin:2px 6px;cursor:pointer}
.m{flex:1;overflow-y:auto;padding:12px;background:#f9fafb}
.b{max-width:80%;padding:8px 12px;border-radius:12px;margin:4px 0;white-space:pre-wrap;word-wrap:break-word;clear:both}
.b.v{float:right;background:${c.color};color:#fff}
.b.a{float:left;background:#e5e7eb}
.b i,.b a{display:block;font-size:.8em;opacity:.8}
.b a{color:inherit}
.b .im{display:block;max-width:100%;height:auto;border-radius:8px;margin-top:4px}
.b audio{display:block;max-width:100%;margin-top:4px}
.t{clear:both;font-size:.85em;color:#6b7280;padding:4px 2px;min-height:1.6em}
.c{display:flex;gap:6px;padding:8px;border-top:1px solid #e5e7eb}
textarea,input{flex:1;width:100%;border:1px solid #d1d5db;border-radius:8px;padding:8px;resize:none;font-size:.95em;background:#fff;color:#111}
button.s{background:${c.color};color:#fff;border:0;border-radius:8px;padding:8px 12px;cursor:pointer}
form.f{display:flex;flex-direction:column;gap:8px;padding:12px;overflow-y:auto}
.e{color:#b91c1c;font-size:.85em}
label{font-size:.85em;color:#374151}
.n{padding:8px 12px;font-size:.9em;color:#374151}
.q{padding:8px 12px;border-bottom:1px solid #e5e7eb;max-height:45%;overflow-y:auto}
.q ul{list-style:none;padding:0}
.q li{padding:6px 0;font-size:.9em}
.q a{display:block;color:${c.color};font-weight:600}
.q small{color:#4b5563}
.k{clear:both;display:flex;flex-wrap:wrap;gap:6px;padding:4px 0}
.k button{background:#fff;color:${c.color};border:1px solid ${c.color};border-radius:16px;padding:4px 12px;cursor:pointer}
`;

  let wrap: HTMLDivElement;
  let list: HTMLDivElement;
  let typingLine: HTMLDivElement;

  let search: HTMLFormElement | null = null;

  /** The help-centre search shown before a chat starts: as the visitor types (debounced) or on Enter. */
  const helpSearch = () => {
    const form = el('form', { class: 'q', role: 'search' });
    const input = el('input', { type: 'search', placeholder: 'Search for answers…', 'aria-label': 'Search the help centre', maxlength: '200' });
    const out = el('ul', { 'aria-live': 'polite' });
    let timer = 0;
    let asked = '';
    // The search this typing continues (one recorded search per typed question, not one per pause).
    let searchId = 0;
    const find = async () => {
      const q = input.value.trim();
      if (q === asked) return;
      asked = q;
      if (q.length < 2) return out.replaceChildren();
      try {
        const r = await api('help?q=' + encodeURIComponent(q) + (searchId ? '&replaces=' + searchId : ''));
        if (asked !== q) return;
        searchId = r.searchId || 0;
        const items = (r.results as { title: string; text: string; url: string }[]).map((x) => {
          const li = el('li');
          li.append(el('a', { href: x.url, target: '_blank', rel: 'noopener' }, x.title), el('small', {}, x.text));
          return li;
        });
        out.replaceChildren(...(items.length ? items : [el('li', {}, 'No articles found. Ask us below.')]));
      } catch (err) {
        out.replaceChildren(el('li', {}, (err as Error).message));
      }
    };
    input.oninput = () => {
      clearTimeout(timer);
      timer = w.setTimeout(find, 300) as unknown as number;
    };
    form.onsubmit = (e) => {
      e.preventDefault();
      void find();
    };
    form.append(input, out);
    return form;
  };

  const bubbles = new Map<number, HTMLElement>();
  let choices: HTMLElement | null = null;
  let sendText: (text: string) => void = () => {};
  const bubble = (m: Msg) => {
    const shown = bubbles.get(m.id);
    if (shown) {
      // An agent edited a reply: the bubble shows the new text, marked edited.
      const textNode = Array.from(shown.childNodes).find((n) => n.nodeType === 3);
      if (textNode) textNode.textContent = m.text;
      if (m.edited && !shown.querySelector('small')) shown.append(el('small', {}, ' (edited)'));
      return;
    }
    if (seen.has(m.id)) return;
    seen.add(m.id);
    lastId = Math.max(lastId, m.id);
    const b = el('div', { class: 'b ' + (m.from === 'visitor' ? 'v' : 'a'), 'data-from': m.from }, m.text);
    bubbles.set(m.id, b);
    if (m.author) b.prepend(el('i', {}, m.author));
    if (m.edited) b.append(el('small', {}, ' (edited)'));
    for (const f of m.attachments) {
      const link = el('a', { href: base + f.url, target: '_blank', rel: 'noopener' }, f.kind === 'image' ? '' : ' ' + f.name);
      // An image shows in the bubble (a link to the full file), an audio clip plays there (ADR 156).
      if (f.kind === 'image') link.append(el('img', { src: base + f.url, alt: f.name, class: 'im' }));
      else link.prepend(icon('clip', 14));
      b.append(link);
      if (f.kind === 'audio') b.append(el('audio', { controls: '', preload: 'none', src: base + f.url, 'aria-label': f.name }));
    }
    list.insertBefore(b, typingLine);
    // A bot's question offers its answers as buttons until anything else is said.
    choices?.remove();
    choices = null;
    if (m.buttons && m.buttons.length) {
      choices = el('div', { class: 'k', role: 'group', 'aria-label': 'Answers' });
      for (const label of m.buttons) {
        const btn = el('button', { type: 'button' }, label);
        btn.onclick = () => sendText(label);
        choices.append(btn);
      }
      list.insertBefore(choices, typingLine);
    }
    list.scrollTop = list.scrollHeight;
  };

  const showTyping = (text: string) => {
    typingLine.textContent = text;
  };

  const draw = (s: Session) => {
    cfg = s.config;
    // Constructed stylesheets (adoptedStyleSheets) are not inline styles: a site whose policy says only
    // `style-src 'self'` still shows the widget styled. A <style> element is the fallback for old browsers.
    const text = css(cfg);
    const sheet = typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype ? new CSSStyleSheet() : null;
    if (sheet) {
      sheet.replaceSync(text);
      root.adoptedStyleSheets = [sheet];
    } else root.append(el('style', {}, text));
    wrap = el('div', { class: 'w', part: 'widget' });
    const panel = el('div', { class: 'p', role: 'dialog', 'aria-label': cfg.teamName });
    const head = el('div', { class: 'h' });
    const close = el('button', { class: 'x', 'aria-label': 'Close chat' }, '×');
    head.append(close, el('b', {}, cfg.teamName), el('small', {}, cfg.greeting));
    panel.append(head);
    // Web push (ADR 083): offered when the snippet names the site's service worker file and the browser can.
    const sw = data.pushWorker;
    if (sw && 'serviceWorker' in navigator && 'PushManager' in w && Notification.permission !== 'denied') {
      const bell = el('button', { class: 'n', 'data-parley-push': '' }, 'Get notifications');
      bell.onclick = () => void subscribe(sw, bell);
      head.append(bell);
    }
    if (cfg.help && !s.conversationId) panel.append((search = helpSearch()));
    const launcher = el('button', { class: 'l', 'aria-label': 'Open chat' });
    launcher.append(icon('chat', 26));
    const toggle = () => wrap.classList.toggle('o');
    launcher.onclick = toggle;
    close.onclick = toggle;
    if (!cfg.showLauncher) launcher.style.display = 'none';
    // Parley.track('sale', { amount, currency, orderId }) and goal events (ADR 105): the promise tells the site it counted.
    (w as unknown as { Parley?: object }).Parley = { open: () => wrap.classList.add('o'), track: (name: string, props?: object) => api('track', { name, props }) };

    if (s.online || s.conversationId || s.bot || s.campaign) {
      list = el('div', { class: 'm', 'aria-live': 'polite' });
      typingLine = el('div', { class: 't' });
      list.append(typingLine);
      if (cfg.welcomeMessage) list.prepend(el('div', { class: 'n' }, cfg.welcomeMessage));
      if (!s.online) list.prepend(el('div', { class: 'n' }, cfg.offline.message));
      const composer = el('form', { class: 'c' });
      const input = el('textarea', { rows: '2', placeholder: 'Type a message…', 'aria-label': 'Message', maxlength: '5000' });
      const file = el('input', { type: 'file', 'aria-label': 'Attach a file', accept: 'image/*,.pdf,.txt,.csv' });
      file.style.display = 'none';
      const clip = el('button', { type: 'button', class: 's', 'aria-label': 'Attach a file' });
      clip.append(icon('clip', 16));
      clip.onclick = () => file.click();
      const send = el('button', { type: 'submit', class: 's' }, 'Send');
      composer.append(input);
      if (cfg.attachments) composer.append(file, clip);
      composer.append(send);
      const submit = async (pressed?: string) => {
        const text = pressed || input.value.trim();
        const f = pressed ? null : file.files && file.files[0];
        if (!text && !f) return;
        const body = new FormData();
        body.append('text', text);
        if (f) body.append('attachments', f);
        if (campaign) body.append('campaign', '' + campaign);
        // One key per message: a send whose answer was lost (a server that restarted, a proxy error) is sent again
        // with it, and the server keeps the message once.
        body.append('clientId', messageKey());
        send.disabled = true;
        try {
          const r = await sendWithRetries(() => api('messages', body));
          // The conversation now holds the campaign's message itself.
          if (campaign) bubbles.get(-1)?.remove(), (campaign = 0);
          if (!pressed) {
            input.value = '';
            file.value = '';
          }
          // Sent: no longer typing, and the next keystroke is news again.
          clearTimeout(typingTimer);
          typingSent = 0;
          save({ t: token, c: r.conversationId });
          // The chat has started: the help search gives way to it.
          search?.remove();
          (r.messages as Msg[]).forEach(bubble);
          ensureLive();
        } catch (err) {
          showTyping((err as Error).message);
        } finally {
          send.disabled = false;
        }
      };
      sendText = (t) => void submit(t);
      composer.onsubmit = (e) => {
        e.preventDefault();
        void submit();
      };
      input.onkeydown = (e) => {
        if (e.key === 'Enter' && !e.shiftKey) {
          e.preventDefault();
          void submit();
        }
      };
      input.oninput = () => sendTyping(true);
      panel.append(list, composer);
      s.messages.forEach(bubble);
    } else {
      panel.append(ticketForm(s));
    }
    wrap.append(panel, launcher);
    root.append(wrap);
    d.body.append(host);
  };

  /** The support-widget form (chat-widget form flags) shown while the team is offline. */
  const ticketForm = (s: Session) => {
    const o = cfg.offline;
    const form = el('form', { class: 'f', 'aria-label': o.heading });
    form.append(el('b', {}, o.heading), el('div', { class: 'n' }, o.message));
    const fields: [keyof Fields, string, string][] = [
      ['name', 'Name', 'text'],
      ['email', 'Email', 'email'],
      ['phone', 'Phone', 'tel'],
      ['subject', 'Subject', 'text'],
      ['message', 'Message', 'textarea'],
      ['attachment', 'Attachment', 'file'],
    ];
    const errors: Record<string, HTMLElement> = {};
    for (const [key, label, type] of fields) {
      if (!o.fields[key]) continue;
      const name = key === 'attachment' ? 'attachments' : key;
      const id = 'pw-' + key;
      const input = type === 'textarea' ? el('textarea', { name, id, rows: '4' }) : el('input', { name, id, type });
      errors[name] = el('div', { class: 'e', role: 'alert' });
      form.append(el('label', { for: id }, label), input, errors[name]);
    }
    if (s.captcha) {
      form.append(el('label', { for: 'pw-captcha' }, s.captcha.question), el('input', { name: 'captchaAnswer', id: 'pw-captcha', inputmode: 'numeric' }));
      form.append(el('input', { type: 'hidden', name: 'captchaToken', value: s.captcha.token }));
      errors.captchaAnswer = el('div', { class: 'e', role: 'alert' });
      form.append(errors.captchaAnswer);
    }
    const general = el('div', { class: 'e', role: 'alert' });
    form.append(general, el('button', { type: 'submit', class: 's' }, o.submitButton));
    form.onsubmit = async (e) => {
      e.preventDefault();
      for (const k in errors) errors[k].textContent = '';
      general.textContent = '';
      try {
        await api('ticket', new FormData(form));
        form.replaceChildren(el('b', {}, o.heading), el('div', { class: 'n', role: 'status' }, o.submitMessage));
      } catch (err) {
        const fe = ((err as { data?: { fieldErrors?: Record<string, string[]> } }).data || {}).fieldErrors || {};
        let shown = false;
        for (const k in fe) if (errors[k]) (errors[k].textContent = fe[k][0]), (shown = true);
        if (!shown) general.textContent = (err as Error).message;
      }
    };
    return form;
  };

  // ------------------------------------------------------------------ live
  const sendTyping = (typing: boolean) => {
    const now = Date.now();
    clearTimeout(typingTimer);
    if (typing) typingTimer = w.setTimeout(() => sendTyping(false), 3000) as unknown as number;
    if (typing && now - typingSent < 2000) return;
    typingSent = typing ? now : 0;
    const msg = JSON.stringify({ type: 'typing', typing });
    if (socket && socket.readyState === 1) socket.send(msg);
    else api('typing', { typing }).catch(() => {});
  };

  const poll = async () => {
    try {
      const r = await api('messages?after=' + lastId);
      (r.messages as Msg[]).forEach(bubble);
    } catch {
      /* offline for a moment: the next poll catches up */
    }
  };

  const ensureLive = () => {
    if (socket || !list) return;
    const ws = new WebSocket(base.replace(/^http/, 'ws') + '/widget/ws?token=' + encodeURIComponent(token));
    socket = ws;
    ws.onopen = () => {
      clearInterval(pollTimer);
      pollTimer = 0;
      void poll();
    };
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === 'message') {
        bubble(m.message);
        if (m.message.from === 'agent') showTyping('');
      } else if (m.type === 'typing') showTyping(m.typing ? (m.name || cfg.teamName) + ' is typing…' : '');
    };
    ws.onclose = (e) => {
      socket = null;
      // The account's plan has no messenger (ADR 157): the HTTP calls are refused too; no point coming back.
      if (e.code === 4403) return;
      // HTTP fallback: poll until the socket opens again.
      if (!pollTimer) pollTimer = w.setInterval(poll, 3000) as unknown as number;
      w.setTimeout(ensureLive, 10000);
    };
  };

  // ------------------------------------------------------------------ web push
  const subscribe = async (sw: string, bell: HTMLElement) => {
    try {
      if ((await Notification.requestPermission()) !== 'granted') return;
      const reg = await navigator.serviceWorker.register(sw);
      await navigator.serviceWorker.ready;
      const { publicKey } = await api('push');
      const key = Uint8Array.from(atob(publicKey.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const sub = (await reg.pushManager.getSubscription()) || (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
      await api('push', { ...sub.toJSON(), url: location.href, referrer: d.referrer, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone });
      save({ p: 1 });
      bell.textContent = 'Notifications on';
    } catch {
      bell.textContent = 'Notifications unavailable';
    }
  };

  // ------------------------------------------------------------------ page views
  let lastUrl = '';
  const pageView = () => {
    if (!cfg.trackPageViews) return;
    const url = location.href;
    // A new page is recorded; the same page again is a cheap "still here" ping that makes time on site.
    api('pageview', { url, title: d.title, referrer: lastUrl ? '' : d.referrer }).catch(() => {});
    lastUrl = url;
  };

  const start = async () => {
    const stored = load();
    token = stored.t || '';
    const user = data.userId ? { id: data.userId, hash: data.userHash, name: data.userName, email: data.userEmail } : null;
    const push = stored.p && { r: d.referrer, z: Intl.DateTimeFormat().resolvedOptions().timeZone };
    const s: Session = await api('session', { inboxId: Number(inbox), token, user, url: location.href, survey: data.survey, push });
    token = s.token;
    save({ t: token, c: s.conversationId });
    draw(s);
    let surveyShown = false;
    const showSurvey = (survey: unknown) => {
      surveyShown = true;
      (w as unknown as { __parleySv: unknown }).__parleySv = { b: base, t: token, s: survey };
      d.head.append(el('script', { src: base + '/public/widget-survey.js', async: '' }));
    };
    if (s.survey) showSurvey(s.survey);
    const c = s.campaign;
    if (c && list)
      w.setTimeout(() => {
        campaign = c.id;
        bubble({ id: -1, from: 'agent', text: c.text, at: '', author: c.author, attachments: [] });
        wrap.classList.add('o');
        api('campaign', { id: c.id }).catch(() => {});
      }, c.delay * 1000);
    const navigated = () => {
      pageView();
      if (!s.surveysLive || surveyShown) return;
      api('survey?url=' + encodeURIComponent(location.href) + (data.survey ? '&key=' + encodeURIComponent(data.survey) : ''))
        .then((r) => r.survey && !surveyShown && showSurvey(r.survey))
        .catch(() => {});
    };
    if (s.conversationId) ensureLive();
    pageView();
    w.setInterval(pageView, 60000);
    // Single-page sites change the URL without a load.
    const pushState = history.pushState;
    history.pushState = function (...args: Parameters<typeof pushState>) {
      pushState.apply(this, args);
      setTimeout(navigated);
    };
    w.addEventListener('popstate', navigated);
  };

  if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', () => void start());
  else void start();
})(window, document);
