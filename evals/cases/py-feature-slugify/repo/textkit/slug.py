"""URL slugs."""

import re
import unicodedata

_NOT_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")


def slugify(text):
    """Lower-case ASCII words joined by dashes: "Hello, World!" becomes "hello-world"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _NOT_ALPHANUMERIC.sub("-", ascii_text.lower()).strip("-")
