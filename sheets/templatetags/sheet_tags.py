"""Small server-rendered pictures of a roll's odds: outcome bars, or a curve of P(total >= t)."""

from django import template
from django.utils.html import format_html, format_html_join

from campaigns.rendering import format_percent

from ..contract import Bar, Curve
from ..registry import system_for
from ..selectors import characters_of

register = template.Library()

WIDTH = 120
HEIGHT = 28


@register.simple_tag
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
def characters_at(campaign, user):
    """The campaign's characters this user may see listed (NPCs only for the GM)."""
    return characters_of(campaign, user)


@register.simple_tag
def party_summary(character) -> str:
    """The key numbers a GM watches for this character (HP, abilities, harm, wounds)."""
    return system_for(character.campaign).party_summary(character)
