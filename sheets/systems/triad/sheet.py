"""Triad on the sheet: Body/Mind/Spirit point-buy with traits, d20 floored by the current ability."""

from __future__ import annotations

from sheets.contract import SheetSystem

from .base import ABILITY_LABELS, OUT_OF_TIER_OPTION
from .builder import TriadBuilder
from .fields import VALUE_KINDS, TriadFields
from .rolls import TriadRolls
from .transfer import TriadTransfer


class TriadSystem(TriadBuilder, TriadFields, TriadRolls, TriadTransfer, SheetSystem):
    """Triad's :class:`~sheets.contract.SheetSystem`: each concern in its own module (builder, fields, rolls,
    transfer; resting and traits in actions); here the declarations and the party's one-line views."""

    key = "triad"
    label = "Triad"
    value_kinds = VALUE_KINDS
    demo_campaign = ("Castle Dracula", "Hunters climb toward the count's tower. Triad demo table.")
    campaign_options = (
        (
            "triad_out_of_tier",
            "Allow characters outside the tiers",
            "Players may build characters whose points and traits match no tier; their sheets say so.",
        ),
    )
    template = "triad/sheet.html"
    builder_template = "triad/builder.html"
    stylesheet = "triad/triad.css"
    # The demo's Van Helsing, like the seed's, matches no tier: the demo table allows such characters.
    demo_options = {OUT_OF_TIER_OPTION: True}

    def play_problems(self, rows, campaign):
        sheet = rows["triad"]
        problems = []
        for ability, label in ABILITY_LABELS.items():
            current, most = getattr(sheet, ability), getattr(sheet, f"{ability}_max")
            if current > most:
                problems.append(f"Current {label} ({current}) is above its maximum ({most})")
        return problems

    def party_summary(self, character):
        sheet = character.triad
        state = "dead" if sheet.dead else ("dying" if sheet.dying else "")
        return (
            f"Body {sheet.body}/{sheet.body_max} · Mind {sheet.mind}/{sheet.mind_max} · "
            f"Spirit {sheet.spirit}/{sheet.spirit_max}" + (f" · {state}" if state else "")
        )


system = TriadSystem()
