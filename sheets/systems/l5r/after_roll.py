"""What a player may still do with an L5R roll from the sheet: keep other dice, or try a failed skill again.

Both read the roll from its stored feed entry (every face was saved when it was rolled), never from
what the page sends, and both answer with a new feed entry through the sheet's roll path
(``sheets.services.character_roll``): the first entry stays as the table saw it, since the feed is a
chained record that is never rewritten.

- **Keeping other dice** (``rules.l5r.rekeep``). The book lets the player keep whichever dice he likes,
  usually the highest, lower ones if he wants the roll to fail (L5R, "The Roll & Keep System"). The sheet
  keeps the highest at once; the player may then choose the kept dice once for that roll, the same
  number of them, and the new entry reads the total and the outcome again with the roll's bonus and TN.
  Before they are sent, ``choice`` reads the dice picked so far the same way, for the count and the
  total the page shows as each die is tapped.
- **A second attempt** (``rules.l5r.second_attempt_tn``). A failed Skill Roll may be tried again at +10
  TN, not an attack (L5R, "Failed Rolls"); one with Intelligence or Perception usually needs a change in
  the situation, so the player ticks that it changed (the GM's call). The attempt rolls the same skill
  with the raises of the first, without a Void point unless the player spends one anew; a failed second
  attempt may be tried once more, another +10 on its TN.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError

from campaigns.cursors import seq_for
from campaigns.forms import whole_number
from campaigns.models import FeedEntry, Visibility
from rules import l5r
from rules.dice import Outcome, RulesError
from sheets.contract import Die, RollResult

REKEEP = "rekeep"
RETRY = "retry"
NEW_SITUATION = "new"
SKILL_KINDS = ("skill", "untrained")


# The sheet's roll view takes any key from the page. An after-roll key is honoured only while
# views.l5r_after_roll, having checked that this user rolled that entry, rolls the one key it made for
# it: a key typed into the roll URL, or replayed by anyone in any other request, is refused. Nothing is
# signed, so not even a known SECRET_KEY forges one. A ContextVar, as the system's roll is handed no user.
_vouched: ContextVar[str | None] = ContextVar("l5r_after_roll_key", default=None)


@contextmanager
def vouched(key: str) -> Iterator[None]:
    token = _vouched.set(key)
    try:
        yield
    finally:
        _vouched.reset(token)


def split_key(key: str) -> tuple[str, str, str]:
    """("rekeep" or "retry", the entry's cursor, what follows): "rekeep:<cursor>:0.3.5", "retry:<cursor>:new".

    ValidationError for an after-roll key that views.l5r_after_roll is not rolling now."""
    kind, _, rest = key.partition(":")
    if kind not in (REKEEP, RETRY):
        return kind, "", ""
    if _vouched.get() != key:
        raise ValidationError("Choose dice or try again from the form under your roll.")
    cursor, _, tail = rest.partition(":")
    return kind, cursor, tail


def roll_entry_or_none(character, cursor: str) -> FeedEntry | None:
    """This character's roll the cursor names, if there is one."""
    seq = seq_for(character.campaign_id, cursor)
    if seq is None:
        return None
    return FeedEntry.objects.filter(
        campaign_id=character.campaign_id, seq=seq, character_id=character.pk, kind=FeedEntry.Kind.ROLL
    ).first()


def roll_entry(character, cursor: str) -> FeedEntry:
    """This character's sheet roll the cursor names; ValidationError for anything else."""
    entry = roll_entry_or_none(character, cursor)
    if entry is None or "chains" not in entry.result or "key" not in entry.request:
        raise ValidationError("That is not a roll from this sheet.")
    if entry.visibility == Visibility.BLIND:
        raise ValidationError("A blind roll's dice are the GM's: nothing can be chosen from them.")
    return entry


def _explodes(entry: FeedEntry) -> bool:
    # Entries from before "explode" was stored: only an unskilled pool's dice do not explode.
    return entry.result.get("explode", not entry.request.get("pool", "").endswith("unskilled"))


def _first_roll(entry: FeedEntry) -> l5r.RollResult:
    kept = sum(1 for die in entry.result["dice"] if die["kept"])
    return l5r.resolve(
        entry.result["chains"],
        kept,
        explode=_explodes(entry),
        bonus=entry.result.get("bonus", 0),
        tn=entry.result.get("tn"),
        choose=[i for i, die in enumerate(entry.result["dice"]) if die["kept"]],
        rerolled=entry.result.get("rerolled", ()),
    )


def dice(result: l5r.RollResult) -> tuple[Die, ...]:
    return tuple(
        Die(total, kept=(i in result.kept), exploded=len(chain) > 1, sides=l5r.SIDES)
        for i, (chain, total) in enumerate(zip(result.chains, result.die_totals, strict=True))
    )


def rekeep(character, key: str) -> RollResult:
    """The stored roll with the dice the player chose ("rekeep:<cursor>:0.3.5", positions from 0)."""
    _, cursor, chosen = split_key(key)
    entry = roll_entry(character, cursor)
    if (
        "rekeep_of" in entry.request
        or FeedEntry.objects.filter(campaign_id=character.campaign_id, request__rekeep_of=entry.seq).exists()
    ):
        raise ValidationError("The dice of that roll were chosen already: a roll's dice are chosen once.")
    first = _first_roll(entry)
    # The view joins only numbers, so a part that is none comes from no form of ours.
    read = (whole_number(part, min_value=0) for part in chosen.split("."))
    positions = [position for position in read if position is not None]
    try:
        result = l5r.rekeep(first, positions)
    except RulesError as error:
        raise ValidationError(str(error)) from None
    if result.kept == first.kept:
        raise ValidationError("Those are the dice already kept: tick the ones you want instead.")
    faces = ", ".join(str(result.die_totals[i]) for i in result.kept)
    if result.tn is None:
        outcome, outcome_label = Outcome.NONE, "damage"
        summary = f"{result.total} damage ({result.notation}), keeping {faces}"
    else:
        outcome, outcome_label = result.outcome, ""
        summary = f"{result.total} vs TN {result.tn} ({result.notation}), keeping {faces}: {outcome}"
        asked = entry.request
        effects = asked.get("raises", 0) + asked.get("free_raises", 0) - asked.get("free_raises_on_tn", 0)
        if result.success and effects:
            summary += f", {effects} raise{'s' if effects != 1 else ''} made"
    label = entry.label.removeprefix(f"{entry.character_name}: ")
    return RollResult(
        label=f"{label}, other dice kept",
        request={**entry.request, "rekeep_of": entry.seq, "kept": list(result.kept)},
        dice=dice(result),
        outcome=outcome,
        outcome_label=outcome_label,
        summary=summary,
        total=result.total,
        extra={
            "chains": [list(chain) for chain in result.chains],
            "bonus": result.bonus,
            "tn": result.tn,
            "explode": result.explode,
            "raises": entry.result.get("raises", 0),
            "rerolled": list(result.rerolled),
        },
    )


def second_attempt(character, key: str, options: dict[str, Any]) -> tuple[str, dict[str, Any], FeedEntry]:
    """The roll key, options and first entry of a second attempt ("retry:<cursor>" or "...:new").

    The sheet's roll checks the skill (no attacks, Intelligence and Perception need a new situation)."""
    _, cursor, flag = split_key(key)
    entry = roll_entry(character, cursor)
    original_key = entry.request["key"]
    if original_key.partition(":")[0] not in SKILL_KINDS:
        raise ValidationError("Only a Skill Roll gets a second attempt; this was not one.")
    if entry.result.get("outcome") != Outcome.FAILURE.value:
        raise ValidationError("Only a failed roll can be tried again.")
    if FeedEntry.objects.filter(
        campaign_id=character.campaign_id, request__second_attempt_of=entry.seq
    ).exists():
        raise ValidationError("That roll was tried again already; try the second attempt again if it failed.")
    attempt = {
        **options,
        "tn": entry.request["tn"],  # the TN the GM set, before wounds and raises; +10 once the skill is known
        "raises": entry.request.get("raises", 0),
        "free_raises": entry.request.get("free_raises", 0),
        "free_on_tn": entry.request.get("free_raises_on_tn", 0),
        "second_attempt": {"of": entry.seq, "new_situation": flag == NEW_SITUATION},
    }
    return original_key, attempt, entry


def check_second_attempt(pool: l5r.Pool, options: dict[str, Any]) -> int:
    """The second attempt's TN for this skill pool: +10; ValidationError for an attack, or for an
    Intelligence or Perception roll whose situation did not change."""
    info = l5r.skill_info(pool.label)
    try:
        tn = l5r.second_attempt_tn(options["tn"], attack=pool.attack)
    except RulesError as error:
        raise ValidationError(f"{error} A failed attack simply misses.") from None
    trait = info.trait if info is not None else ""
    if l5r.second_attempt_needs_new_situation(trait) and not options["second_attempt"]["new_situation"]:
        raise ValidationError(
            f"{pool.label} uses {trait.capitalize()}: a second attempt usually needs a change in the "
            "situation, such as new information. Tick that it changed (the GM's call) to try again."
        )
    return tn


@dataclass(frozen=True)
class Choice:
    """Dice picked under a roll, before they are sent: how many of those allowed, and what they make."""

    dice: tuple[tuple[int, int, bool], ...]  # (position, die total, picked)
    allowed: int  # the dice the roll keeps: a new choice keeps as many
    # The roll read again with the picked dice (rules.l5r.rekeep); None while they are not a choice it takes.
    result: l5r.RollResult | None
    unchanged: bool  # the picked dice are the ones kept now

    @property
    def picked(self) -> int:
        return sum(1 for _, _, picked in self.dice if picked)

    @property
    def missing(self) -> int:
        """Dice still to pick (negative: picked too many)."""
        return self.allowed - self.picked

    @property
    def extra(self) -> int:
        """Dice picked past those allowed."""
        return max(0, -self.missing)

    @property
    def ready(self) -> bool:
        """Whether "Keep these dice" would be taken: a choice the engine reads, not the dice kept now."""
        return self.result is not None and not self.unchanged


def choice(entry: FeedEntry, picked: Iterable[int] | None = None) -> Choice:
    """The stored roll with these dice picked (positions from 0; positions it has not are ignored), or with
    the dice it keeps now; read by the engine's rekeep, so the page's total is the one a choice would make."""
    first = _first_roll(entry)
    positions = set(first.kept) if picked is None else {p for p in picked if 0 <= p < len(first.die_totals)}
    try:
        result = l5r.rekeep(first, sorted(positions))
    except RulesError:
        result = None
    return Choice(
        tuple((i, total, i in positions) for i, total in enumerate(first.die_totals)),
        len(first.kept),
        result,
        tuple(sorted(positions)) == first.kept,
    )


@dataclass(frozen=True)
class Offer:
    """What the sheet offers under a roll's result: its dice to choose from, and a second attempt."""

    choice: Choice | None  # None: its dice were chosen already, or it keeps every die (or none)
    retry_tn: int | None
    retry_needs_new_situation: bool
    trait: str


def offer(character, entry: FeedEntry) -> Offer | None:
    """From the stored entry alone (no query): nothing for a blind roll or one not from this sheet."""
    if (
        entry is None
        or entry.character_id != character.pk
        or entry.visibility == Visibility.BLIND
        or "chains" not in entry.result
        or "key" not in entry.request
    ):
        return None
    retry_tn, needs_new, trait = None, False, ""
    kind, _, ident = entry.request["key"].partition(":")
    if kind in SKILL_KINDS and entry.result.get("outcome") == Outcome.FAILURE.value:
        if kind == "skill":
            row = next((s for s in character.l5r_skills.all() if str(s.pk) == ident), None)
            info = l5r.skill_info(row.name) if row is not None else None
        else:
            info = next((s for s in l5r.SKILLS if s.name.lower().replace(" ", "_") == ident), None)
        if info is not None and not info.attack:
            retry_tn = entry.request["tn"] + l5r.SECOND_ATTEMPT_PENALTY
            trait = info.trait
            needs_new = l5r.second_attempt_needs_new_situation(info.trait)
    shown = entry.result["dice"]
    kept = sum(1 for die in shown if die["kept"])
    picking = choice(entry) if "rekeep_of" not in entry.request and 0 < kept < len(shown) else None
    if picking is None and retry_tn is None:
        return None
    return Offer(picking, retry_tn, needs_new, trait.capitalize())
