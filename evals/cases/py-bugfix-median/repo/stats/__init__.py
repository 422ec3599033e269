"""Summary statistics for small lists of numbers."""
