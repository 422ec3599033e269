"""Hidden from the agent: the regression the task describes, and the behaviour it must keep."""

import pytest

from stats.summary import median


def test_even_length_takes_the_mean_of_the_two_middle_values():
    assert median([1, 2, 3, 4]) == 2.5
    assert median([4, 1, 3, 2]) == 2.5
    assert median([10, 20]) == 15


def test_odd_length_is_unchanged():
    assert median([5]) == 5
    assert median([7, 1, 3]) == 3


def test_empty_is_still_refused():
    with pytest.raises(ValueError):
        median([])
