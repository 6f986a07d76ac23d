"""A feed entry's HTML, as one variant (campaigns.selectors.entry_variant): "full" shows everything,
"notice" only that a blind roll was made, "players" the words a player reads of a line whose numbers
are the GM's.

Drawn in Python rather than by a template: an entry is drawn on every roll's broadcast (once per
variant), again in the roller's answer, and fifty times for a feed page, and as a template it was a
fifth of a dice-box click's server time (bench/profile_roll.py). It must not depend on who views it:
the one exception, the apply form's CSRF token and error, is handed in by the page that shows them.
Templates draw it with ``{% feed_entry entry variant %}`` (campaigns/templatetags/feed.py).

The display data it draws (dice, totals, outcomes) are campaigns/rendering.py's; the outcome's colour
(tone) comes from its typed value there, never from its words. Every value from a player or a stored
result goes through :func:`escape`.
"""

from __future__ import annotations

from html import escape as html_escape

from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.timezone import template_localtime

from .models import WHISPER, Visibility
from .selectors import FULL, NOTICE, PLAYERS

# A roll this viewer may not see: dice with no face, the same two for every roll so they tell nothing
# (not even how many were thrown). static/js/dice.js lets them tumble as the entry arrives.
GHOST_DICE = (
    ' <span class="feed-dice feed-ghost-dice" aria-hidden="true">'
    '<span class="ghost-die"></span><span class="ghost-die"></span></span> '
)

VISIBILITY_BADGES = {
    Visibility.GM: '<span class="badge text-bg-info feed-vis">GM only</span> ',
    Visibility.SELF: '<span class="badge text-bg-secondary feed-vis">only me</span> ',
}
BLIND_BADGE = '<span class="badge text-bg-warning feed-vis">blind</span> '


