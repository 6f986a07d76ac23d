"""The actions of a turn and a waiting defence, priced for whoever looks: each open action with its form
and its exact chance, and the defence's prompt and odds. The encounter page and a player's turn panel
draw these; the odds views re-price them as a form's inputs change. A chance is shown only to those who
may see the numbers it would tell (``play.encounters.numbers_shown``).
"""

from __future__ import annotations

from campaigns.forms import compact
from campaigns.rendering import format_percent
from rules.dice import RulesError
from sheets.combat import EncounterError

from . import encounters
from .forms import initial_data, initial_of

# ----- the actions of a turn, priced ----------------------------------------------------------------


def action_chance(combat, encounter, actor, action, target, data):
    """The exact chance of ``action`` as its form's ``data`` (None: as first drawn) would roll it; None
    when it rolls nothing or the inputs do not make a roll yet."""
    try:
        options = {}
        if action.form_class is not None:
            form = action.form_class(
                data if data is not None else initial_data(action.form_class, prefix=action.key),
                prefix=action.key,
            )
            if not form.is_valid():
                return None
            options = form.cleaned_data
        return combat.chance(encounter, actor, action.key, target, options)
    except (EncounterError, RulesError, KeyError, ValueError):
        return None  # inputs the roll itself would refuse, with its message, when it is made


def priced(user, encounter, action, target) -> bool:
    """Whether ``user`` sees the odds of ``action`` at ``target``: not when they would tell the numbers
    of an NPC the user does not see (play.encounters.numbers_shown)."""
    return action.own_odds or target is None or encounters.numbers_shown(user, encounter, target)


def action_items(user, combat, encounter, actor, combatants, *, by_gm: bool) -> list[dict]:
    """Each action open to ``actor`` with its form (a player's without the GM's inputs) and its odds
    against its first target (none where they would tell an NPC's numbers ``user`` does not see)."""
    items = []
    for action in encounters.actions_open_to(combat, encounter, actor, combatants, by_gm=by_gm):
        form = as_drawn = None
        if action.form_class is not None:
            form = compact(action.form_class(prefix=action.key))
            # Priced as first drawn, the GM's inputs at their first values on a player's form too.
            as_drawn = initial_of(form)
            if not by_gm:
                for name in action.gm_fields:
                    form.fields.pop(name, None)
        target = action.targets[0] if action.needs_target and action.targets else None
        chance = None
        if priced(user, encounter, action, target):
            chance = action_chance(combat, encounter, actor, action, target, as_drawn)
        items.append({"action": action, "form": form, "percent": format_percent(chance)})
    return items


# ----- a waiting defence ----------------------------------------------------------------------------

DEFENCE_PREFIX = "defence"


def defence_percent(combat, encounter, attacker, defender, asked, data):
    """The chance the defence holds with the form's ``data`` (None: as first drawn), as a percent."""
    form = asked.form_class(
        data if data is not None else initial_data(asked.form_class, prefix=DEFENCE_PREFIX),
        prefix=DEFENCE_PREFIX,
    )
    if not form.is_valid():
        return ""
    pending = encounters.pending_defence(encounter)["rules"]
    try:
        chance = combat.defence_chance(encounter, pending, attacker, defender, form.cleaned_data)
    except (EncounterError, RulesError, KeyError, ValueError):
        return ""
    return format_percent(chance)


def defence_item(user, combat, encounter, combatants) -> dict | None:
    """The waiting defence as a page draws it: the prompt, its form, each option's odds (none where they
    would tell the numbers of an NPC attacker ``user`` does not see); None if none waits."""
    found = encounters.defence_of(encounter, combatants)
    if found is None:
        return None
    asked, attacker, defender = found
    priced = asked.own_odds or encounters.numbers_shown(user, encounter, attacker)
    form = compact(asked.form_class(prefix=DEFENCE_PREFIX))
    as_drawn = initial_of(form)
    return {
        "asked": asked,
        "attacker": attacker,
        "defender": defender,
        "form": form,
        "percent": defence_percent(combat, encounter, attacker, defender, asked, as_drawn) if priced else "",
        "odds": [(label, format_percent(chance)) for label, chance in asked.odds] if priced else [],
    }
