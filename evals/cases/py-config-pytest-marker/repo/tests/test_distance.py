import pytest

from geo.distance import haversine_km


def test_same_point_is_zero():
    assert haversine_km((52.5, 13.4), (52.5, 13.4)) == 0


@pytest.mark.slow
def test_paris_to_new_york():
    assert haversine_km((48.8566, 2.3522), (40.7128, -74.0060)) == pytest.approx(5837, rel=0.01)
