"""FREE/FALL combatants: what each has to work with (harm track, current attributes, gear, armor, from the
sheet or a quick NPC's stats), how a declared action reads, and the forms of the GM's and players' inputs.

Shared by the encounter's rules (``combat.py``, ``declaring.py``, ``harm.py``); the readings they follow
are at the top of ``combat.py``.
"""

from __future__ import annotations

from typing import Any

from django import forms

from campaigns.forms import WholeNumberField
from rules import freefall

from .fields import CONDITION_TO_ENGINE, SheetState
from .sheet import system as sheet_system

DECLARE, RESOLVE = "declare", "resolve"
DECLARE, RESOLVE = "declare", "resolve"
UNARMED_DV = 1
CONDITION_TO_MODEL = {engine: model for model, engine in CONDITION_TO_ENGINE.items()}
# Short labels: the GM's action forms put four fields in a row.
DIFFICULTY_CHOICES = [(d.value, f"{d.tn} {d.label}") for d in freefall.Difficulty]
KIND_CHOICES = [(k.value, k.value.title()) for k in freefall.HarmKind]
PLAIN = "plain"
PREREQUISITE_CHOICES = (
    [("gear", "Gear"), ("specialty", "Specialty")]
    + [(f"spend:{a.value}", f"Spend {a.label}") for a in freefall.Attribute]
    + [(f"harm:{k.value}", f"Take {k.value} harm") for k in freefall.HarmKind]
)
RESOLVE_CHOICES = [
    (freefall.Resolve.TEMP.value, "Temporary harm"),
    (freefall.Resolve.PERM.value, "Make a temporary harm permanent"),
    (freefall.Resolve.BREAK_GEAR.value, "Break bound gear"),
]
SLOT_CHOICES = [("", "First that fits")] + [(str(i), f"Slot {i}") for i in range(1, freefall.HARM_SLOTS + 1)]


class FreeFallNpcForm(forms.Form):
    body = WholeNumberField(min_value=0, max_value=freefall.ATTRIBUTE_MAX, initial=3, label="BODY")
    mind = WholeNumberField(min_value=0, max_value=freefall.ATTRIBUTE_MAX, initial=2, label="MIND")
    ghost = WholeNumberField(min_value=0, max_value=freefall.ATTRIBUTE_MAX, initial=2, label="GHOST")
    av = WholeNumberField(min_value=0, max_value=10, initial=0, label="Armor AV")
    dv = WholeNumberField(min_value=0, max_value=10, initial=2, label="Weapon DV")


def mitigate_form(current: freefall.Attributes, levels: int) -> type[forms.Form]:
    """One number per attribute: any current attribute pays for mitigation (docs/rules.md, l.73)."""
    fields = {
        a.value: WholeNumberField(
            min_value=0,
            max_value=min(current[a], levels),
            initial=0,
            required=False,
            label=f"{a.label} ({current[a]} left)",
        )
        for a in freefall.Attribute
    }
    return type("FreeFallMitigateForm", (forms.Form,), fields)


def declaration_seats(encounter, combatants) -> int:
    """How many declaration turns this round holds: who was in the fight as it opened, and any
    newcomer who joined while declarations were still being made (``FreeFallCombat.join``)."""
    return encounter.state.get("seats", len(combatants))


# ----- what a combatant has to work with -----------------------------------------------------------


def npc_track(stats: dict[str, Any]) -> freefall.HarmTrack:
    return freefall.HarmTrack(tuple(freefall.HarmSlot(state, kind) for state, kind in stats["harm"]))


def track_json(track: freefall.HarmTrack) -> list[list[str | None]]:
    return [[s.state.value, s.kind.value if s.kind else None] for s in track.slots]


