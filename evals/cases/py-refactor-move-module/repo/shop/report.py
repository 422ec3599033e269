"""The sales report: one line per cart."""

from shop.utils import format_price


def sales_report(carts):
    lines = [f"cart {number}: {format_price(cart.total_cents())}" for number, cart in enumerate(carts, start=1)]
    total = sum(cart.total_cents() for cart in carts)
    return "\n".join([*lines, f"total: {format_price(total)}"])
