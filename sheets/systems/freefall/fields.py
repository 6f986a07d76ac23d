"""FREE/FALL's sheet values: the numbers derived from the saved rows (``SheetState``), the in-place
fields and their edits, and which kind of value each one is for the write policy (``value_kinds``,
sheets/policy.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError

from campaigns.forms import row_id
from rules import freefall as rules
from rules.dice import RulesError
from sheets.contract import EditableField, SheetSystem
from sheets.policy import Kind

from .models import HARM_KIND_CHOICES, HARM_STATE_CHOICES, FreeFallGear, FreeFallProgram, FreeFallSheet

ATTRIBUTES = tuple(a.value for a in rules.Attribute)
ATTRIBUTE_LABELS = {a.value: a.label for a in rules.Attribute}
# The model says "ok" where the engine says "intact"; both mean the item works as new.
CONDITION_TO_ENGINE = {
    FreeFallGear.Condition.OK: rules.GearCondition.INTACT,
    FreeFallGear.Condition.FAULTY: rules.GearCondition.FAULTY,
    FreeFallGear.Condition.BROKEN: rules.GearCondition.BROKEN,
}
COMPROMISED_CHOICES = (("no", "Active"), ("yes", "Compromised"))
HARM_PATHS = {
    f"harm{slot}_{part}": (slot, part)
    for slot in range(1, rules.HARM_SLOTS + 1)
    for part in ("state", "kind")
}


@dataclass(frozen=True)
class SheetState:
    """The numbers the sheet derives from the saved rows."""

    permanent: rules.Attributes
    binding: rules.Attributes
    current_max: rules.Attributes
    spent: rules.Attributes
    current: rules.Attributes
    track: rules.HarmTrack
    gear: tuple[rules.Gear, ...]
    armor: int

    @property
    def pool(self) -> int:
        return self.track.pool

    @property
    def filled(self) -> int:
        return self.track.filled


def _gear_rows(character) -> list[FreeFallGear]:
    # Load Bearing relief is used up in list order, so the sheet keeps the order the builder checked.
    return sorted(character.ff_gear.all(), key=lambda row: row.pk)  # the loaded rows, no query


def _engine_gear(rows) -> tuple[rules.Gear, ...]:
    names = {row.pk: row.name for row in rows}
    return tuple(
        rules.Gear(
            name=row.name,
            binding=row.binding,
            binds=row.binds or None,
            av=row.av,
            dv=row.dv,
            high_impact=row.high_impact,
            piercing=row.piercing,
            load_bearing=row.load_bearing,
            hardened=row.hardened,
            attached_to=names.get(row.attached_to_id),
            condition=CONDITION_TO_ENGINE.get(row.condition, rules.GearCondition.INTACT),
        )
        for row in rows
    )


def _engine_program(row: FreeFallProgram) -> rules.Program:
    return rules.Program(name=row.name, type=row.type, tier=row.tier, compromised=row.compromised)


class FreeFallFields(SheetSystem):
    """The sheet's derived numbers, its editable fields and what an edit of each may change."""

    # The permanent values are the build; gear and programs are the kit, changed on the kit page, which
    # checks them as the builder does; what play fills and rest or Repair empties is play state.
    value_kinds = {
        FreeFallSheet: {
            **dict.fromkeys(("character_class", "specialty"), Kind.BUILD),
            **dict.fromkeys((f"{a}_perm" for a in ATTRIBUTES), Kind.BUILD),
            **dict.fromkeys((f"{a}_spent" for a in ATTRIBUTES), Kind.PLAY),
            **dict.fromkeys(HARM_PATHS, Kind.PLAY),
        },
        FreeFallGear: {
            **dict.fromkeys(("name", "binds", "binding", "av", "dv", "load_bearing"), Kind.KIT),
            **dict.fromkeys(("high_impact", "piercing", "hardened", "attached_to_id"), Kind.KIT),
            "condition": Kind.PLAY,
        },
        FreeFallProgram: {"name": Kind.KIT, "type": Kind.KIT, "tier": Kind.KIT, "compromised": Kind.PLAY},
    }

    def state(self, character, *, gear_rows=None) -> SheetState:
        sheet = character.freefall
        rows = _gear_rows(character) if gear_rows is None else gear_rows
        gear = _engine_gear(rows)
        programs = [_engine_program(p) for p in character.ff_programs.all()]
        permanent = rules.Attributes(sheet.body_perm, sheet.mind_perm, sheet.ghost_perm)
        binding = rules.binding(gear, programs)
        current_max = permanent - binding
        spent = rules.Attributes(sheet.body_spent, sheet.mind_spent, sheet.ghost_spent)
        current = rules.Attributes(*(max(0, current_max[a] - spent[a]) for a in rules.Attribute))
        track = rules.HarmTrack(
            tuple(
                rules.HarmSlot(
                    getattr(sheet, f"harm{slot}_state"),
                    getattr(sheet, f"harm{slot}_kind") or None,
                )
                if getattr(sheet, f"harm{slot}_state") != rules.SlotState.EMPTY
                else rules.EMPTY_SLOT
                for slot in range(1, rules.HARM_SLOTS + 1)
            )
        )
        return SheetState(
            permanent=permanent,
            binding=binding,
            current_max=current_max,
            spent=spent,
            current=current,
            track=track,
            gear=gear,
            armor=rules.armor_value(gear),
        )

    def field(self, character, path):
        sheet = character.freefall
        attribute, _, part = path.partition("_")
        if attribute in ATTRIBUTES and part == "perm":
            return EditableField(
                path,
                f"{ATTRIBUTE_LABELS[attribute]} permanent",
                getattr(sheet, path),
                min=rules.ATTRIBUTE_MIN,
                max=rules.ATTRIBUTE_MAX,
                kind=self.kind_of(FreeFallSheet, path),
            )
        if attribute in ATTRIBUTES and part == "spent":
            # Points are spent through play (the sheet's Spend button, an encounter) and come back at rest.
            return EditableField(
                path,
                f"{ATTRIBUTE_LABELS[attribute]} spent",
                getattr(sheet, path),
                min=0,
                kind=self.kind_of(FreeFallSheet, path),
            )
        if path in HARM_PATHS:
            slot, part = HARM_PATHS[path]
            return EditableField(
                path,
                f"Harm slot {slot} {'state' if part == 'state' else 'kind'}",
                getattr(sheet, path),
                input_type="select",
                choices=tuple(HARM_STATE_CHOICES if part == "state" else HARM_KIND_CHOICES),
                # Harm comes from play (a hit, a pushed action) and goes at rest.
                kind=self.kind_of(FreeFallSheet, path),
            )
        kind, _, rest = path.partition(":")
        ident, _, part = rest.partition(":")
        if kind == "gear" and part == "condition" and row_id(ident):
            row = next((r for r in character.ff_gear.all() if r.pk == row_id(ident)), None)
            if row is not None:
                return EditableField(
                    path,
                    f"{row.name} condition",
                    row.condition,
                    input_type="select",
                    choices=tuple(FreeFallGear.Condition.choices),
                    # Gear breaks in play (harm option C) and comes back by Repair.
                    kind=self.kind_of(FreeFallGear, "condition"),
                )
        if kind == "program" and part == "compromised" and row_id(ident):
            row = next((r for r in character.ff_programs.all() if r.pk == row_id(ident)), None)
            if row is not None:
                return EditableField(
                    path,
                    f"{row.name} status",
                    "yes" if row.compromised else "no",
                    input_type="select",
                    choices=COMPROMISED_CHOICES,
                    kind=self.kind_of(FreeFallProgram, "compromised"),  # a 1 on a hacking die compromises it
                )
        raise KeyError(path)

    def apply_edit(self, character, path, value):
        sheet = character.freefall
        attribute, _, part = path.partition("_")
        if attribute in ATTRIBUTES and part == "perm":
            self._edit_permanent(character, attribute, value)
        elif attribute in ATTRIBUTES and part == "spent":
            state = self.state(character)
            top = max(0, state.current_max[attribute])
            if value > top:
                raise ValidationError(
                    f"{ATTRIBUTE_LABELS[attribute]} has {top} to spend (permanent "
                    f"{state.permanent[attribute]} less binding {state.binding[attribute]}); "
                    f"you cannot spend {value}."
                )
            setattr(sheet, path, value)
            sheet.save(update_fields=[path])
        elif path in HARM_PATHS:
            self._edit_harm(sheet, path, value)
        elif path.startswith("gear:"):
            row = character.ff_gear.get(pk=int(path.split(":")[1]))
            row.condition = value
            row.save(update_fields=["condition"])
        else:
            row = character.ff_programs.get(pk=int(path.split(":")[1]))
            row.compromised = value == "yes"
            row.save(update_fields=["compromised"])

    def _edit_permanent(self, character, attribute: str, value: int) -> None:
        sheet = character.freefall
        state = self.state(character)
        bound = state.binding[attribute]
        if value < bound:
            raise ValidationError(
                f"Your gear and programs bind {bound} {ATTRIBUTE_LABELS[attribute]}, so the permanent value "
                f"cannot go below {bound}."
            )
        setattr(sheet, f"{attribute}_perm", value)
        # Lowering the permanent value never leaves more spent than there is to spend (current >= 0).
        spent_path = f"{attribute}_spent"
        setattr(sheet, spent_path, min(getattr(sheet, spent_path), value - bound))
        sheet.save(update_fields=[f"{attribute}_perm", spent_path])

    @staticmethod
    def _edit_harm(sheet, path: str, value: str) -> None:
        slot, part = HARM_PATHS[path]
        state_path, kind_path = f"harm{slot}_state", f"harm{slot}_kind"
        state, kind = getattr(sheet, state_path), getattr(sheet, kind_path)
        if part == "state":
            state = value
            # A slot holds a kind exactly when filled: clearing drops it, filling an empty one picks one.
            kind = "" if value == rules.SlotState.EMPTY else (kind or rules.HarmKind.PHYSICAL.value)
        elif value:
            kind = value
            if state == rules.SlotState.EMPTY:
                state = rules.SlotState.TEMP.value
        elif state != rules.SlotState.EMPTY:
            raise ValidationError(
                f"Harm slot {slot} is filled, so it holds a kind of harm; set it to Empty to clear it."
            )
        try:
            rules.HarmSlot(state, kind or None)
        except RulesError as error:
            raise ValidationError(str(error)) from None
        setattr(sheet, state_path, state)
        setattr(sheet, kind_path, kind)
        sheet.save(update_fields=[state_path, kind_path])