def resources_of(
    combatant, state: SheetState | None = None
) -> tuple[freefall.HarmTrack, freefall.Attributes, tuple[freefall.Gear, ...], int]:
    """Harm track, current attributes, gear and armor, from the sheet (``state``, when the caller read
    it already) or the quick NPC's stats."""
    if combatant.character is None:
        stats = combatant.stats
        current = freefall.Attributes(stats["body"], stats["mind"], stats["ghost"])
        return npc_track(stats), current, (), stats["av"]
    state = state or sheet_system.state(combatant.character)
    return state.track, state.current, state.gear, state.armor


def slots_text(track: freefall.HarmTrack) -> str:
    return " / ".join(f"{s.state.value} {s.kind.value}" if s.kind else "-" for s in track.slots)


def _claim_text(row: dict[str, Any]) -> str:
    """The prerequisite a character's declared action claims, as the GM reads it beside the action
    (l.17-25): what earns the roll, or what it costs."""
    prerequisite = row.get("prerequisite") or PLAIN
    how, _, what = prerequisite.partition(":")
    if how == PLAIN:
        return "plain: no prerequisite"
    if how == "gear":
        return f"gear: {row['gear']}" if row.get("gear") else "gear: bare hands"
    if how == "specialty":
        return f"specialty: {row.get('specialty') or '-'}"
    if how == "spend":
        return f"spends 1 {freefall.Attribute(what).label}"
    return f"takes 1 level of {what} harm"


def row_text(row: dict[str, Any]) -> str:
    target = f" at {row['target_name']}" if row.get("target") else ""
    if row.get("hack"):
        tool = f" with {row['program']}" if row["program"] else " by specialty"
        bonus = f"+{row['bonus']}" if row["bonus"] else ""
        return f"{row['name']}{tool} {row['dice']}d20{bonus} vs TN {row['tn']}"
    # A character's claimed prerequisite is said, so the GM can judge it; a quick NPC's kit is the GM's.
    claim = f" ({_claim_text(row)})" if row.get("claimed") else ""
    return f"{row['name']}{target} {row['dice']}d20 vs TN {row['tn']}{claim}"


def engine_action(row: dict[str, Any]) -> freefall.Action:
    if row.get("hack"):
        if row["program"]:
            return freefall.Action(row["name"], row["dice"], hacking=True, program=row["program"])
        return freefall.Action(row["name"], row["dice"], hacking=True, prerequisite="specialty")
    prerequisite = row.get("prerequisite") or PLAIN
    if prerequisite == PLAIN:
        return freefall.Action(row["name"], row["dice"], specialized=False)
    how, _, what = prerequisite.partition(":")
    if how == "spend":
        return freefall.Action(row["name"], row["dice"], prerequisite="spend_attribute", attribute=what)
    if how == "harm":
        return freefall.Action(row["name"], row["dice"], prerequisite="take_harm", harm_kind=what)
    return freefall.Action(row["name"], row["dice"], prerequisite=how, gear=row.get("gear") or None)


def _default_difficulty(encounter) -> str:
    """The TN tier the GM set for the scene when starting the fight (Challenging unless said)."""
    return (encounter.state.get("start") or {}).get("difficulty") or freefall.Difficulty.CHALLENGING.value


def _difficulty_field(encounter) -> forms.ChoiceField:
    # The TN tier is the GM's call (l.29-35): a player's declaration takes the scene's tier, which the
    # GM's own form shows first (Action.gm_fields).
    return forms.ChoiceField(choices=DIFFICULTY_CHOICES, initial=_default_difficulty(encounter), label="TN")


class FreeFallStartForm(forms.Form):
    difficulty = forms.ChoiceField(
        choices=DIFFICULTY_CHOICES,
        initial=freefall.Difficulty.CHALLENGING.value,
        label="TN of players' declared actions",
        help_text="A player's declaration takes this tier; the GM's own declarations pick any.",
    )


