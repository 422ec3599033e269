/** A shopping cart; every amount is in whole cents. */

export interface CartLine {
  sku: string;
  priceCents: number;
  quantity: number;
}

export class Cart {
  private readonly lines: CartLine[] = [];

  add(line: CartLine): void {
    if (line.quantity < 1) throw new Error(`quantity must be at least 1; got ${line.quantity}`);
    const existing = this.lines.find((candidate) => candidate.sku === line.sku);
    if (existing) existing.quantity += line.quantity;
    else this.lines.push({ ...line });
  }

  subtotalCents(): number {
    return this.lines.reduce((total, line) => total + line.priceCents * line.quantity, 0);
  }

  totalCents(): number {
    return this.subtotalCents();
  }
}
