"""How amounts appear on an invoice."""


def format_total(cents):
    """1234 cents as "12.34"."""
    return f"{cents // 100}.{cents % 100:02d}"


def total_line(cents):
    return f"Total: {format_total(cents)}"
