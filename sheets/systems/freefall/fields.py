"""FREE/FALL's sheet values: the numbers derived from the saved rows (``SheetState``), the in-place
fields and their edits, and which kind of value each one is for the write policy (``value_kinds``,
sheets/policy.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError

from rules import freefall
from rules.dice import RulesError
from sheets.contract import EditableField, SheetSystem
from sheets.edits import EditPath
from sheets.policy import Kind

from .models import HARM_KIND_CHOICES, HARM_STATE_CHOICES, FreeFallGear, FreeFallProgram, FreeFallSheet

ATTRIBUTES = tuple(a.value for a in freefall.Attribute)
ATTRIBUTE_LABELS = {a.value: a.label for a in freefall.Attribute}
# The model says "ok" where the engine says "intact"; both mean the item works as new.
CONDITION_TO_ENGINE = {
    FreeFallGear.Condition.OK: freefall.GearCondition.INTACT,
    FreeFallGear.Condition.FAULTY: freefall.GearCondition.FAULTY,
    FreeFallGear.Condition.BROKEN: freefall.GearCondition.BROKEN,
}
COMPROMISED_CHOICES = (("no", "Active"), ("yes", "Compromised"))
HARM_SLOT_NUMBERS = tuple(str(slot) for slot in range(1, freefall.HARM_SLOTS + 1))


@dataclass(frozen=True)
class SheetState:
    """The numbers the sheet derives from the saved rows."""

    permanent: freefall.Attributes
    binding: freefall.Attributes
    current_max: freefall.Attributes
    spent: freefall.Attributes
    current: freefall.Attributes
    track: freefall.HarmTrack
    gear: tuple[freefall.Gear, ...]
    armor: int
    programs: tuple[freefall.Program, ...] = ()

    @property
    def pool(self) -> int:
        return self.track.pool

    @property
    def filled(self) -> int:
        return self.track.filled


def gear_rows_of(character) -> list[FreeFallGear]:
    # Load Bearing relief is used up in list order, so the sheet keeps the order the builder checked.
    return sorted(character.ff_gear.all(), key=lambda row: row.pk)  # the loaded rows, no query


def engine_gear(rows) -> tuple[freefall.Gear, ...]:
    names = {row.pk: row.name for row in rows}
    return tuple(
        freefall.Gear(
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
            condition=CONDITION_TO_ENGINE.get(row.condition, freefall.GearCondition.INTACT),
        )
        for row in rows
    )


def _programs(character) -> list[FreeFallProgram]:
    return list(character.ff_programs.all())


def _store_harm(sheet, slot: str, state: str, kind: str) -> None:
    """Save one harm slot's state and kind together, once the engine takes them as a slot."""
    try:
        freefall.HarmSlot(state, kind or None)
    except RulesError as error:
        raise ValidationError(str(error)) from None
    state_path, kind_path = f"harm{slot}_state", f"harm{slot}_kind"
    setattr(sheet, state_path, state)
    setattr(sheet, kind_path, kind)
    sheet.save(update_fields=[state_path, kind_path])


def engine_program(row: FreeFallProgram) -> freefall.Program:
    return freefall.Program(name=row.name, type=row.type, tier=row.tier, compromised=row.compromised)


def programs_of(character) -> list[freefall.Program]:
    return [engine_program(row) for row in character.ff_programs.all()]


