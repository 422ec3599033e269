"""Hidden from the agent: max_length as the task describes it."""

from textkit.slug import slugify


def test_without_max_length_nothing_changes():
    assert slugify("Hello World Again") == "hello-world-again"


def test_the_slug_is_cut_to_max_length():
    assert slugify("Hello World Again", max_length=11) == "hello-world"
    assert slugify("Hello World Again", max_length=8) == "hello-wo"


def test_a_cut_never_ends_in_a_dash():
    assert slugify("Hello World Again", max_length=6) == "hello"
    assert slugify("Hello World Again", max_length=12) == "hello-world"


def test_a_short_slug_is_left_alone():
    assert slugify("Hi", max_length=10) == "hi"
