"""Characters: one base row per character, and each system's own rows in its module."""

from .base import Character  # noqa: F401
