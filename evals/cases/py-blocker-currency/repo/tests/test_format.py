from invoice.format import total_line


def test_total_line_starts_with_its_label():
    assert total_line(1234).startswith("Total: ")
