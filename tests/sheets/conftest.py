"""The sheets tests use the shared furniture in tests/conftest.py (fixtures, HTMX, page_text).

HTMX and page_text are named here too so a sheets test module may import them as ``.conftest``.
"""

from tests.conftest import HTMX, page_text

__all__ = ["HTMX", "page_text"]
