/** Minor units to a display amount ("$49.00", "-€12.34"); shared by the screens, the PDF and the emails. */
export function formatMoney(amount: number, currency: string) {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
}

export const invoiceNumber = (n: number) => `PAR-${String(n).padStart(6, '0')}`;
