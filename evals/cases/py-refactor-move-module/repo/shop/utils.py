"""Prices: parsed from and formatted as text, held as whole cents."""


def parse_price(text):
    """ "12.30" or "$12.30" to 1230 cents."""
    cleaned = text.strip().lstrip("$")
    units, _, cents = cleaned.partition(".")
    return int(units) * 100 + int((cents + "00")[:2])


def format_price(cents):
    """1230 cents to "$12.30"."""
    return f"${cents // 100}.{cents % 100:02d}"
