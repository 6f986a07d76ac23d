"""Five by Five 2.5 on the sheet: five ranked descriptors plus HP, 5x5 rolls with trumps and doubles tokens.

Campaign options (``campaign.options``, booleans, off when missing):

``fbf_advanced``
    The optional Advanced Descriptors rule: the builder lets a descriptor be marked advanced (every
    roll with it takes a -2 rank shift, and it may later climb to 25).
``fbf_aspects``
    The optional Aspects rule: four character-wide ratings (Agility, Brawn, Cognition, Determination),
    Average unless the player traded one down to Inferior to raise another to Superior at creation.
    Every roll names the aspect its action is based on (the roll options; encounter actions have their
    own default), and that aspect's rating shifts it one rank, untrained rolls included.

The builder (builder.py), the sheet's fields (fields.py), rolls (rolls.py), experience (xp.py),
export and import (transfer.py) and recovery (recovery.py) live beside this module; the system joins them.
"""

from __future__ import annotations

from rules import fivebyfive

from .builder import FiveByFiveBuilder
from .fields import OPTION_ADVANCED, OPTION_ASPECTS
from .models import ASPECT_NAMES
from .recovery import RestForm, TimePassesForm, dying_clock
from .rolls import FiveByFiveRolls
from .transfer import FiveByFiveTransfer
from .xp import FiveByFiveXp


class FiveByFiveSystem(FiveByFiveBuilder, FiveByFiveRolls, FiveByFiveTransfer, FiveByFiveXp):
    key = "fivebyfive"
    label = "Five by Five 2.5"
    demo_campaign = ("The Salt Road", "A caravan crosses the salt flats. Five by Five demo table.")
    campaign_options = (
        (
            "fbf_advanced",
            "Advanced descriptors",
            "Descriptors may be marked advanced: -2 rank shift, up to 25.",
        ),
        (
            "fbf_aspects",
            "Aspects",
            "Four aspects (Agility, Brawn, Cognition, Determination): an Inferior one buys a Superior "
            "one; the aspect an action is based on shifts it a rank.",
        ),
    )
    template = "fivebyfive/sheet.html"
    builder_template = "fivebyfive/builder.html"
    stylesheet = "fivebyfive/fivebyfive.css"

    def context(self, character):
        sheet = character.fivebyfive
        options = character.campaign.options or {}
        descriptors = []
        for row in self._rows(character):
            descriptors.append(
                {
                    "row": row,
                    "name": self.field(character, f"descriptor:{row.pk}:name"),
                    "value": self.field(character, f"descriptor:{row.pk}:value"),
                    "exclusive": self.field(character, f"descriptor:{row.pk}:exclusive"),
                    "advanced": (
                        self.field(character, f"descriptor:{row.pk}:advanced")
                        if options.get(OPTION_ADVANCED)
                        else None
                    ),
                    "raise_cost": self._raise_cost(row.value, advanced=row.advanced),
                }
            )
        return {
            "sheet": sheet,
            "descriptors": descriptors,
            "hp_field": self.field(character, "hp"),
            "hp_rank_field": self.field(character, "hp_rank"),
            "hp_max": fivebyfive.hp_points(sheet.hp_rank),
            "condition": fivebyfive.condition(sheet.hp),
            "token_field": self.field(character, "doubles_token"),
            # Rendered out of band after each roll and edit: the token and the spend option follow the sheet.
            "sheet_oob_template": "fivebyfive/sheet.html#oob",
            "xp_field": self.field(character, "xp"),
            "gear": [self.field(character, name) for name in ("weapon", "armor", "shield", "offhand_dagger")],
            "dodges": fivebyfive.dodges_per_round(shield=sheet.shield, offhand_dagger=sheet.offhand_dagger),
            "uses_aspects": bool(options.get(OPTION_ASPECTS)),
            "aspects": (
                [self.field(character, f"aspect:{name}") for name in ASPECT_NAMES]
                if options.get(OPTION_ASPECTS)
                else []
            ),
            "uses_advanced": bool(options.get(OPTION_ADVANCED)),
            "dying_clock": dying_clock(sheet),
            "time_form": TimePassesForm(prefix="time"),
            "rest_form": RestForm(prefix="rest"),
            "xp_award_help": "1 a session played, 1 more for a hard one or the end of a long arc.",
            "xp_help": "A new rank costs its value in XP; a new descriptor 2; trading the poor one 5. "
            "At most two descriptors at 12 and one at 16.",
        }

    def party_summary(self, character):
        sheet = character.fivebyfive
        token = "token" if sheet.doubles_token else "no token"
        return f"HP {sheet.hp}/{fivebyfive.hp_points(sheet.hp_rank)} · {token}"


system = FiveByFiveSystem()
