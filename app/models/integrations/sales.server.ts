import { and, eq, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { recordSale as recordConversionSale } from '../conversions/conversions.server';

/**
 * Orders from the stores (Shopify, BigCommerce) as sales (ADR 098), recorded like the messenger's (ADR 104): once per
 * (account, source, externalId), so a webhook delivered twice (or twice at once) records one sale, attributed to the
 * contact's conversation when there is one.
 */
export type SaleSource = 'tracker' | 'shopify' | 'bigcommerce' | 'api';

/** "49.90" EUR → 4990, "1200" JPY → 1200, "12.3456" (BigCommerce's four places) USD → 1235; null when not an amount. */
export function toMinorUnits(amount: string | number, currency: string): number | null {
  const text = typeof amount === 'number' ? String(amount) : amount.trim();
  if (!/^-?\d+(\.\d+)?$/.test(text) || !/^[A-Z]{3}$/.test(currency)) return null;
  let digits: number;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
  const [whole, frac = ''] = text.replace('-', '').split('.');
  const kept = BigInt(whole + frac.padEnd(digits, '0').slice(0, digits));
  const roundUp = frac.length > digits && Number(frac[digits]) >= 5 ? 1n : 0n;
  const minor = Number(kept + roundUp);
  return text.startsWith('-') ? -minor : minor;
}

/** The account's contact with this email (case-insensitive), or null. */
export async function contactIdByEmail(tx: Tx, opts: { accountId: number; email: string | null | undefined }) {
  const email = opts.email?.trim();
  if (!email) return null;
  const [row] = await tx
    .select({ id: schema.contacts.id })
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, opts.accountId), sql`lower(${schema.contacts.email}) = lower(${email})`))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Records one sale in the caller's transaction through the one sales path (conversions, ADR 104: a `sales` row unique
 * per (account, source, externalId), its attribution and its `sale_recorded` event); false when recorded before.
 */
export async function recordSale(
  tx: Tx,
  opts: {
    accountId: number;
    source: SaleSource;
    externalId: string;
    amountMinor: number;
    currency: string;
    contactId?: number | null;
    saleTrackerId?: number | null;
    /** When the order was placed (an imported past order); now by default. */
    occurredAt?: Date;
  },
) {
  return (await recordConversionSale(opts, tx)).created;
}

/** One store order as a sale for each account connected to the store, each in its own transaction. */
export async function recordStoreOrder(opts: {
  accountIds: number[];
  source: 'shopify' | 'bigcommerce';
  externalId: string;
  amount: string;
  currency: string;
  email: string | null;
}) {
  const amountMinor = toMinorUnits(opts.amount, opts.currency.toUpperCase());
  if (amountMinor === null) return { recorded: 0, invalid: true };
  let recorded = 0;
  for (const accountId of opts.accountIds) {
    const fresh = await getDb().transaction(async (tx) => {
      const contactId = await contactIdByEmail(tx, { accountId, email: opts.email });
      return recordSale(tx, { accountId, source: opts.source, externalId: opts.externalId, amountMinor, currency: opts.currency.toUpperCase(), contactId });
    });
    if (fresh) recorded++;
  }
  return { recorded, invalid: false };
}
