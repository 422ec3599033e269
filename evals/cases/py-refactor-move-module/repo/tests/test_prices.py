from shop.utils import format_price, parse_price


def test_parse_price():
    assert parse_price("12.30") == 1230
    assert parse_price("$7") == 700
    assert parse_price(" 0.5 ") == 50


def test_format_price():
    assert format_price(1230) == "$12.30"
    assert format_price(5) == "$0.05"
