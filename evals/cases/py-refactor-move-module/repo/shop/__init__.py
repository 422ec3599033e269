"""A shopping cart and its sales report."""
