"""What a line typed in the dice box or the chat box asks for: the slash commands of Roll20 and Foundry.

The one place a line is read into (what to do, who sees it, whom a whisper names, the rest): the dice
box's roll and its odds preview (campaigns/views.py) and the chat path (services.chat_line_create) all
call :func:`read`. The dice notation itself knows nothing of commands (rules/notation/ reads the body).

A command's visibility is the line's alone: the box's own "Who sees it" and ticked names are what the
next line without a command gets. Visibilities are the feed's own (models.Visibility and WHISPER), so
selectors.entry_variant decides who sees the line exactly as for any other entry.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from . import hooks, selectors
from .models import WHISPER, Visibility, by_username

ROLL, SAY, EMOTE = "roll", "say", "emote"

#: command word -> (what it does, its visibility). A None action is the box's own (a roll in the dice
#: box, words in the chat box); a None visibility is the box's own choice.
COMMANDS: dict[str, tuple[str | None, str | None]] = {
    "r": (ROLL, None),
    "roll": (ROLL, None),
    "pr": (ROLL, Visibility.PUBLIC),
    "publicroll": (ROLL, Visibility.PUBLIC),
    "gr": (ROLL, Visibility.GM),
    "gmroll": (ROLL, Visibility.GM),
    "br": (ROLL, Visibility.BLIND),
    "broll": (ROLL, Visibility.BLIND),
    "blindroll": (ROLL, Visibility.BLIND),
    "sr": (ROLL, Visibility.SELF),
    "selfroll": (ROLL, Visibility.SELF),
    "em": (EMOTE, Visibility.PUBLIC),
    "me": (EMOTE, Visibility.PUBLIC),
    "emote": (EMOTE, Visibility.PUBLIC),
    "w": (None, WHISPER),
    "whisper": (None, WHISPER),
}

#: The help line the boxes show and a refused command repeats.
HELP = "/r, /gr (GM only), /broll (blind), /sr (only me), /em or /me (emote), /w name"

# Characters that show nothing (zero-width spaces and joiners, direction marks, fillers): inside a
# command or a name they make a line that looks like a whisper and is not, so such a line is refused.
_FILLERS = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u180e"}

_QUOTES = {'"': '"', "“": "”", "”": "”", "«": "»"}
_BARE_NAME = re.compile(r'[^\s,"“”«»]+')


class CommandError(Exception):
    """A line whose command cannot be read; the message, with a hint, is shown on the box."""


@dataclass(frozen=True)
class Command:
    action: str  # ROLL, SAY or EMOTE
    visibility: str | None  # the command's own, for this line only; None: the box's own choice
    recipients: tuple  # the users a /w names (seated, the author left out), in name order
    body: str  # the line after the command and its names


def invisible(char: str) -> bool:
    return unicodedata.category(char) in ("Cf", "Cc", "Co", "Cn") or char in _FILLERS


def _refuse_invisible(text: str, where: str) -> None:
    for char in text:
        if invisible(char) and not char.isspace():
            name = unicodedata.name(char, "an unnamed character")
            raise CommandError(
                f"{where} holds an invisible character (U+{ord(char):04X} {name}): "
                "delete it and type the line again."
            )


def read(text: str, *, plain: str, campaign, author, seated=None) -> Command:
    """Read a line into a Command; ``plain`` is what a line without a command does (ROLL or SAY).

    Raises CommandError for an unknown command (``/wbob``: "did you mean /w bob"), an invisible
    character in a command or a name, a name nobody at the table has, or a command with nothing after
    it. ``seated``: selectors.table_users(campaign), when the caller has it.
    """
    line = text.strip()
    start = 0
    while start < len(line) and invisible(line[start]):
        start += 1
    if not line[start:].startswith("/"):
        return Command(action=plain, visibility=None, recipients=(), body=line)
    if start:
        _refuse_invisible(line[:start], "The start of the line")
    word = re.match(r"/(\S*)", line)[1]
    _refuse_invisible(word, f"The command /{word}")
    known = COMMANDS.get(word.casefold())
    if known is None:
        raise CommandError(_unknown(word, line[len(word) + 1 :]))
    action, visibility = known
    action = action or plain
    rest = line[len(word) + 1 :].strip()
    recipients = ()
    if visibility == WHISPER:
        names = Names(campaign, author, seated)
        recipients, rest = names.read(rest)
    if not rest:
        raise CommandError(_empty(word, action, visibility))
    return Command(action=action, visibility=visibility, recipients=recipients, body=rest)


def _unknown(word: str, rest: str) -> str:
    for known in sorted(COMMANDS, key=len, reverse=True):
        if word.casefold().startswith(known) and len(word) > len(known):
            spaced = f"/{word[: len(known)]} {word[len(known) :]}{rest}"
            spaced = spaced if len(spaced) <= 40 else spaced[:39] + "…"
            return f"There is no /{word} command. Did you mean “{spaced}”, with a space? Commands: {HELP}."
    return f"There is no /{word} command. Commands: {HELP}."


def _empty(word: str, action: str, visibility: str | None) -> str:
    if visibility == WHISPER:
        what = "the dice to roll" if action == ROLL else "something to whisper"
        return f"Write {what} after the names, as in /{word} alice {'1d20' if action == ROLL else 'hello'}."
    if action == EMOTE:
        return f"Write what you do after /{word}, as in /{word} draws her sword."
    return f"Write the dice to roll after /{word}, as in /{word} 1d20+5."


class Names:
    """Who a whisper may name at one table: usernames of those seated (the GM too, and "gm" for the
    GM unless someone is called that), and the names of seated players' characters.

    Names are matched whole, in any case; a name two people share but for case is written as one of
    them spells it, and a name shared outright (two "Kara"s) is refused as ambiguous.
    """

    def __init__(self, campaign, author, seated=None):
        self.author = author
        seated = selectors.table_users(campaign) if seated is None else seated
        by_pk = {user.pk: user for user in seated}
        self.names: list[tuple[str, object]] = [(user.username, user) for user in seated]
        for name, owner_id in hooks.table_characters(campaign):
            if owner_id in by_pk:
                self.names.append((name, by_pk[owner_id]))
        if not any(spelled.casefold() == "gm" for spelled, _ in self.names):
            self.names.append(("gm", by_pk.get(campaign.gm_id, campaign.gm)))

    def find(self, name: str) -> list:
        """The users ``name`` names: exact spelling first, then in any case ([] for nobody)."""
        exact = {user.pk: user for spelled, user in self.names if spelled == name}
        if exact:
            return list(exact.values())
        folded = name.casefold()
        return list({user.pk: user for spelled, user in self.names if spelled.casefold() == folded}.values())

    def read(self, rest: str) -> tuple[tuple, str]:
        """(the users named at the start of ``rest``, the message after the names).

        Names are separated by commas. After a comma, the next word is another name if someone at the
        table has it, or if no space came between (``alice,zed`` is refused for zed); otherwise the
        names ended at the comma and the message starts with that word: ``/w bob, we go at dawn``
        whispers "we go at dawn" to bob. A quoted name ("Kara Voss") is always a name.
        """
        found, unknown, pos = {}, [], 0
        while True:
            name, end, quoted = self._name_at(rest, pos)
            if name is None:
                if found or unknown:  # "/w alice," : the comma ended the names
                    break
                raise CommandError("Name who to whisper to, as in /w alice hello (several: /w alice, bob …).")
            users = self.find(name)
            if pos and not quoted and not users and rest[pos - 1].isspace():
                break  # a comma, a space, then a word nobody has: the message starts here
            self._add(name, users, found, unknown)
            pos = end
            comma = re.match(r"\s*,\s*", rest[pos:])
            if comma is None:
                break
            pos += comma.end()
        message = rest[pos:].strip()
        if unknown:
            listed = " or ".join(f"“{name}”" for name in unknown)
            raise CommandError(f"Nobody called {listed} sits at this table.{self._spaces_hint(rest)}")
        found.pop(self.author.pk, None)
        if not found:
            raise CommandError("Name someone besides yourself to whisper to.")
        return tuple(by_username(found.values())), message

    @staticmethod
    def _name_at(rest: str, pos: int) -> tuple[str | None, int, bool]:
        if pos < len(rest) and rest[pos] in _QUOTES:
            close = rest.find(_QUOTES[rest[pos]], pos + 1)
            if close == -1:
                raise CommandError(f"Close the quotes around the name: /w {rest[pos:]}…{_QUOTES[rest[pos]]}")
            name = " ".join(rest[pos + 1 : close].split())
            _refuse_invisible(name, f"The name “{name}”")
            return (name or None), close + 1, True
        bare = _BARE_NAME.match(rest, pos)
        if bare is None:
            return None, pos, False
        _refuse_invisible(bare[0], f"The name “{bare[0]}”")
        return bare[0], bare.end(), False

    def _add(self, name, users, found, unknown) -> None:
        if not users:
            unknown.append(name)
        elif len(users) > 1:
            folded = name.casefold()
            spellings = sorted({spelled for spelled, _ in self.names if spelled.casefold() == folded})
            if len(spellings) > 1:
                could = " or ".join(spellings)
                raise CommandError(f"“{name}” could be {could}: write the name as it is spelled.")
            raise CommandError(f"More than one person at the table is called “{name}”: use a username.")
        else:
            found[users[0].pk] = users[0]

    def _spaces_hint(self, rest: str) -> str:
        words = rest.split()
        for spelled, _ in self.names:
            count = len(spelled.split())
            if count > 1 and " ".join(words[:count]).casefold() == spelled.casefold():
                return f" A name with spaces goes in quotes: /w “{spelled}” …"
        return ""
