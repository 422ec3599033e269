"""Hidden from the agent: the marker is registered, unknown markers fail, and nothing else in pyproject.toml moved."""

import tomllib
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent


def settings():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def test_slow_marker_is_registered_with_a_description():
    markers = settings()["markers"]
    assert any(marker.startswith("slow:") and len(marker) > len("slow:") + 3 for marker in markers)


def test_unknown_markers_fail():
    assert "--strict-markers" in settings()["addopts"]


def test_the_edit_was_targeted():
    """Every line of the original is still there, in order, but for addopts; at most a handful of lines were added."""
    original = (HERE / "pyproject.orig.toml").read_text().splitlines()
    now = (ROOT / "pyproject.toml").read_text().splitlines()
    kept = [line for line in original if not line.startswith("addopts")]
    position = 0
    for line in kept:
        assert line in now[position:], f"line {line!r} was changed or moved"
        position = now.index(line, position) + 1
    assert len(now) - len(original) <= 5
    parsed = tomllib.loads("\n".join(now))
    assert parsed["tool"]["coverage"] == {"run": {"branch": True, "source": ["geo"]}}
