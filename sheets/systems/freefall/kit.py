"""Between scenes: gear and programs changed after creation (within the builder's rules), and rest.

The kit form is the builder's two formsets with each saved row's id and a Remove box. It is checked the
way the builder checks a new character (``rules.validate_build`` against the sheet's permanent
attributes), plus what only an existing sheet has: a broken item's binding remains (FREE/FALL l.118-126,
"Binding Cost REMAINS"), so it can be neither removed nor bound less until it is repaired.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.forms import IdField, WholeNumberField
from rules import freefall
from sheets.history import recorded
from sheets.services import character_change

from .builder import (
    MAX_GEAR,
    MAX_PROGRAMS,
    BaseGearFormSet,
    BaseProgramFormSet,
    GearRowForm,
    ProgramRowForm,
    formset_errors,
    grown_formsets,
    name_key,
)
from .fields import CONDITION_TO_ENGINE, engine_gear
from .models import FreeFallGear, FreeFallProgram
from .sheet import system


class KitGearRowForm(GearRowForm):
    id = IdField(required=False, widget=forms.HiddenInput)
    remove = forms.BooleanField(required=False, label="Remove")

    def clean(self):
        if self.cleaned_data.get("remove"):
            # A removed row is not checked: it is going away.
            self.cleaned_data["empty"] = True
            return self.cleaned_data
        return super().clean()


class KitProgramRowForm(ProgramRowForm):
    id = IdField(required=False, widget=forms.HiddenInput)
    remove = forms.BooleanField(required=False, label="Remove")

    def clean(self):
        if self.cleaned_data.get("remove"):
            self.cleaned_data["empty"] = True
            return self.cleaned_data
        return super().clean()


def _formset(row_form, base, limit: int, extra: int):
    return forms.formset_factory(
        row_form, formset=base, extra=extra, max_num=limit, absolute_max=limit, validate_max=True
    )


ENGINE_TO_CONDITION = {engine: model for model, engine in CONDITION_TO_ENGINE.items()}
GEAR_SET = (KitGearRowForm, BaseGearFormSet, MAX_GEAR)
PROGRAM_SET = (KitProgramRowForm, BaseProgramFormSet, MAX_PROGRAMS)


def _gear_initial(character) -> list[dict[str, Any]]:
    rows = list(character.ff_gear.order_by("pk"))
    names = {row.pk: row.name for row in rows}
    return [
        {
            "id": row.pk,
            "name": row.name,
            "binds": row.binds,
            "binding": row.binding or None,
            "av": row.av or None,
            "dv": row.dv or None,
            "load_bearing": row.load_bearing or None,
            "high_impact": row.high_impact,
            "piercing": row.piercing,
            "hardened": row.hardened,
            "attached_to": names.get(row.attached_to_id, ""),
        }
        for row in rows
    ]


def _program_initial(character) -> list[dict[str, Any]]:
    return [
        {"id": row.pk, "name": row.name, "type": row.type, "tier": row.tier}
        for row in character.ff_programs.order_by("pk")
    ]


class FreeFallKitForm(forms.Form):
    """The sheet's gear and programs; ``version`` is the sheet's version the page was drawn at."""

    version = WholeNumberField(min_value=0, widget=forms.HiddenInput)

    def __init__(self, character, data=None):
        self.character = character
        grown = grown_formsets(data, {"gear": GEAR_SET, "programs": PROGRAM_SET})
        if grown is not None:
            super().__init__(initial={"version": data.get("version")})
            self.gear_formset, self.program_formset = grown["gear"], grown["programs"]
        elif data is None:
            super().__init__(initial={"version": character.version})
            # One empty row each to add to; "Add a row" gives more.
            self.gear_formset = _formset(*GEAR_SET, extra=1)(initial=_gear_initial(character), prefix="gear")
            self.program_formset = _formset(*PROGRAM_SET, extra=1)(
                initial=_program_initial(character), prefix="programs"
            )
        else:
            super().__init__(data)
            self.gear_formset = _formset(*GEAR_SET, extra=0)(data, prefix="gear")
            self.program_formset = _formset(*PROGRAM_SET, extra=0)(data, prefix="programs")

    @staticmethod
    def _kept(formset) -> list[forms.Form]:
        return [f for f in formset.forms if f.cleaned_data and not f.cleaned_data.get("empty", True)]

    def clean(self):
        data = super().clean()
        gear_bad = formset_errors(self, "gear", self.gear_formset, "gear")
        programs_bad = formset_errors(self, "programs", self.program_formset, "program")
        if self.errors or gear_bad or programs_bad:
            return data
        saved_gear = {row.pk: row for row in self.character.ff_gear.all()}
        saved_programs = {row.pk: row for row in self.character.ff_programs.all()}
        problems = []
        for what, formset, saved in (
            ("gear", self.gear_formset, saved_gear),
            ("programs", self.program_formset, saved_programs),
        ):
            idents = [(row.cleaned_data or {}).get("id") for row in formset.forms]
            idents = [ident for ident in idents if ident is not None]
            if any(ident not in saved for ident in idents) or len(set(idents)) != len(idents):
                problems.append((what, "A row on this page is no longer on the sheet; reload the page."))
        kept_gear = {f.cleaned_data.get("id"): f for f in self._kept(self.gear_formset)}
        for pk, row in saved_gear.items():
            if row.condition != FreeFallGear.Condition.BROKEN:
                continue
            form = kept_gear.get(pk)
            if form is None:
                problems.append(
                    ("gear", f"{row.name} is broken and its binding remains: repair it before removing it.")
                )
            elif (
                form.cleaned_data["binding"] < row.binding or (form.cleaned_data["binds"] or "") != row.binds
            ):
                problems.append(
                    (
                        "gear",
                        f"{row.name} is broken and its binding remains: it cannot bind less until repaired.",
                    )
                )
        for what, message in problems:
            self._errors.setdefault(what, self.error_class()).append(message)
        if problems:
            return data
        sheet = self.character.freefall
        try:
            data["build"] = freefall.validate_build(
                permanent={a.value: getattr(sheet, f"{a.value}_perm") for a in freefall.Attribute},
                character_class=sheet.character_class,
                specialty=sheet.specialty,
                gear=[f.to_gear() for f in self._kept(self.gear_formset)],
                programs=[f.to_program() for f in self._kept(self.program_formset)],
            )
        except freefall.FreeFallError as error:
            self.add_error(None, str(error))
        return data


def _gear_values(form: KitGearRowForm) -> dict[str, Any]:
    data = form.cleaned_data
    return {
        "name": data["name"],
        "binds": data["binds"] if data["binding"] else "",
        "binding": data["binding"],
        "av": data["av"],
        "dv": data["dv"],
        "load_bearing": data["load_bearing"],
        "high_impact": bool(data.get("high_impact")),
        "piercing": bool(data.get("piercing")),
        "hardened": bool(data.get("hardened")),
    }


@transaction.atomic
def kit_update(*, character, form: FreeFallKitForm, author) -> None:
    """Save a valid kit form: rows changed in place (keeping condition and compromise), added and removed,
    as one change in the sheet's history. Spent points never exceed the new maximum."""
    character.claim_version(form.cleaned_data["version"])  # StaleVersion when the sheet moved on
    with recorded(character, author=author, reason="Gear and programs changed"):
        saved_gear = {row.pk: row for row in character.ff_gear.all()}
        kept = FreeFallKitForm._kept(form.gear_formset)
        keep_ids = {f.cleaned_data.get("id") for f in kept}
        character.ff_gear.exclude(pk__in=[pk for pk in keep_ids if pk]).delete()
        by_name = {}
        for f in kept:
            values = _gear_values(f)
            row = saved_gear.get(f.cleaned_data.get("id"))
            if row is None:
                row = FreeFallGear.objects.create(character=character, **values)
            else:
                for name, value in values.items():
                    setattr(row, name, value)
            by_name[name_key(row.name)] = (row, f.cleaned_data["attached_to"])
        for row, attached_to in by_name.values():
            row.attached_to = by_name[name_key(attached_to)][0] if attached_to else None
            row.save()
        saved_programs = {row.pk: row for row in character.ff_programs.all()}
        kept = FreeFallKitForm._kept(form.program_formset)
        keep_ids = {f.cleaned_data.get("id") for f in kept}
        character.ff_programs.exclude(pk__in=[pk for pk in keep_ids if pk]).delete()
        for f in kept:
            values = {name: f.cleaned_data[name] for name in ("name", "type", "tier")}
            row = saved_programs.get(f.cleaned_data.get("id"))
            if row is None:
                FreeFallProgram.objects.create(character=character, **values)
            else:
                for name, value in values.items():
                    setattr(row, name, value)
                row.save()
        build: freefall.Build = form.cleaned_data["build"]
        sheet = character.freefall
        for a in freefall.Attribute:
            path = f"{a.value}_spent"
            setattr(sheet, path, min(getattr(sheet, path), max(0, build.current_max[a])))
        sheet.save(update_fields=[f"{a.value}_spent" for a in freefall.Attribute])


