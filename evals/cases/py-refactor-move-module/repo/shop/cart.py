"""A cart of priced lines."""

from shop.utils import format_price, parse_price


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, name, price_text, quantity=1):
        self.lines.append((name, parse_price(price_text), quantity))

    def total_cents(self):
        return sum(price * quantity for _, price, quantity in self.lines)

    def describe(self):
        return f"{len(self.lines)} line(s), {format_price(self.total_cents())}"
