"""The turn order (the table's encounter panel and the GM's encounter page show it) and the table's
encounter panel around it, drawn in Python from play.encounter_panel.order_context.

Drawn in Python rather than by a template: after every move each seat's view of the panel is drawn for
its digest (play.encounter_panel.seat_views), and as a template that was a ninth of an encounter
action's server CPU (bench/profile_roll.py). What a viewer may see is decided before this (the rows'
numbers by play.encounters.numbers_shown, the portraits by sheet_shown): this only draws it. Every
value from a player or the GM goes through :func:`escape`.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.safestring import SafeString

from campaigns.entry_html import csrf_input, escape
from sheets.templatetags.sheet_tags import avatar

from .models import Combatant, Encounter

MOVES = (("up", "↑"), ("down", "↓"))


def panel_body_html(context: dict, csrf_token=None) -> SafeString:
    """The table's encounter panel's body (what its digest is taken of): the fight's name, the GM's link
    to run it, and the order, or a line saying no fight is going on. ``csrf_token``: the page's, for
    the GM's controls; without it they are drawn without one, as the frame's digest sets it aside."""
    encounter, campaign = context["encounter"], context["campaign"]
    heading = f"<bdi>{escape(encounter.name)}</bdi>" if encounter else "Encounter"
    link = ""
    if context["is_gm"]:
        if encounter:
            link = f'<a class="small" href="{encounter.get_absolute_url()}">Run it</a>'
        else:
            link = f'<a class="small" href="{reverse("encounters", args=[campaign.pk])}">Start one</a>'
    if encounter:
        order = order_html(context, csrf_token)
    else:
        order = '<p class="small text-body-secondary mb-0">No fight going on.</p>'
    return SafeString(
        '\n<div class="card-body">\n<div class="d-flex justify-content-between align-items-center">\n'
        f'<h2 class="h6 mb-2" id="encounter-heading">{heading}</h2>\n{link}\n</div>\n{order}\n</div>\n'
    )


def order_html(context: dict, csrf_token=None) -> SafeString:
    """The turn order: each combatant with its key numbers (an NPC's numbers and initiative only in the
    rows whose viewer sees them: order_context decided), the GM's arrows to reorder it and, while the
    fight is set up, the GM's buttons to take a combatant out of it."""
    encounter, actor = context["encounter"], context["actor"]
    status = escape(encounter.get_status_display())
    if encounter.round:
        status += f' · round <strong class="encounter-round">{encounter.round}</strong>'
    if actor is not None:
        status += (
            f' · <span class="encounter-now">now: <strong><bdi>{escape(actor.name)}</bdi></strong></span>'
        )
    rows = context["rows"]
    if rows:
        forms = _forms(context, csrf_token)
        items = "".join(_row_html(row, index, len(rows), forms) for index, row in enumerate(rows))
    else:
        items = '\n<li class="list-group-item text-body-secondary">Nobody yet.</li>'
    return SafeString(
        f'\n<p class="small mb-2">{status}</p>\n'
        f'<ol class="list-group list-group-numbered encounter-order">{items}\n</ol>\n'
    )


def _forms(context: dict, csrf_token) -> dict:
    """What the GM's row controls need, worked out once for the order: "" where they are not drawn."""
    encounter, campaign = context["encounter"], context["campaign"]
    args = [campaign.pk, encounter.pk]
    reorder = context["can_reorder"]
    remove = context["is_gm"] and encounter.status == Encounter.Status.SETUP
    token = csrf_input(csrf_token) if reorder or remove else ""
    return {
        "token": token,
        "version": f'<input type="hidden" name="version" value="{encounter.version}">',
        "move": reverse("encounter_action", args=[*args, "move"]) if reorder else "",
        "remove": reverse("encounter_action", args=[*args, "remove"]) if remove else "",
    }


def _row_html(row: dict, index: int, count: int, forms: dict) -> str:
    combatant: Combatant = row["combatant"]
    name = escape(combatant.name)
    side = "text-bg-danger" if combatant.side == "gm" else "text-bg-primary"
    classes = (" active-turn" if row["current"] else "") + (" is-out" if row["out"] else "")
    badges = (' <span class="badge text-bg-warning">turn</span>' if row["current"] else "") + (
        ' <span class="badge text-bg-secondary">out</span>' if row["out"] else ""
    )
    picture = avatar(combatant.name, "sm", row["portrait"], row["badge_key"])
    initiative = ""
    if row["initiative"] is not None:
        initiative = '<span class="small text-body-secondary" title="Initiative">'
        initiative += f"init {escape(row['initiative'])}</span>"
    hidden = f'{forms["version"]}<input type="hidden" name="combatant" value="{combatant.pk}">'
    controls = ""
    if forms["move"]:
        for direction, arrow in MOVES:
            first_or_last = (direction == "up" and index == 0) or (direction == "down" and index == count - 1)
            controls += (
                f'\n<form method="post" action="{forms["move"]}">{forms["token"]}\n'
                f'{hidden}<input type="hidden" name="direction" value="{direction}">\n'
                f'<button class="btn btn-sm btn-outline-secondary" type="submit" aria-label="Move {name} '
                f'{direction}"{" disabled" if first_or_last else ""}>{arrow}</button>\n</form>\n'
            )
    if forms["remove"]:
        controls += (
            f'\n<form method="post" action="{forms["remove"]}">{forms["token"]}\n{hidden}\n'
            '<button class="btn btn-sm btn-outline-danger" type="submit"'
            f' aria-label="Remove {name}">×</button>\n</form>\n'
        )
    return (
        f'\n<li class="list-group-item d-flex justify-content-between align-items-start gap-2{classes}"'
        f' data-combatant="{name}">\n<div class="me-auto">\n'
        f'<div>{picture} <strong><bdi>{name}</bdi></strong> <span class="badge {side}">'
        f"{escape(combatant.get_side_display())}</span>{badges}</div>\n"
        f'<div class="small combatant-summary">{escape(row["summary"])}</div>\n</div>\n'
        f"{initiative}\n{controls}\n</li>"
    )
