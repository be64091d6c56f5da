/**
 * Pure rule evaluation: does a rule match the facts of an event, and which part decided? No database, no clock:
 * the engine gathers the facts (app/models/automation/facts.server.ts) and applies actions elsewhere.
 */
import type { FilterField, RuleCondition, RuleFilter, TextOp } from '../../app/models/automation/rule-types';

export type Facts = {
  eventType: string;
  conversation?: {
    id: number;
    subject: string;
    /** The customer's words the event is about: the new message, or the first message of a new conversation. */
    message?: string;
    inboxId: number;
    sourceType: string;
    assigneeId: number | null;
    status: string;
    priority: number;
  } | null;
  contact?: {
    id: number;
    email: string | null;
    firstName: string;
    lastName: string;
    country: string | null;
    companyId: number | null;
    companyName: string | null;
    /** The contact has no conversation before this one (or was created by this event). */
    isNew: boolean;
  } | null;
  page?: { url: string | null; referrer: string | null } | null;
  rating?: number | null;
  /** Survey channel or review source, for inbox rules' source type. */
  sourceType?: string | null;
  /** The inbox the event belongs to when it has no conversation (a survey sent for an inbox). */
  inboxId?: number | null;
  /** What the event is about when that is neither a conversation nor a contact (a review, a survey response): ADR 149. */
  subject?: { type: string; id: number } | null;
};

export type RuleToEvaluate = {
  event: string;
  sourceType?: string | null;
  sources?: number[];
  conditions: RuleCondition[];
  conditionOperator: 'and' | 'or';
  filters: RuleFilter[];
};

export type DecidedBy = {
  part: 'event' | 'source' | 'condition' | 'filter';
  index: number;
  field: string;
  op: string;
  value: string;
  actual: string | number | boolean | null;
};

export type Evaluation = {
  matched: boolean;
  reason: string;
  decidedBy?: DecidedBy;
};

const lower = (v: string | null | undefined) => (v ?? '').trim().toLowerCase();

export function emailDomain(email: string | null | undefined) {
  const at = (email ?? '').lastIndexOf('@');
  return at < 0 ? '' : lower(email!.slice(at + 1));
}

export function hostOf(url: string | null | undefined) {
  if (!url) return '';
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return '';
  }
}

function sameUrl(a: string, b: string) {
  const norm = (u: string) =>
    lower(u)
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/+$/, '');
  return norm(a) === norm(b);
}

export function textMatches(actual: string | null | undefined, op: TextOp | 'equal' | 'contain', expected: string) {
  const a = lower(actual);
  const e = lower(expected);
  switch (op) {
    case 'equals':
    case 'equal':
      return a === e;
    case 'contains':
    case 'contain':
      return e !== '' && a.includes(e);
    case 'startsWith':
      return a.startsWith(e);
    case 'endsWith':
      return a.endsWith(e);
  }
}

function compareNumber(actual: number | null | undefined, op: string, expected: string) {
  const want = Number(expected);
  if (actual === null || actual === undefined || !Number.isFinite(want)) return false;
  if (op === 'above') return actual > want;
  if (op === 'below') return actual < want;
  if (op === 'contain') return String(actual).includes(expected.trim());
  return actual === want;
}

function compareText(actual: string | null | undefined, op: string, expected: string) {
  if (op === 'above' || op === 'below') return false;
  return textMatches(actual, op === 'contain' ? 'contain' : 'equal', expected);
}

/** The value a condition looks at, and whether it matches. */
export function checkCondition(c: RuleCondition, facts: Facts): { ok: boolean; actual: string | number | boolean | null } {
  const contact = facts.contact ?? null;
  const page = facts.page ?? null;
  switch (c.field) {
    case 'new_contact':
      return {
        ok: contact?.isNew === true,
        actual: contact ? contact.isNew : null,
      };
    case 'repeat_contact':
      return {
        ok: contact?.isNew === false,
        actual: contact ? !contact.isNew : null,
      };
    case 'country':
      return {
        ok: compareText(contact?.country, c.op, c.value),
        actual: contact?.country ?? null,
      };
    case 'page_url_match':
      return {
        ok: !!page?.url && (c.op === 'contain' ? textMatches(page.url, 'contain', c.value) : sameUrl(page.url, c.value)),
        actual: page?.url ?? null,
      };
    case 'page_url_contain':
      return {
        ok: textMatches(page?.url, 'contain', c.value),
        actual: page?.url ?? null,
      };
    case 'page_url':
      return {
        ok: c.op === 'equal' ? !!page?.url && sameUrl(page.url, c.value) : compareText(page?.url, c.op, c.value),
        actual: page?.url ?? null,
      };
    case 'referral_url':
      return {
        ok: c.op === 'equal' ? !!page?.referrer && sameUrl(page.referrer, c.value) : textMatches(page?.referrer, 'contain', c.value),
        actual: page?.referrer ?? null,
      };
    case 'referral_domain': {
      const host = hostOf(page?.referrer);
      const want = lower(c.value).replace(/^www\./, '');
      return {
        ok: host !== '' && (host === want || host.endsWith(`.${want}`) || (c.op === 'contain' && host.includes(want))),
        actual: host || null,
      };
    }
    case 'contacts':
      return {
        ok: compareNumber(contact?.id, c.op, c.value),
        actual: contact?.id ?? null,
      };
    case 'assignees':
      return {
        ok: compareNumber(facts.conversation?.assigneeId, c.op, c.value),
        actual: facts.conversation?.assigneeId ?? null,
      };
    case 'company':
      return {
        ok: compareNumber(contact?.companyId, c.op, c.value),
        actual: contact?.companyId ?? null,
      };
    case 'rating':
      return {
        ok: compareNumber(facts.rating, c.op, c.value),
        actual: facts.rating ?? null,
      };
    case 'domain': {
      const domain = emailDomain(contact?.email);
      return { ok: compareText(domain, c.op, c.value), actual: domain || null };
    }
  }
}

