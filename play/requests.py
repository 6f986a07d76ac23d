"""The GM asks characters for a roll; each player answers with one click on their sheet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404

from campaigns import realtime
from campaigns.counters import row_update
from campaigns.models import FeedEntry, Visibility
from campaigns.prepared import PreparedQuery
from campaigns.services import entry_for_key, feed_entry_create
from rules.dice import Outcome, Roller
from sheets import services
from sheets.history import load_sheet_rows
from sheets.models import Character
from sheets.registry import system_for

from .models import RollRequest, RollRequestTarget

# How the group result counts each answer. A Triad mixed result is a success with a cost (the task
# is done), so it counts as succeeded; a roll with no outcome (damage) is counted in neither.
SUCCEEDED = frozenset({Outcome.SUCCESS, Outcome.TRUMP, Outcome.CRITICAL, Outcome.GREATER, Outcome.MIXED})
FAILED = frozenset({Outcome.FAILURE, Outcome.FUMBLE})


class RequestError(Exception):
    """A roll request that cannot be made or answered; the message is shown to the user."""


@transaction.atomic
def roll_request_create(
    *,
    campaign,
    gm,
    label: str,
    characters,
    options: dict[str, Any],
    roll_key: str = "",
    visibility: str = "public",
) -> RollRequest:
    characters = list(characters)
    if not characters:
        raise RequestError("Pick at least one character to ask.")
    if any(c.campaign_id != campaign.pk for c in characters):
        raise RequestError("Only characters at this table can be asked.")
    request = RollRequest(
        campaign=campaign,
        created_by=gm,
        label=label.strip()[:120] or "Roll",
        roll_key=roll_key,
        options=options,
        visibility=visibility,
    )
    request.full_clean()
    request.save()
    RollRequestTarget.objects.bulk_create(RollRequestTarget(request=request, character=c) for c in characters)
    realtime.panel_changed(campaign_id=campaign.pk, panel="requests")
    return request


def requests_for_sheet(character: Character) -> tuple[list[RollRequestTarget], list[RollRequestTarget]]:
    """This character's targets in requests the GM has not closed, oldest first: (those waiting for its
    answer, those answered; the sheet shows both). One query: the sheet page reads it on every load."""
    targets = _targets_of(character.pk)
    return [t for t in targets if t.entry_id is None], [t for t in targets if t.entry_id is not None]


# Read on every sheet page and every answer, compiled once (campaigns/prepared.py).
@PreparedQuery
def _targets_of(character_id: int):
    return (
        RollRequestTarget.objects.filter(character_id=character_id, request__open=True)
        .select_related("request", "entry", "entry__author")
        .order_by("request__created_at", "pk")
    )


# An answer's claim on the character's own target and its request, under their rows' lock: run inside
# roll_request_answer's transaction only (a compiled look-up does not check for one, as Django's own
# would). The same read is the check that the target is this character's: no look-up before it.
@PreparedQuery
def _target_locked(target_id: int, character_id: int):
    return (
        RollRequestTarget.objects.select_for_update()
        .select_related("request")
        .filter(pk=target_id, character_id=character_id)
    )


@transaction.atomic
def roll_request_answer(*, character: Character, target_id: int, key: str, roller: Roller, author):
    """Roll what the GM asked for with the GM's options; the answer is a feed entry linked to the request.
    ``character`` as read for its editor (its campaign joined); another character's target is a 404."""
    locked = _target_locked.first(target_id, character.pk)
    if locked is None:
        raise Http404("No such request for this character.")
    if not locked.request.open:
        raise RequestError("That request is closed; the GM's panel has its result.")
    if locked.entry_id is not None:
        raise RequestError("That roll was already made.")
    request = locked.request
    # The character as the caller read it: a roll checks the sheet's version under the row's own lock and
    # reads it again if it moved (sheets.services.character_roll).
    system = system_for(character.campaign)
    if request.roll_key and key != system.request_roll_key(character, request.roll_key):
        raise RequestError("Roll what the GM asked for.")
    load_sheet_rows(character)  # the options are checked against the sheet, and the roll reads it too
    form = system.options_form(character=character, data=request.options)
    if not form.is_valid():
        raise ValidationError("The GM's options no longer fit this sheet; ask the GM for a new request.")
    entry, _ = services.character_roll(
        character=character,
        key=key,
        options=form.cleaned_data,
        roller=roller,
        author=author,
        visibility=request.visibility,
    )
    locked.entry = entry
    row_update(locked, ["entry"])  # under the target's lock, taken above while it had no answer
    # A hidden request's answer concerns only the GM's panel: other pages do not even hear that it came.
    realtime.panel_changed(campaign_id=character.campaign_id, panel="requests", gm_only=is_hidden(request))
    return entry


