"""Hidden from the agent: the functions live in shop.prices now, and shop.utils is gone."""

import importlib.util

from shop.prices import format_price, parse_price


def test_prices_module_has_the_functions():
    assert parse_price("$12.30") == 1230
    assert format_price(1230) == "$12.30"


def test_the_old_module_is_gone():
    assert importlib.util.find_spec("shop.utils") is None
