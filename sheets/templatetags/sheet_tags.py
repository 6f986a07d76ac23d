"""A sheet's parts drawn in Python: its roll buttons, each with a small picture of its odds (outcome bars,
or a curve of P(total >= t)), and its in-place fields; a portrait or its badge; and the party summary a
GM watches."""

import functools
from itertools import groupby
from urllib.parse import quote

from django import template
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString

from campaigns.entry_html import escape
from campaigns.rendering import format_percent

from ..contract import Bar, Curve
from ..registry import system_for
from ..selectors import characters_of

register = template.Library()

WIDTH = 120
HEIGHT = 28


ROLL_ATTRIBUTES = (
    'hx-include="#roll-options, #roll-visibility, #sheet-version, #roll-idempotency, #roll-buttons-drawn"'
    ' hx-sync="#roll-options:replace" hx-target="#roll-result" hx-swap="outerHTML" hx-disabled-elt="this"'
)
# What reverse() leaves unquoted in a path (RFC 3986 pchar).
PCHAR = RFC3986_SUBDELIMS + "/~:@"
NO_ROLL = 'disabled title="Only the player and the GM roll for this character"'


@register.simple_tag
def roll_buttons(buttons, character, can_edit) -> SafeString:
    """The buttons under their group headings (consecutive buttons of one group share a heading); each
    posts its roll where this viewer may roll, else is drawn disabled.

    Drawn in Python rather than as a template loop: a sheet of forty buttons spent most of its page's
    drawing here, and the buttons are drawn again whenever the options change or a roll moves them."""
    if not buttons:
        return SafeString('<p class="text-body-secondary">Nothing to roll with these options.</p>')
    parts = []
    for group, members in groupby(buttons, key=lambda button: button.group):
        if group:
            parts.append(f'<h3 class="h6 text-body-secondary mt-3 mb-2">{escape(group)}</h3>')
        parts.append('<div class="roll-grid">')
        for button in members:
            url = escape(_address("sheet_roll", character.pk, button.key))
            rolls = f'hx-post="{url}" {ROLL_ATTRIBUTES}' if can_edit else NO_ROLL
            percent = button.percent
            chance = f' - <span class="roll-chance">{escape(percent)}</span>' if percent else ""
            detail = f'<span class="roll-detail">{escape(button.detail)}</span>' if button.detail else ""
            label = f'<span class="roll-label" dir="auto">{escape(button.label)}{chance}</span>'
            parts.append(
                '<button type="button" class="btn btn-outline-primary roll-button"'
                f' data-roll-key="{escape(button.key)}" {rolls}> {label} {detail}'
                f" {odds_picture(button.picture)} </button>"
            )
        parts.append("</div>")
    return SafeString(" ".join(parts))


@register.simple_tag(takes_context=True)
def sheet_field(context, field) -> SafeString:
    """An in-place field as the sheet shows it: a button that opens its editor where the write policy
    lets this viewer type it (the context's ``writable`` kinds: sheets/policy.py), else the value.

    Drawn in Python: a sheet shows dozens, each an include of a template partial."""
    display = escape(field.display)
    if field.kind in context.get("writable", ()):
        url = escape(_address("sheet_field", context["character"].pk, field.path))
        shown = (
            '<button type="button" class="btn btn-link editable-value"'
            f' aria-label="Edit {escape(field.label)}: {display}" hx-get="{url}?edit=1"'
            f' hx-target="closest .editable" hx-swap="outerHTML"><bdi>{display}</bdi></button>'
        )
    else:
        shown = f'<span class="editable-value"><bdi>{display}</bdi></span>'
    return SafeString(f'<span class="editable" data-path="{escape(field.path)}"> {shown} </span>')


def _address(name: str, character_pk, last: str) -> str:
    """``reverse(name, args=(character_pk, last))`` for a sheet's addresses that differ only in their
    last part (a roll's key, a field's path): one reverse per sheet, the part quoted as reverse() does."""
    if not last or "/" in last:  # no address matches it: reverse() says so
        return reverse(name, args=(character_pk, last))
    return (
        _address_head(get_script_prefix(), get_urlconf(), name, character_pk) + quote(last, safe=PCHAR) + "/"
    )