def repair(*, character, gear_id: int, author, seen_version: int | None = None) -> FreeFallGear:
    """Repair a faulty or broken item back to intact (``rules.repair_gear``). The seed sets no cost and no
    roll for it, so none is asked: the GM says when the fiction allows it. Recorded in the history."""
    row = character.ff_gear.filter(pk=gear_id).first()
    if row is None:
        raise ValidationError("That item is no longer on the sheet; reload the page.")
    try:
        repaired = freefall.repair_gear(engine_gear([row])[0])
    except freefall.FreeFallError as error:
        raise ValidationError(str(error)) from None
    before = row.get_condition_display().lower()
    reason = f"Repaired {row.name} ({before} to intact)"
    with character_change(character=character, author=author, reason=reason, seen_version=seen_version):
        row.condition = ENGINE_TO_CONDITION[repaired.condition]
        row.save(update_fields=["condition"])
    return row


def spend(*, character, attribute: str, author, seen_version: int | None = None) -> int:
    """Spend 1 current point of ``attribute`` outside an encounter: to force a check or negate a level of
    harm (FREE/FALL l.59-63). The player's way to spend; typing "spent" is the GM's. The points left."""
    try:
        which = freefall.Attribute(attribute)
    except ValueError:
        raise ValidationError("Choose BODY, MIND or GHOST to spend.") from None
    current = system.state(character).current[which]
    if current <= 0:
        raise ValidationError(f"{which.label} has no current points left to spend; rest to get them back.")
    path = f"{which.value}_spent"
    sheet = character.freefall
    reason = f"Spent 1 {which.label}"
    with character_change(character=character, author=author, reason=reason, seen_version=seen_version):
        setattr(sheet, path, getattr(sheet, path) + 1)
        sheet.save(update_fields=[path])
    return current - 1


def rest(*, character, author, seen_version: int | None = None) -> bool:
    """Rest: temporary harm clears ("Clears with Rest", l.100) and spent points come back (the seed says
    not when; rest is when a GM would give them). Permanent harm stays. False when nothing changed."""
    sheet = character.freefall
    track = freefall.rest(system.state(character).track)
    fields = [f"{a.value}_spent" for a in freefall.Attribute]
    changing = character_change(character=character, author=author, reason="Rest", seen_version=seen_version)
    with changing as record:
        for a in freefall.Attribute:
            setattr(sheet, f"{a.value}_spent", 0)
        for slot, harm in enumerate(track.slots, start=1):
            setattr(sheet, f"harm{slot}_state", harm.state.value)
            setattr(sheet, f"harm{slot}_kind", harm.kind.value if harm.kind else "")
            fields += [f"harm{slot}_state", f"harm{slot}_kind"]
        sheet.save(update_fields=fields)
    return record["change"] is not None
