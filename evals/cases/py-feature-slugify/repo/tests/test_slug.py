from textkit.slug import slugify


def test_words_are_joined_by_dashes():
    assert slugify("Hello, World!") == "hello-world"


def test_accents_are_dropped():
    assert slugify("Crème brûlée") == "creme-brulee"


def test_no_leading_or_trailing_dashes():
    assert slugify("  --Already sluggy--  ") == "already-sluggy"