def escape(value) -> str:
    """Django's ``conditional_escape`` (what a template's autoescape does) without its lazy-string
    wrapper, which was most of a die's drawing (bench/profile_roll.py): a value marked safe passes
    as it is."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return html_escape(str(value))


def csrf_input(csrf_token) -> str:
    """The form field Django's ``{% csrf_token %}`` draws for the page's token ("" without one)."""
    if csrf_token and str(csrf_token) != "NOTPROVIDED":  # as the tag reads it
        return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'
    return ""


def render_entry(entry, variant: str, *, apply_error: str = "", csrf_token=None) -> SafeString:
    """The entry's ``<li>`` as ``variant``; identical for every viewer of it. ``csrf_token``: the page's
    (the context's lazy one), read only if the apply form is drawn."""
    cursor = escape(entry.cursor)
    notice = " feed-notice" if variant == NOTICE else ""
    return SafeString(
        f'<li class="feed-entry feed-{escape(entry.kind)}{notice}" id="entry-{cursor}" data-cursor="{cursor}"'
        f'{_whisper_marks(entry, variant)}> <div class="feed-head"> {_head(entry, variant)} </div>'
        f" {_body(entry, variant, apply_error, csrf_token)} </li>"
    )


def _whisper_marks(entry, variant: str) -> str:
    # A whisper is a notice for those it names (static/js/notices.js decides, for the viewer, from these ids).
    if entry.visibility != WHISPER or variant == NOTICE:
        return ""
    to = " ".join(str(user.pk) for user in entry.whisper_to)
    return (
        f' data-notice="whisper" data-notice-key="entry:{escape(entry.cursor)}"'
        f' data-author="{escape(entry.author_id)}" data-whisper-to="{to}"'
    )


def _head(entry, variant: str) -> str:
    named = bool(entry.character_name) and variant != NOTICE
    parts = []
    # The character's initial's badge, and over it the portrait where the whole table may see one (the
    # feed's query annotates its name, a new entry takes it from its character: hooks.register_feed_portrait),
    # so no image is asked for that is not there. Alt is empty: the name is beside it.
    if entry.character_id and named:
        portrait = ""
        # Only what the feed's query or the hook set: an entry read without either has none.
        version = getattr(entry, "character_portrait", "")
        if version:
            src = f"{reverse('portrait', args=[entry.character_id])}?v={escape(version)}"
            portrait = f'<img src="{src}" alt="" loading="lazy" data-portrait>'
        parts.append(
            f'<span class="avatar avatar-sm avatar-badge avatar-c{str(int(entry.character_id))[-1]}">'
            f'<span aria-hidden="true">{escape(entry.character_name[0].upper())}</span>{portrait}</span>'
        )
    username = escape(entry.author.username)
    if named:
        who = (
            f"<strong><bdi>{escape(entry.character_name)}</bdi></strong>"
            f' <span class="text-body-secondary">· <bdi>{username}</bdi></span>'
        )
    else:
        who = f"<strong><bdi>{username}</bdi></strong>"
    parts.append(f'<span class="feed-who">{who}</span>')
    if entry.kind == "roll":
        parts.append(f'<span class="feed-label"><bdi>{escape(entry.label)}</bdi></span>')
    parts.append(_badge(entry, variant))
    # As the template filters wrote them ("c" is isoformat, "H:i" the hour and minute), without their
    # format-string parsing per entry.
    when = template_localtime(entry.created_at)
    parts.append(
        f'<time class="feed-time" datetime="{when.isoformat()}">{when.hour:02d}:{when.minute:02d}</time>'
    )
    return " ".join(parts)


def _badge(entry, variant: str) -> str:
    if variant == NOTICE or entry.visibility == Visibility.BLIND:
        return BLIND_BADGE
    if entry.visibility == WHISPER:
        names = ", ".join(f"<bdi>{escape(user.username)}</bdi>" for user in entry.whisper_to)
        return (
            '<span class="badge text-bg-primary feed-vis">whisper</span>'
            f' <span class="feed-to small" title="The GM sees every whisper">to {names}</span>'
        )
    return VISIBILITY_BADGES.get(entry.visibility, "")


def _body(entry, variant: str, apply_error: str, csrf_token) -> str:
    display = entry.display
    if variant == NOTICE:
        return (
            f'<p class="feed-body text-body-secondary mb-0">{GHOST_DICE}'
            "<span>A blind roll was made. Only the GM sees the result.</span></p>"
        )
    if variant == PLAYERS:
        return _players_body(entry, display)
    if entry.kind == "chat":
        return _chat_body(entry)
    if display and display.get("rolls"):
        # A repeat ("6x 4d6kh3"): one line per roll, each with its own total; nothing adds them up.
        lines = " ".join(
            f'<li class="feed-repeat-roll"><span class="feed-roll-number">{n}.</span>'
            f"{_dice_line(entry, roll)}</li>"
            for n, roll in enumerate(display["rolls"], start=1)
        )
        return (
            f'<div class="feed-body feed-repeat"> <ol class="feed-rolls list-unstyled mb-0"> {lines} </ol>'
            f" {_comment(display)} </div>"
        )
    if display:
        summary = ""
        if display.get("show_summary") and entry.summary:
            summary = f'<div class="feed-summary small text-body-secondary">{escape(entry.summary)}</div>'
        pending = _pending(entry, apply_error, csrf_token) if variant == FULL else ""
        return (
            f'<div class="feed-body"> {_dice_line(entry, display)} {_comment(display)} {summary}'
            f" {_changes(_key(entry.result, 'changes'))} {pending} </div>"
        )
    chance = ""
    if entry.chance_percent:
        chance = f' <span class="feed-chance">{escape(entry.chance_percent)} chance</span>'
    return f'<p class="feed-body mb-0">{escape(entry.summary)}{chance}</p>'


def _players_body(entry, display) -> str:
    # Numbers that are the GM's (an NPC's HP, defence, damage: selectors.gm_numbers): the players' words,
    # no dice, total or chance.
    parts = []
    if display and display["groups"] and display["groups"][0]["dice"]:
        parts.append(GHOST_DICE)
    if display and display["outcome"]:
        parts.append(f'<span class="feed-outcome">{_outcome(display)}</span>')
    shown = _key(entry.result, "players")
    summary = _key(shown, "summary")
    if summary:
        parts.append(f'<div class="feed-summary small text-body-secondary">{escape(summary)}</div>')
    parts.append(_changes(_key(shown, "changes")))
    return f'<div class="feed-body"> {" ".join(parts)} </div>'


def _chat_body(entry) -> str:
    # An emote ("/em draws her sword") reads as what its speaker does: "Kara draws her sword".
    emote = bool(_key(entry.request, "emote"))
    speaker = f"<bdi>{escape(entry.character_name or entry.author.username)}</bdi> " if emote else ""
    text = "".join(
        (
            f'<a class="inline-roll outcome-{escape(part["tone"])}" href="#entry-{escape(part["cursor"])}"'
            f' title="{escape(part["summary"])}">'
            f'<span class="visually-hidden">{escape(part["notation"])} rolled </span>'
            f"{escape(part['notation'] if part['total'] is None else part['total'])}</a>"
        )
        if part.get("cursor")
        else escape(part["text"])
        for part in entry.chat_parts
    )
    return (
        f'<p class="feed-body feed-chat-text mb-0{" feed-emote fst-italic" if emote else ""}" dir="auto">'
        f"{speaker}{text}</p>"
    )


def _dice_line(entry, display: dict) -> str:
    """One roll's dice, total and outcome (``display``: one display of campaigns/rendering.py)."""
    groups = " ".join(_group(group) for group in display["groups"])
    outcome = [
        f'<span class="feed-total">= {display["total"]}</span>' if display["total"] is not None else "",
        _outcome(display) if display["outcome"] else "",
        "".join(f'<span class="feed-note">{escape(note)}</span>' for note in display["notes"]),
        # A repeat has no chance of its own (each roll has its outcome), so this shows for single rolls.
        (
            '<span class="feed-chance" title="The chance this roll had before it was made">'
            f"{escape(entry.chance_percent)} chance</span>"
        )
        if entry.chance_percent
        else "",
    ]
    return (
        f' <span class="feed-dice"> {groups} </span> <span class="feed-outcome"> {" ".join(outcome)} </span> '
    )


def _group(group: dict) -> str:
    parts = []
    if group["sign"]:
        parts.append(f'<span class="feed-op">{escape(group["sign"])}</span>')
    if group["constant"]:
        parts.append(f'<span class="feed-const">{group["bonus"]}</span>')
    else:
        if group["label"]:
            parts.append(f'<span class="feed-group-label">{escape(group["label"])}</span>')
        # A die's classes, title and hidden words come worked out (rendering._mark): this runs per die.
        parts.append("".join(_die(die) for die in group["dice"]))
        if group["bonus"]:
            parts.append(f'<span class="feed-const">+{group["bonus"]}</span>')
        successes = group["successes"]
        if successes is not None:
            suffix = "" if successes == 1 else "es"
            parts.append(f'<span class="feed-successes">{successes} success{suffix}</span>')
    if group["tag"]:
        parts.append(f'<span class="feed-tag" dir="auto">[<bdi>{escape(group["tag"])}</bdi>]</span>')
    return " ".join(parts)


def _die(die: dict) -> str:
    rerolled = "".join(f'<s class="die-rerolled">{face}</s>' for face in die["rerolled"])
    exploded = '<span class="die-mark" aria-hidden="true">!</span>' if die["exploded"] else ""
    trump = '<span class="die-mark" aria-hidden="true">★</span>' if die["trump"] else ""
    return (
        f'<span class="{escape(die["css"])}" title="{escape(die["title"])}">{rerolled}{escape(die["text"])}'
        f'{exploded}{trump}<span class="visually-hidden">{escape(die["hidden"])}</span></span>'
    )


def _outcome(display: dict) -> str:
    value = display["outcome_value"]
    marked = f' data-outcome="{escape(value)}"' if value else ""
    words = display["outcome"]
    return (
        f'<span class="outcome outcome-{escape(display["tone"] or "plain")}"{marked}>'
        f"{escape(words[0].upper() + words[1:])}</span>"
    )


def _comment(display: dict) -> str:
    comment = display.get("comment")
    return f'<div class="feed-comment" dir="auto"><bdi>{escape(comment)}</bdi></div>' if comment else ""


def _changes(changes) -> str:
    if not isinstance(changes, list | tuple):
        return ""
    return "".join(f'<div class="feed-change small">{escape(change)}</div>' for change in changes)


def _pending(entry, apply_error: str, csrf_token) -> str:
    """A hidden roll's sheet changes (rendering.PENDING): only those who see it whole learn of them, and
    apply them."""
    pending = _key(entry.result, "pending")
    if not pending:
        return ""
    lines = _key(pending, "lines")
    lines = lines if isinstance(lines, list) else []
    items = "".join(f'<li class="feed-pending-line">{escape(line)}</li>' for line in lines)
    if entry.applied_at:
        state = '<span class="text-body-secondary">Applied to the sheet:</span>'
    else:
        state = '<span class="text-body-secondary">Not on the sheet yet (the roll is hidden):</span>'
    error = ""
    if apply_error:
        error = f'<div class="alert alert-warning py-1 px-2 mb-1" role="alert">{escape(apply_error)}</div>'
    form = ""
    if not entry.applied_at:
        url = reverse("sheet_roll_apply", args=[entry.character_id, entry.cursor])
        token = csrf_input(csrf_token)
        form = (
            f'<form method="post" action="{url}" hx-post="{url}" hx-include="#sheet-version"'
            ' hx-target="closest .feed-entry" hx-swap="outerHTML" hx-disabled-elt="find button">'
            f' {token} <button class="btn btn-sm btn-outline-primary feed-apply" type="submit">'
            "Apply to the sheet</button> </form>"
        )
    return (
        f'<div class="feed-pending small mt-1"> {state} <ul class="list-unstyled mb-1 ms-2">{items}</ul>'
        f" {error} {form} </div>"
    )


def _key(value, key: str):
    """``value[key]`` where value is a dict (a stored result or request may be any JSON), else None."""
    return value.get(key) if isinstance(value, dict) else None