@functools.lru_cache(maxsize=4096)
def _address_head(prefix: str, urlconf, name: str, character_pk) -> str:
    return reverse(name, args=(character_pk, "-"))[: -len("-/")]


@functools.lru_cache(maxsize=2048)  # a sheet's pictures are the same on every page load until it changes
def odds_picture(picture):
    """Inline SVG: stacked outcome bars, or P(total >= t) with the target marked."""
    if not picture:
        return ""
    if isinstance(picture, Curve):
        return _curve(picture)
    return _bars(picture)


def _bars(bars: tuple[Bar, ...]):
    x = 0.0
    rects = []
    for bar in bars:
        width = float(bar.chance) * WIDTH
        if width > 0:
            rects.append((f"{x:.2f}", f"{width:.2f}", bar.tone, f"{bar.label}: {format_percent(bar.chance)}"))
        x += width
    title = ", ".join(f"{bar.label} {format_percent(bar.chance)}" for bar in bars)
    return format_html(
        '<svg class="odds-picture" viewBox="0 0 {} 8" width="{}" height="8" role="img" '
        'aria-label="{}">{}</svg>',
        WIDTH,
        WIDTH,
        title,
        format_html_join(
            "", '<rect x="{}" y="0" width="{}" height="8" class="fill-{}"><title>{}</title></rect>', rects
        ),
    )


def _curve(curve: Curve):
    points = curve.points
    if not points:
        return ""
    low, high = points[0][0], points[-1][0]
    span = max(high - low, 1)

    def x_of(t):
        return (t - low) / span * WIDTH

    path = " ".join(f"{x_of(t):.1f},{(1 - float(p)) * (HEIGHT - 2) + 1:.1f}" for t, p in points)
    target_p = next((p for t, p in points if t >= curve.target), points[-1][1])
    return format_html(
        '<svg class="odds-picture" viewBox="0 0 {} {}" width="{}" height="{}" role="img" '
        'aria-label="Chance of reaching each total; TN {} marked: {}">'
        '<polyline points="{}" class="curve"/>'
        '<line x1="{}" x2="{}" y1="0" y2="{}" class="target"/></svg>',
        WIDTH,
        HEIGHT,
        WIDTH,
        HEIGHT,
        curve.target,
        format_percent(target_p),
        path,
        # format_html escapes its arguments into strings first, so numbers are formatted here.
        f"{x_of(curve.target):.1f}",
        f"{x_of(curve.target):.1f}",
        HEIGHT,
    )


@register.simple_tag
def avatar(name: str, size: str, src: str = "", key: int | None = None) -> SafeString:
    """A portrait (``src``: its guarded address), or where there is none a badge with the name's first
    letter in one of ten colours, picked by ``key`` (an id, so a name keeps its colour); ``size`` sm, md
    or lg. Drawn in Python: the encounter's turn order draws one per combatant for every seat's view
    after each move (play.encounter_panel.seat_views)."""
    if src:
        return format_html(
            '<img class="avatar avatar-{}" src="{}" alt="{}" width="128" height="128">', size, src, name
        )
    colour = f"{key:d}"[-1] if isinstance(key, int) else ""
    return format_html(
        '<span class="avatar avatar-{} avatar-badge avatar-c{}" role="img" aria-label="{}">'
        '<span aria-hidden="true">{}</span></span>',
        size, colour, name, name[:1].upper(),
    )  # fmt: skip


@register.simple_tag
def characters_at(campaign, user):
    """The campaign's characters this user may see listed (NPCs only for the GM)."""
    return characters_of(campaign, user)


@register.simple_tag
def party_summary(character) -> str:
    """The key numbers a GM watches for this character (HP, abilities, harm, wounds)."""
    return system_for(character.campaign).party_summary(character)