@dataclass(frozen=True)
class Answer:
    name: str
    entry: FeedEntry | None  # None: not answered yet
    text: str = ""  # the system's few words for the result ("23 vs TN 15, success")


@dataclass(frozen=True)
class Tally:
    """A request's answers so far, as the GM's panel lists them and the group result tells the table."""

    answers: tuple[Answer, ...]
    succeeded: int
    failed: int

    @property
    def answered(self) -> int:
        return sum(1 for answer in self.answers if answer.entry is not None)

    def text(self) -> str:
        """The group result's one line: the counts, then each character's answer."""
        counts = f"{self.answered} of {len(self.answers)} answered"
        counts += f": {self.succeeded} succeeded, {self.failed} failed"
        parts = [
            f"{a.name} {a.text}" if a.entry is not None else f"{a.name} did not answer" for a in self.answers
        ]
        return f"{counts}. " + "; ".join(parts)


def tally(request: RollRequest) -> Tally:
    """Count a request's answers (its targets and entries prefetched, as requests_for_gm does)."""
    system = system_for(request.campaign)
    answers = []
    succeeded = failed = 0
    for target in request.targets.all():
        entry = target.entry
        if entry is None:
            answers.append(Answer(target.character.name, None))
            continue
        outcome = entry.result.get("outcome")
        succeeded += outcome in SUCCEEDED
        failed += outcome in FAILED
        name = entry.character_name or target.character.name
        answers.append(Answer(name, entry, system.answer_text(entry.result)))
    return Tally(tuple(answers), succeeded, failed)


def is_hidden(request: RollRequest) -> bool:
    """Whether the request's answers were hidden from the table (blind or GM only)."""
    return request.visibility != Visibility.PUBLIC


#: How a hidden request's answers are named where the GM confirms sending them to everyone.
HIDDEN_WORDS = {Visibility.BLIND: "blind", Visibility.GM: "GM-only"}


def _result_key(request: RollRequest) -> str:
    return f"roll-request-{request.pk}-result"


@transaction.atomic
def roll_request_send_result(*, request: RollRequest, gm, to_everyone: bool = False) -> FeedEntry:
    """Post the request's group result to the feed and close it; a second call posts nothing.

    A public request's result is public. A hidden one's (blind, GM only) names every answer the
    players did not see, so it is the GM's alone unless ``to_everyone``: the GM's explicit confirmation
    (play.request_views.request_result asks for it by name). Closing it takes the prompt off the sheets
    of those who did not answer: the GM has moved on.
    """
    request = (
        RollRequest.objects.select_for_update()
        .select_related("campaign")
        .prefetch_related("targets__character", "targets__entry")
        .get(pk=request.pk)
    )
    if not request.open:
        sent = entry_for_key(campaign=request.campaign, author=gm, idempotency_key=_result_key(request))
        if sent is None:
            raise RequestError("That request is closed.")
        return sent
    counted = tally(request)
    if not counted.answered:
        raise RequestError("Nobody has answered yet: wait for an answer before sending the group result.")
    text = counted.text()
    entry, _ = feed_entry_create(
        campaign=request.campaign,
        author=gm,
        label=f"{request.label}: group result",
        request={
            "roll_request": request.pk,
            "roll_key": request.roll_key,
            "answered": counted.answered,
            "asked": len(counted.answers),
            "succeeded": counted.succeeded,
            "failed": counted.failed,
        },
        summary=text if len(text) <= 300 else text[:299] + "…",
        visibility=Visibility.PUBLIC if to_everyone or not is_hidden(request) else Visibility.GM,
        idempotency_key=_result_key(request),
    )
    RollRequest.objects.filter(pk=request.pk).update(open=False)
    realtime.panel_changed(campaign_id=request.campaign_id, panel="requests")
    return entry


def requests_for_gm(campaign, *, limit: int = 10):
    """The GM's latest requests, with each character's answer so far."""
    return campaign.roll_requests.prefetch_related("targets__character", "targets__entry").order_by(
        "-created_at", "-pk"
    )[:limit]