class FreeFallFields(SheetSystem):
    """The sheet's derived numbers, its editable fields and what an edit of each may change."""

    # The permanent values are the build; gear and programs are the kit, changed on the kit page, which
    # checks them as the builder does; what play fills and rest or Repair empties is play state.
    value_kinds = {
        FreeFallSheet: {
            **dict.fromkeys(("character_class", "specialty"), Kind.BUILD),
            **dict.fromkeys((f"{a}_perm" for a in ATTRIBUTES), Kind.BUILD),
            **dict.fromkeys((f"{a}_spent" for a in ATTRIBUTES), Kind.PLAY),
            **dict.fromkeys(
                (f"harm{slot}_{part}" for slot in HARM_SLOT_NUMBERS for part in ("state", "kind")), Kind.PLAY
            ),
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
        rows = gear_rows_of(character) if gear_rows is None else gear_rows
        gear = engine_gear(rows)
        programs = tuple(programs_of(character))
        permanent = freefall.Attributes(sheet.body_perm, sheet.mind_perm, sheet.ghost_perm)
        binding = freefall.binding(gear, programs)
        current_max = permanent - binding
        spent = freefall.Attributes(sheet.body_spent, sheet.mind_spent, sheet.ghost_spent)
        current = freefall.Attributes(*(max(0, current_max[a] - spent[a]) for a in freefall.Attribute))
        track = freefall.HarmTrack(
            tuple(
                freefall.HarmSlot(
                    getattr(sheet, f"harm{slot}_state"),
                    getattr(sheet, f"harm{slot}_kind") or None,
                )
                if getattr(sheet, f"harm{slot}_state") != freefall.SlotState.EMPTY
                else freefall.EMPTY_SLOT
                for slot in range(1, freefall.HARM_SLOTS + 1)
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
            armor=freefall.armor_value(gear),
            programs=programs,
        )

    def _permanent_field(self, character, path, attribute):
        return EditableField(
            path,
            f"{ATTRIBUTE_LABELS[attribute]} permanent",
            getattr(character.freefall, f"{attribute}_perm"),
            min=freefall.ATTRIBUTE_MIN,
            max=freefall.ATTRIBUTE_MAX,
            kind=self.kind_of(FreeFallSheet, f"{attribute}_perm"),
        )

    def _save_permanent(self, character, value, attribute):
        sheet = character.freefall
        bound = self.state(character).binding[attribute]
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

    def _spent_field(self, character, path, attribute):
        # Points are spent through play (the sheet's Spend button, an encounter) and come back at rest.
        return EditableField(
            path,
            f"{ATTRIBUTE_LABELS[attribute]} spent",
            getattr(character.freefall, f"{attribute}_spent"),
            min=0,
            kind=self.kind_of(FreeFallSheet, f"{attribute}_spent"),
        )

    def _save_spent(self, character, value, attribute):
        sheet = character.freefall
        state = self.state(character)
        top = max(0, state.current_max[attribute])
        if value > top:
            raise ValidationError(
                f"{ATTRIBUTE_LABELS[attribute]} has {top} to spend (permanent "
                f"{state.permanent[attribute]} less binding {state.binding[attribute]}); "
                f"you cannot spend {value}."
            )
        setattr(sheet, f"{attribute}_spent", value)
        sheet.save(update_fields=[f"{attribute}_spent"])

    # Harm comes from play (a hit, a pushed action) and goes at rest.
    def _harm_state_field(self, character, path, slot):
        return EditableField(
            path,
            f"Harm slot {slot} state",
            getattr(character.freefall, f"harm{slot}_state"),
            input_type="select",
            choices=tuple(HARM_STATE_CHOICES),
            kind=self.kind_of(FreeFallSheet, f"harm{slot}_state"),
        )

    def _save_harm_state(self, character, value, slot):
        sheet = character.freefall
        kind = getattr(sheet, f"harm{slot}_kind")
        # A slot holds a kind exactly when filled: clearing drops it, filling an empty one picks one.
        kind = "" if value == freefall.SlotState.EMPTY else (kind or freefall.HarmKind.PHYSICAL.value)
        _store_harm(sheet, slot, value, kind)

    def _harm_kind_field(self, character, path, slot):
        return EditableField(
            path,
            f"Harm slot {slot} kind",
            getattr(character.freefall, f"harm{slot}_kind"),
            input_type="select",
            choices=tuple(HARM_KIND_CHOICES),
            kind=self.kind_of(FreeFallSheet, f"harm{slot}_kind"),
        )

    def _save_harm_kind(self, character, value, slot):
        sheet = character.freefall
        state, kind = getattr(sheet, f"harm{slot}_state"), getattr(sheet, f"harm{slot}_kind")
        if value:
            kind = value
            if state == freefall.SlotState.EMPTY:
                state = freefall.SlotState.TEMP.value
        elif state != freefall.SlotState.EMPTY:
            raise ValidationError(
                f"Harm slot {slot} is filled, so it holds a kind of harm; set it to Empty to clear it."
            )
        _store_harm(sheet, slot, state, kind)

    def _condition_field(self, character, path, row):
        return EditableField(
            path,
            f"{row.name} condition",
            row.condition,
            input_type="select",
            choices=tuple(FreeFallGear.Condition.choices),
            # Gear breaks in play (harm option C) and comes back by Repair.
            kind=self.kind_of(FreeFallGear, "condition"),
        )

    def _save_condition(self, character, value, row):
        row.condition = value
        row.save(update_fields=["condition"])

    def _compromised_field(self, character, path, row):
        return EditableField(
            path,
            f"{row.name} status",
            "yes" if row.compromised else "no",
            input_type="select",
            choices=COMPROMISED_CHOICES,
            kind=self.kind_of(FreeFallProgram, "compromised"),  # a 1 on a hacking die compromises it
        )

    def _save_compromised(self, character, value, row):
        row.compromised = value == "yes"
        row.save(update_fields=["compromised"])

    # Each path's field and save are the methods above, called with the system as their self.
    edit_paths = (
        EditPath(
            "<attribute>_perm",
            values={"attribute": ATTRIBUTES},
            field=_permanent_field,
            save=_save_permanent,
        ),
        EditPath("<attribute>_spent", values={"attribute": ATTRIBUTES}, field=_spent_field, save=_save_spent),
        EditPath(
            "harm<slot>_state",
            values={"slot": HARM_SLOT_NUMBERS},
            field=_harm_state_field,
            save=_save_harm_state,
        ),
        EditPath(
            "harm<slot>_kind",
            values={"slot": HARM_SLOT_NUMBERS},
            field=_harm_kind_field,
            save=_save_harm_kind,
        ),
        EditPath("gear:<id>:condition", rows=gear_rows_of, field=_condition_field, save=_save_condition),
        EditPath(
            "program:<id>:compromised",
            rows=_programs,
            field=_compromised_field,
            save=_save_compromised,
        ),
    )
