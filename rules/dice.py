"""The dice core: one error root, an injected random source, and a cap on the work.

Production passes ``secrets.SystemRandom()``; tests pass ``random.Random(seed)`` or
fixed faces through :class:`FixedFaces`, so every roll can be replayed from its log.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from enum import StrEnum
from typing import Protocol

MAX_DICE = 1000


class Outcome(StrEnum):
    """What a roll came to, in every engine's terms; the value is what a feed entry stores.

    A system may word an outcome its own way for the player ("hit", "greater success"); the meaning,
    and so the colour the feed gives it, is always one of these.
    """

    NONE = "none"  # a roll that neither succeeds nor fails: damage, initiative, a plain sum
    SUCCESS = "success"
    FAILURE = "failure"
    TRUMP = "trump"  # Five by Five: a die at or above the trump face succeeds whatever the product
    CRITICAL = "critical"  # Triad: the total beats the Difficulty by the critical margin
    MIXED = "mixed"  # Triad: the task is done, but the failure's consequence lands too
    FUMBLE = "fumble"  # Triad: the kept die shows a 1
    GREATER = "greater"  # FREE/FALL: two or more dice made the target number

    @classmethod
    def of(cls, success: bool | None, *, trump: bool = False) -> Outcome:
        """The outcome of a roll that passes or fails (None: there was nothing to pass)."""
        if trump:
            return cls.TRUMP
        if success is None:
            return cls.NONE
        return cls.SUCCESS if success else cls.FAILURE


class RulesError(ValueError):
    """Root of every engine error; the message is written for a player to read."""


class DiceLimitError(RulesError):
    """A roll asked for more dice than the engine will throw."""


class RandomSource(Protocol):
    def randint(self, a: int, b: int) -> int: ...


def system_random() -> RandomSource:
    """The source every real roll uses: the operating system's CSPRNG."""
    return secrets.SystemRandom()


class FixedFaces:
    """A random source that returns predetermined faces, for tests and replays."""

    def __init__(self, faces: Iterable[int]):
        self._faces = list(faces)
        self._next = 0

    def randint(self, a: int, b: int) -> int:
        if self._next >= len(self._faces):
            raise RulesError("The fixed dice ran out of faces.")
        face = self._faces[self._next]
        self._next += 1
        if not a <= face <= b:
            raise RulesError(f"A d{b} cannot show {face}.")
        return face


class Roller:
    """Rolls dice from a source and refuses to throw more than ``max_dice`` in total."""

    def __init__(self, source: RandomSource | None = None, *, max_dice: int = MAX_DICE):
        self.source = source if source is not None else system_random()
        self.max_dice = max_dice
        self.thrown = 0

    def die(self, sides: int) -> int:
        if sides < 1:
            raise RulesError("A die needs at least one side.")
        self.thrown += 1
        if self.thrown > self.max_dice:
            raise DiceLimitError(f"That roll needs more than {self.max_dice} dice.")
        return self.source.randint(1, sides)

    def dice(self, count: int, sides: int) -> list[int]:
        if count > self.max_dice - self.thrown:
            raise DiceLimitError(f"That roll needs more than {self.max_dice} dice.")
        return [self.die(sides) for _ in range(count)]

    def chain(self, sides: int, *, explode_on: int | None = None) -> list[int]:
        """One die that is rolled again and again while it shows ``explode_on``."""
        faces = [self.die(sides)]
        while explode_on is not None and faces[-1] >= explode_on:
            faces.append(self.die(sides))
        return faces


def check_faces(dice: Iterable[int], *, sides: int, count: int | None = None) -> tuple[int, ...]:
    """Validate faces handed in by a caller (a roll log, a test) and return them as a tuple."""
    faces = tuple(dice)
    if count is not None and len(faces) != count:
        raise RulesError(f"This roll takes {count} {'die' if count == 1 else 'dice'}, not {len(faces)}.")
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= sides:
            raise RulesError(f"A d{sides} cannot show {face!r}.")
    return faces
