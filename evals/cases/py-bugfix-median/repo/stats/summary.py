"""Mean, median and mode of a list of numbers."""

from collections import Counter


def mean(values):
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / len(values)


def median(values):
    if not values:
        raise ValueError("median of an empty list")
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def mode(values):
    if not values:
        raise ValueError("mode of an empty list")
    counts = Counter(values)
    return max(counts, key=lambda value: (counts[value], -value))
