"""L5R Roll & Keep on the sheet: eight traits and Void, derived rings, skills, weapons, XkY pools.

Every pool is shown as written (Trait + Skill rolled, Trait kept) and, where the Ten Dice Rule
folds it, as rolled (``12k4 -> 10k5``). Chances are exact: ``rules.l5r`` works them out as
Fractions, exploding tens included.

Campaign option ``l5r_odd_die_bonus`` (bool, set by the GM in ``Campaign.options``): the "Ten
Dice" house rule. Normally, when a pool has more than ten rolled dice and fewer than ten kept, every
two extra rolled dice buy one kept die and an odd die left over is lost; with this option on, that
odd die becomes +2 to the total. It changes the pools shown in the builder, every chance and curve
on the sheet, and the rolls themselves: each call into the engine passes it as ``odd_die_bonus``.

Wounds are a number on the sheet; the rank they fall in (``rules.l5r.wound_rank`` with Earth, the lower
of Stamina and Willpower) is shown beside them, and its TN penalty is added to the TN of every TN roll
made from the sheet (and in encounters), before raises. Damage rolls have no TN and take no penalty.
At Out (or Dead) the sheet refuses every roll: the character is unconscious.

Campaign option ``l5r_starting_xp`` (a number, 40 unless the GM sets another): the builder's budget.
Ranks cost the common 4th-edition table (``rules.l5r.build_cost``); what a character has left is the
budget now + the GM's awards - what its ranks cost, so the GM's later change reaches existing sheets.
Players buy ranks with XP (``xp_spend``); typing a rank in is the GM's correction (a build value,
``value_kinds``; sheets/policy.py decides who types what).

Armor (4th edition): ``L5RSheet.armor`` is the armor's bonus to the Armor TN, shown with the Armor TN it
makes, and ``L5RSheet.reduction`` what it takes off every damage roll that hits.
"""

from __future__ import annotations

from rules import l5r
from sheets.contract import SheetSystem

from .base import (
    WOUNDS_MAX,
    wound_state,
    wound_text,
)
from .builder import L5RBuilder
from .fields import VALUE_KINDS, L5RFields
from .rolls import L5RRolls
from .transfer import L5RTransfer
from .xp import BUDGET_OPTION, L5RXp


class L5RSystem(L5RBuilder, L5RFields, L5RRolls, L5RXp, L5RTransfer, SheetSystem):
    """L5R's :class:`~sheets.contract.SheetSystem`: each concern in its own module (builder, fields, rolls,
    xp, transfer); here the declarations and the party's one-line views."""

    key = "l5r"
    label = "L5R Roll & Keep"
    value_kinds = VALUE_KINDS
    demo_campaign = ("Winter Court", "Honour and steel at a frozen palace. L5R Roll & Keep demo table.")
    # The rulebook's archer costs 69 XP of ranks; the demo table starts its characters with 70.
    demo_options = {"l5r_starting_xp": 70}
    campaign_options = (
        (
            "l5r_odd_die_bonus",
            "Ten Dice house rule: odd die +2",
            "Over ten rolled dice, an odd die left over adds +2 instead of being lost.",
        ),
        BUDGET_OPTION,
    )
    template = "l5r/sheet.html"
    builder_template = "l5r/builder.html"
    after_roll_template = "l5r/_after_roll.html"
    stylesheet = "l5r/l5r.css"

    def play_problems(self, rows, campaign):
        sheet = rows["l5r"]
        problems = []
        if sheet.void_spent > sheet.void:
            problems.append(f"Void spent ({sheet.void_spent}) is more than Void ({sheet.void})")
        if sheet.wounds > WOUNDS_MAX:
            problems.append(f"Wounds ({sheet.wounds}) can be at most {WOUNDS_MAX}")
        for skill in rows["l5r_skills"]:
            if skill.rank > l5r.SKILL_MAX:
                problems.append(f"Skill {skill.name}: rank {skill.rank} is above {l5r.SKILL_MAX}")
        for weapon in rows["l5r_weapons"]:
            if not (weapon.rolled <= 10 and 1 <= weapon.kept <= 10):
                problems.append(f"Weapon {weapon.name}: its DR {weapon.rolled}k{weapon.kept} is out of range")
        return problems

    def party_summary(self, character):
        sheet = character.l5r
        void_left = max(0, sheet.void - sheet.void_spent)
        return f"Wounds {sheet.wounds} ({wound_text(wound_state(sheet))}) · Void {void_left}/{sheet.void}"


system = L5RSystem()
