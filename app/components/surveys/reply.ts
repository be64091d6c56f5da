import { useEffect, useState } from 'react';

/** What an action answers on a refused form: conform's `submission.reply()` (typed values and field errors). */
export type Reply = { initialValue?: Record<string, unknown> | null; error?: Record<string, string[] | null> | null } | null | undefined;

function segments(path: string) {
  return path.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '');
}

function dig(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const seg of segments(path)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

/**
 * Reads a form's values and errors by field name ("design.header", "question.settings.options[0].choice"): after
 * a refused submission what the person typed (nothing is lost), otherwise what is stored.
 */
export function readReply(reply: Reply, stored: unknown) {
  const typed = reply?.initialValue ?? null;
  return {
    refused: Boolean(reply?.error && Object.values(reply.error).some((e) => e?.length)),
    value(name: string): unknown {
      return typed ? dig(typed, name) : dig(stored, name);
    },
    text(name: string): string {
      // A field posted twice comes back as a list: show its first value.
      const raw = typed ? dig(typed, name) : dig(stored, name);
      const v = Array.isArray(raw) ? raw[0] : raw;
      return v === undefined || v === null || typeof v === 'object' ? '' : String(v);
    },
    checked(name: string): boolean {
      const raw = typed ? dig(typed, name) : dig(stored, name);
      const v = Array.isArray(raw) ? raw[0] : raw;
      return v === true || v === 'on' || v === 'true';
    },
    errors(name: string): string[] {
      return reply?.error?.[name] ?? [];
    },
    /** Errors of the field or anything under it (a list's items). */
    errorsUnder(prefix: string): string[] {
      if (!reply?.error) return [];
      return Object.entries(reply.error)
        .filter(([k]) => k === prefix || k.startsWith(`${prefix}.`) || k.startsWith(`${prefix}[`))
        .flatMap(([, v]) => v ?? []);
    },
  };
}
export type ReplyReader = ReturnType<typeof readReply>;

/** True once React has hydrated: controls that only JavaScript can make useful (Save disabled until a change). */
export function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** A form's fields as the nested object their names describe ("design.header", "options[0].choice"): what the live preview reads. */
export function formToObject(form: HTMLFormElement) {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new FormData(form)) {
    if (typeof value !== 'string') continue;
    const segs = name.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '');
    let cur: Record<string, unknown> = out;
    segs.forEach((seg, i) => {
      if (i === segs.length - 1) cur[seg] = value;
      else {
        if (cur[seg] === undefined || typeof cur[seg] !== 'object') cur[seg] = /^\d+$/.test(segs[i + 1]) ? [] : {};
        cur = cur[seg] as Record<string, unknown>;
      }
    });
  }
  return out;
}
