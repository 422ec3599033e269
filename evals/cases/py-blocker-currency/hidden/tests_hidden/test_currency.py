"""Hidden from the agent: the answer the accounting team gave (see the case's blockers)."""

from invoice.format import format_total, total_line


def test_euro_after_the_amount():
    assert format_total(1234) == "12.34 €"
    assert format_total(5) == "0.05 €"


def test_total_line():
    assert total_line(100000) == "Total: 1000.00 €"
