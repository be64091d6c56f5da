import type { BillingInterval, InvoiceLine } from '../../../db/schema/billing';
import { getConfig } from '../../utils/env.server';
import { createStripeProvider } from './stripe.server';

/**
 * The one boundary between Parley's billing and a payment provider (ADR 073). The models in this folder speak
 * only this interface; `stripe.server.ts` is its first adapter. Amounts are in the currency's minor unit.
 */
export type ProviderSubscription = {
  id: string;
  itemId: string;
  customerId: string;
  /** The provider's words, mapped by the caller: active, trialing, past_due, unpaid, canceled, incomplete... */
  status: string;
  cancelAtPeriodEnd: boolean;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
};

export type ProviderInvoice = {
  id: string;
  customerId: string;
  subscriptionId: string | null;
  status: string;
  currency: string;
  subtotal: number;
  total: number;
  amountPaid: number;
  amountDue: number;
  createdAt: Date;
  paidAt: Date | null;
  lines: InvoiceLine[];
};

export type ProviderCard = { id: string; brand: string; last4: string; expMonth: number; expYear: number };

/** What one seat of a plan costs, and how many seats: the subscription's single item. */
export type SeatPrice = { planKey: string; planName: string; currency: string; unitAmount: number; interval: BillingInterval; seats: number };

export type BillingAddressInput = { name: string; line1: string; line2: string; city: string; postalCode: string; state: string; country: string };

export type WebhookEvent = {
  id: string;
  type: string;
  customerId: string | null;
  subscription?: ProviderSubscription;
  invoice?: ProviderInvoice;
};

export interface BillingProvider {
  readonly name: string;
  createCustomer(opts: { accountId: number; email: string; name: string }): Promise<{ id: string }>;
  updateCustomer(opts: { customerId: string; email?: string; address: BillingAddressInput; taxId: string }): Promise<void>;
  /** A hosted page where the customer types their card (Parley never sees the number); answers its URL. */
  startCardSetup(opts: { customerId: string; successUrl: string; cancelUrl: string }): Promise<{ id: string; url: string }>;
  /** The card saved by a finished hosted setup of this customer. */
  finishCardSetup(opts: { customerId: string; setupId: string }): Promise<ProviderCard>;
  setDefaultPaymentMethod(opts: { customerId: string; paymentMethodId: string }): Promise<void>;
  detachPaymentMethod(opts: { paymentMethodId: string }): Promise<void>;
  /** Charged to the customer's default payment method (setDefaultPaymentMethod). */
  createSubscription(opts: { customerId: string; price: SeatPrice }): Promise<ProviderSubscription>;
  /** The invoice a change would produce now, with its proration lines, before anything is changed. */
  previewChange(opts: { customerId: string; subscriptionId: string; itemId: string; price: SeatPrice; prorationDate: Date }): Promise<{ currency: string; amountDue: number; proration: number; lines: InvoiceLine[] }>;
  changeSubscription(opts: { subscriptionId: string; itemId: string; price: SeatPrice; prorationDate: Date }): Promise<ProviderSubscription>;
  setCancelAtPeriodEnd(opts: { subscriptionId: string; cancel: boolean }): Promise<ProviderSubscription>;
  listInvoices(opts: { customerId: string }): Promise<ProviderInvoice[]>;
  /** Charges an open invoice now, to the customer's default card (after a failed payment and a new card). */
  payInvoice(opts: { invoiceId: string }): Promise<ProviderInvoice>;
  /** Verifies the delivery's signature and freshness and reads it; throws WebhookRejectedError otherwise. */
  parseWebhook(opts: { body: string; headers: Headers; now?: Date }): WebhookEvent;
}

export class BillingProviderError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export class WebhookRejectedError extends Error {}

/** The installation's provider, or null when billing has none configured (STRIPE_SECRET_KEY unset). */
export function getBillingProvider(): BillingProvider | null {
  const { stripe } = getConfig();
  return stripe ? createStripeProvider(stripe) : null;
}