function filterActual(field: FilterField, facts: Facts): string | null {
  const contact = facts.contact ?? null;
  switch (field) {
    case 'contact':
      return contact ? `${contact.firstName} ${contact.lastName} ${contact.email ?? ''}`.trim() : null;
    case 'domain':
      return emailDomain(contact?.email) || null;
    case 'subject':
      return facts.conversation?.subject ?? null;
    case 'message':
      return facts.conversation?.message ?? null;
    case 'assignee':
      return facts.conversation?.assigneeId != null ? String(facts.conversation.assigneeId) : null;
    case 'country':
      return contact?.country ?? null;
    case 'company':
      return contact?.companyName ?? null;
  }
}

export function checkFilter(f: RuleFilter, facts: Facts) {
  const actual = filterActual(f.field, facts);
  // The contact filter reads name and address together, so "contains" is the natural reading of equals too.
  const ok =
    f.field === 'contact' && f.op === 'equals'
      ? textMatches(actual, 'contains', f.value) || lower(facts.contact?.email) === lower(f.value)
      : textMatches(actual, f.op, f.value);
  return { ok, actual };
}

/**
 * Decides whether a rule matches. Order: the trigger event, the sources (inbox rules), the conditions (joined by
 * the rule's operator), then every filter. The first part that fails is reported as the deciding one; for an
 * `or` of conditions that all fail, the first condition is.
 */
export function evaluateRule(rule: RuleToEvaluate, facts: Facts): Evaluation {
  if (rule.event !== facts.eventType) {
    return {
      matched: false,
      reason: `the rule waits for ${rule.event}`,
      decidedBy: {
        part: 'event',
        index: 0,
        field: 'event',
        op: 'equal',
        value: rule.event,
        actual: facts.eventType,
      },
    };
  }
  if (rule.sources && rule.sources.length > 0) {
    const inboxId = facts.conversation?.inboxId ?? facts.inboxId ?? null;
    if (inboxId === null || !rule.sources.includes(inboxId)) {
      return {
        matched: false,
        reason: 'the conversation is not in one of the rule’s inboxes',
        decidedBy: {
          part: 'source',
          index: 0,
          field: 'inbox',
          op: 'in',
          value: rule.sources.join(','),
          actual: inboxId,
        },
      };
    }
  }
  if (rule.sourceType && facts.sourceType && rule.sourceType !== facts.sourceType) {
    return {
      matched: false,
      reason: `the source is ${facts.sourceType}, not ${rule.sourceType}`,
      decidedBy: {
        part: 'source',
        index: 0,
        field: 'sourceType',
        op: 'equal',
        value: rule.sourceType,
        actual: facts.sourceType,
      },
    };
  }
  if (rule.conditions.length > 0) {
    const results = rule.conditions.map((c) => ({
      c,
      ...checkCondition(c, facts),
    }));
    const describe = (i: number): DecidedBy => ({
      part: 'condition',
      index: i,
      field: results[i].c.field,
      op: results[i].c.op,
      value: results[i].c.value,
      actual: results[i].actual,
    });
    if (rule.conditionOperator === 'or') {
      const hit = results.findIndex((r) => r.ok);
      if (hit < 0)
        return {
          matched: false,
          reason: 'no condition holds',
          decidedBy: describe(0),
        };
    } else {
      const miss = results.findIndex((r) => !r.ok);
      if (miss >= 0)
        return {
          matched: false,
          reason: `condition ${miss + 1} (${results[miss].c.field}) does not hold`,
          decidedBy: describe(miss),
        };
    }
  }
  for (const [i, f] of rule.filters.entries()) {
    const { ok, actual } = checkFilter(f, facts);
    if (!ok)
      return {
        matched: false,
        reason: `filter ${i + 1} (${f.field}) does not match`,
        decidedBy: {
          part: 'filter',
          index: i,
          field: f.field,
          op: f.op,
          value: f.value,
          actual,
        },
      };
  }
  const n = rule.conditions.length + rule.filters.length;
  return {
    matched: true,
    reason: n === 0 ? 'the rule has no conditions' : 'every condition and filter holds',
  };
}