def declaration_form(encounter, actor, *, attack: bool, state: SheetState | None) -> type[forms.Form]:
    """The form for one declared action; a player character's lists its own gear and prerequisites
    (``state``: that character's sheet state, None for a quick NPC)."""
    fields: dict[str, forms.Field] = {
        "name": forms.CharField(max_length=40, initial="Attack" if attack else "", label="Action"),
        "dice": WholeNumberField(min_value=1, max_value=freefall.BASE_POOL, initial=1, label="Dice"),
        "difficulty": _difficulty_field(encounter),
    }
    if actor.character is not None:
        gear = state.gear
        weapons = [(g.name, f"{g.name} (DV {g.dv})") for g in gear if g.dv and g.usable]
        if attack:
            # The first weapon is shown chosen, to go with the "gear" prerequisite shown beside it.
            fields["gear"] = forms.ChoiceField(
                choices=weapons + [("", f"Bare hands (DV {UNARMED_DV})")],
                initial=weapons[0][0] if weapons else "",
                required=False,
                label="Weapon",
            )
        else:
            fields["gear"] = forms.ChoiceField(
                choices=[("", "-")] + [(g.name, g.name) for g in gear if g.usable],
                required=False,
                label="Gear",
            )
        fields["prerequisite"] = forms.ChoiceField(
            choices=PREREQUISITE_CHOICES if attack else [(PLAIN, "None (plain)")] + PREREQUISITE_CHOICES,
            # As first shown the form must be accepted: bare hands are no gear, so they lean on the
            # specialty until the GM picks another way.
            initial=("gear" if weapons else "specialty") if attack else PLAIN,
            required=False,
            label="Prerequisite",
        )
    if attack:
        fields["kind"] = forms.ChoiceField(choices=KIND_CHOICES, initial="physical", label="Harm")
    return type("FreeFallAttackForm" if attack else "FreeFallTaskForm", (forms.Form,), fields)


def hack_form(encounter, actor, *, state: SheetState) -> type[forms.Form]:
    """A hack, a character's (``state``: its sheet state): an active program (its tier bonus) or the
    specialty (l.134)."""
    active = [p for p in state.programs if p.active]
    specialty = actor.character.freefall.specialty
    fields: dict[str, forms.Field] = {
        "name": forms.CharField(max_length=40, initial="Hack", label="Action"),
        "dice": WholeNumberField(min_value=1, max_value=freefall.BASE_POOL, initial=1, label="Dice"),
        "difficulty": _difficulty_field(encounter),
        "program": forms.ChoiceField(
            choices=[(p.name, f"{p.name} ({p.tier.label} +{p.bonus})") for p in active]
            + [("", f"No program: {specialty}")],
            initial=active[0].name if active else "",  # shown chosen: the first running program
            required=False,
            label="Program",
        ),
    }
    return type("FreeFallHackForm", (forms.Form,), fields)


def resolve_form(actor, options: frozenset[freefall.Resolve], track: freefall.HarmTrack) -> type[forms.Form]:
    # Only the options open now (l.130: no temporary harm once every slot holds it), so the first shown
    # is always one the rules accept.
    if track.count(freefall.SlotState.TEMP) == freefall.HARM_SLOTS:
        refused = "Every slot holds temporary harm: make one permanent or break gear."
    elif not track.count(freefall.SlotState.EMPTY):
        refused = "No empty harm slot is left: make a temporary harm permanent or break gear."
    else:
        refused = "That way of taking harm is not open now; choose one from the list."
    fields: dict[str, forms.Field] = {
        "option": forms.ChoiceField(
            choices=[(key, label) for key, label in RESOLVE_CHOICES if key in options],
            label="Take it as",
            error_messages={"invalid_choice": refused},
        ),
        "slot": forms.ChoiceField(choices=SLOT_CHOICES, required=False, label="Slot"),
    }
    if actor.character is not None:
        bound = [(g.name, g.name) for g in sheet_system.state(actor.character).gear if g.bound and g.usable]
        fields["gear"] = forms.ChoiceField(choices=[("", "First bound item")] + bound, required=False)
    return type("FreeFallResolveForm", (forms.Form,), fields)
