from shop.cart import Cart
from shop.report import sales_report


def test_cart_total_and_description():
    cart = Cart()
    cart.add("tea", "3.50", quantity=2)
    cart.add("cake", "$4")
    assert cart.total_cents() == 1100
    assert cart.describe() == "2 line(s), $11.00"


def test_sales_report():
    first, second = Cart(), Cart()
    first.add("tea", "3.50")
    second.add("cake", "4.25", quantity=2)
    assert sales_report([first, second]) == "cart 1: $3.50\ncart 2: $8.50\ntotal: $12.00"
