import pytest

from stats.summary import mean, median, mode


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_of_odd_length():
    assert median([3, 1, 2]) == 2


def test_mode_prefers_the_smallest_of_equals():
    assert mode([3, 1, 3, 1, 2]) == 1


def test_empty_lists_are_refused():
    for function in (mean, median, mode):
        with pytest.raises(ValueError):
            function([])
