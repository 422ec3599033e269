"""Invoice lines and totals."""
