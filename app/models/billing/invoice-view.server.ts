import type { schema } from '../../../db/client';
import { formatMoney, invoiceNumber } from './money';

type Invoice = typeof schema.billingInvoices.$inferSelect;

/** What the invoice page and the PDF both show: one shape, so that the two never disagree. */
export function invoiceView(inv: Invoice, seller: { name: string }) {
  const money = (n: number) => formatMoney(n, inv.currency);
  const b = inv.billedTo;
  return {
    id: inv.id,
    number: invoiceNumber(inv.number),
    status: inv.status,
    issuedAt: inv.issuedAt.toISOString(),
    paidAt: inv.paidAt?.toISOString() ?? null,
    seller: seller.name,
    billedTo: [b.name, b.line1, b.line2, [b.postalCode, b.city].filter(Boolean).join(' '), b.state, b.country].filter((l) => l && l.trim()),
    taxId: b.taxId || null,
    lines: inv.lines.map((l) => ({ description: l.description, quantity: l.quantity, amount: money(l.amount), period: l.periodStart && l.periodEnd ? `${l.periodStart.slice(0, 10)} – ${l.periodEnd.slice(0, 10)}` : '' })),
    subtotal: money(inv.subtotal),
    total: money(inv.total),
    amountPaid: money(inv.amountPaid),
  };
}

export type InvoiceView = ReturnType<typeof invoiceView>;

/** The invoice as a PDF (pdfkit, standard Helvetica: no font files to ship). */
export async function renderInvoicePdf(v: InvoiceView): Promise<Buffer> {
  // pdfkit (fontkit, brotli, its fonts: ~20 MiB resident) loads on the first PDF asked for, not at start (ADR 129).
  const { default: PDFDocument } = await import('pdfkit');
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `Invoice ${v.number}`, Author: v.seller } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(20).text(`Invoice ${v.number}`);
    doc.moveDown(0.5).fontSize(10).text(`Issued ${v.issuedAt.slice(0, 10)} · Status: ${v.status}${v.paidAt ? ` · Paid ${v.paidAt.slice(0, 10)}` : ''}`);
    doc.moveDown().fontSize(11).text(`From: ${v.seller}`);
    doc.moveDown(0.5).text('Billed to:');
    for (const line of v.billedTo) doc.text(line);
    if (v.taxId) doc.text(`Tax ID: ${v.taxId}`);
    doc.moveDown();
    const top = doc.y;
    doc.font('Helvetica-Bold').text('Description', 50, top).text('Qty', 340, top, { width: 40, align: 'right' }).text('Amount', 420, top, { width: 120, align: 'right' });
    doc.font('Helvetica');
    for (const l of v.lines) {
      const y = doc.y + 6;
      doc.text(`${l.description}${l.period ? `\n${l.period}` : ''}`, 50, y, { width: 280 });
      const after = doc.y;
      doc.text(String(l.quantity), 340, y, { width: 40, align: 'right' }).text(l.amount, 420, y, { width: 120, align: 'right' });
      doc.y = Math.max(after, doc.y);
    }
    doc.moveDown();
    doc.text(`Subtotal: ${v.subtotal}`, 50, doc.y, { align: 'right', width: 490 });
    doc.font('Helvetica-Bold').text(`Total: ${v.total}`, { align: 'right', width: 490 });
    doc.font('Helvetica').text(`Paid: ${v.amountPaid}`, { align: 'right', width: 490 });
    doc.end();
  });
}
