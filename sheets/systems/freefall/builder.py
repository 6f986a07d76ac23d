"""The FREE/FALL builder: class, specialty, attributes, and the gear and program lists (formsets that grow a
row at a time without JavaScript). The kit page (kit.py) reuses the row forms and formset helpers."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from rules import freefall
from sheets.contract import SheetSystem, rules_error_to_validation

from .fields import ATTRIBUTES
from .models import FreeFallGear, FreeFallProgram, FreeFallSheet

GEAR_ROWS = 4
PROGRAM_ROWS = 3
MAX_GEAR = 20
MAX_PROGRAMS = 10

SMALL_NUMBER = {"class": "form-control-sm", "inputmode": "numeric"}


def _number(label: str, *, high: int = freefall.ATTRIBUTE_MAX) -> WholeNumberField:
    return WholeNumberField(
        label=label, min_value=0, max_value=high, required=False, widget=forms.NumberInput(attrs=SMALL_NUMBER)
    )


class GearRowForm(forms.Form):
    name = forms.CharField(
        max_length=freefall.NAME_MAX,
        required=False,
        label="Item",
        widget=forms.TextInput(attrs={"class": "form-control-sm"}),
    )
    binds = forms.ChoiceField(
        choices=[("", "Nothing")] + [(a.value, a.label) for a in freefall.Attribute],
        required=False,
        label="Binds",
        widget=forms.Select(attrs={"class": "form-select-sm"}),
    )
    binding = _number("Binding")
    av = _number("AV")
    dv = _number("DV")
    load_bearing = _number("Load Bearing")
    high_impact = forms.BooleanField(required=False, label="High Impact")
    piercing = forms.BooleanField(required=False, label="Piercing")
    hardened = forms.BooleanField(required=False, label="Hardened")
    attached_to = forms.CharField(
        max_length=freefall.NAME_MAX,
        required=False,
        label="Attached to",
        widget=forms.TextInput(attrs={"class": "form-control-sm", "placeholder": "a Load Bearing item"}),
    )

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        name = " ".join((data.get("name") or "").split())
        for number in ("binding", "av", "dv", "load_bearing"):
            data[number] = data.get(number) or 0
        data["attached_to"] = " ".join((data.get("attached_to") or "").split())
        anything = (
            any(data[n] for n in ("binding", "av", "dv", "load_bearing"))
            or any(data.get(flag) for flag in ("high_impact", "piercing", "hardened"))
            or data.get("binds")
            or data["attached_to"]
        )
        data["name"] = name
        data["empty"] = not name
        if not name:
            if anything:
                self.add_error("name", "Give this item a name, or clear the whole row.")
            return data
        if data["binding"] and not data.get("binds"):
            self.add_error("binds", f"{name} binds {data['binding']}: choose the attribute it binds.")
        if not data["binding"]:
            # An item that binds nothing binds no attribute; keeps the model's constraint honest.
            data["binds"] = ""
        return data

    def to_gear(self) -> freefall.Gear:
        data = self.cleaned_data
        return freefall.Gear(
            name=data["name"],
            binding=data["binding"],
            binds=data["binds"] or None,
            av=data["av"],
            dv=data["dv"],
            high_impact=bool(data.get("high_impact")),
            piercing=bool(data.get("piercing")),
            load_bearing=data["load_bearing"],
            hardened=bool(data.get("hardened")),
            attached_to=data["attached_to"] or None,
        )


class ProgramRowForm(forms.Form):
    name = forms.CharField(
        max_length=freefall.NAME_MAX,
        required=False,
        label="Program",
        widget=forms.TextInput(attrs={"class": "form-control-sm"}),
    )
    type = forms.ChoiceField(
        choices=[("", "-")]
        + [
            (t.value, f"{t.label} (binds double)" if t.binding_multiplier > 1 else t.label)
            for t in freefall.ProgramType
        ],
        required=False,
        label="Type",
        widget=forms.Select(attrs={"class": "form-select-sm"}),
    )
    tier = forms.ChoiceField(
        choices=[("", "-")]
        + [(t.value, f"{t.label} (+{t.bonus}, binds MIND {t.binding})") for t in freefall.ProgramTier],
        required=False,
        label="Tier",
        widget=forms.Select(attrs={"class": "form-select-sm"}),
    )

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        name = " ".join((data.get("name") or "").split())
        data["name"] = name
        data["empty"] = not name
        if not name:
            if data.get("type") or data.get("tier"):
                self.add_error("name", "Give this program a name, or clear the whole row.")
            return data
        if not data.get("type"):
            self.add_error("type", f"Choose {name}'s type.")
        if not data.get("tier"):
            self.add_error("tier", f"Choose {name}'s tier.")
        return data

    def to_program(self) -> freefall.Program:
        data = self.cleaned_data
        return freefall.Program(name=data["name"], type=data["type"], tier=data["tier"])


def name_key(name: str) -> str:
    """A gear or program name as rows are matched by it: spaces and case set aside."""
    return name.strip().casefold()


class BaseGearFormSet(forms.BaseFormSet):
    def clean(self):
        # Rows already refused are left out, so every other problem still shows in the same round.
        rows = [f for f in self.forms if not f.errors and f.cleaned_data and not f.cleaned_data.get("empty")]
        seen: set[str] = set()
        for row in rows:
            name = row.cleaned_data["name"]
            if name_key(name) in seen:
                row.add_error("name", f"Another item is already called {name}; give each a different name.")
            seen.add(name_key(name))
        carriers = {name_key(r.cleaned_data["name"]) for r in rows if r.cleaned_data.get("load_bearing")}
        for row in rows:
            target = row.cleaned_data.get("attached_to")
            if not target:
                continue
            if name_key(target) == name_key(row.cleaned_data["name"]):
                row.add_error("attached_to", "An item cannot be attached to itself.")
            elif name_key(target) not in carriers:
                row.add_error("attached_to", f"{target} is not a Load Bearing item in this list.")


class BaseProgramFormSet(forms.BaseFormSet):
    def clean(self):
        # A hack names its program, so two programs may not share a name.
        seen: set[str] = set()
        for row in self.forms:
            if row.errors or not row.cleaned_data or row.cleaned_data.get("empty"):
                continue
            name = row.cleaned_data["name"]
            if name_key(name) in seen:
                row.add_error(
                    "name", f"Another program is already called {name}; give each a different name."
                )
            seen.add(name_key(name))


GearFormSet = forms.formset_factory(
    GearRowForm,
    formset=BaseGearFormSet,
    extra=GEAR_ROWS,
    max_num=MAX_GEAR,
    absolute_max=MAX_GEAR,
    validate_max=True,
)
ProgramFormSet = forms.formset_factory(
    ProgramRowForm,
    formset=BaseProgramFormSet,
    extra=PROGRAM_ROWS,
    max_num=MAX_PROGRAMS,
    absolute_max=MAX_PROGRAMS,
    validate_max=True,
)


ADD_ROW = "add_row"  # the submit button that asks for one more row instead of saving


def rows_from(data, prefix: str, form_class: type[forms.Form], limit: int) -> list[dict[str, Any]] | None:
    """The rows a formset's POST holds, as initial values (None when its row count is unreadable)."""
    try:
        total = int(data.get(f"{prefix}-TOTAL_FORMS", ""))
    except ValueError:
        return None
    rows = []
    for index in range(max(0, min(total, limit))):
        row = {}
        for name, field in form_class.base_fields.items():
            key = f"{prefix}-{index}-{name}"
            row[name] = key in data if isinstance(field, forms.BooleanField) else data.get(key, "")
        rows.append(row)
    return rows


def grown_formsets(data, sets) -> dict[str, forms.BaseFormSet] | None:
    """When the "add a row" button was pressed: every formset redrawn unbound from what was typed, the
    one asked for with one more empty row (so nothing is saved and no message appears yet); else None.

    ``sets`` maps each prefix to (row form, formset base, row limit).
    """
    if data is None or data.get(ADD_ROW) not in sets:
        return None
    out = {}
    for prefix, (row_form, base, limit) in sets.items():
        rows = rows_from(data, prefix, row_form, limit)
        if rows is None:
            return None  # a broken list: let the bound form say so
        extra = 1 if prefix == data[ADD_ROW] and len(rows) < limit else 0
        formset_class = forms.formset_factory(
            row_form, formset=base, extra=extra, max_num=limit, absolute_max=limit, validate_max=True
        )
        out[prefix] = formset_class(initial=rows, prefix=prefix)
    return out


def formset_errors(form: forms.Form, key: str, formset, what: str) -> bool:
    """Copy a formset's problems into ``form``'s errors under ``key``; True if there were any."""
    try:
        valid = formset.is_valid()
    except ValidationError:
        valid = False
    if valid:
        return False
    if not formset.management_form.is_valid():
        form._errors[key] = form.error_class([f"The {what} list could not be read; reload the page."])
        return True
    messages = list(formset.non_form_errors())
    for index, row in enumerate(formset.forms, start=1):
        for name, errors in row.errors.items():
            label = row.fields[name].label if name in row.fields else ""
            messages += [f"Row {index}{f' ({label})' if label else ''}: {e}" for e in errors]
    form._errors[key] = form.error_class(messages)
    return True


def _attribute_field(attribute: freefall.Attribute) -> WholeNumberField:
    return WholeNumberField(
        label=attribute.label,
        min_value=freefall.ATTRIBUTE_MIN,
        max_value=freefall.ATTRIBUTE_MAX,
        initial=4,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


class FreeFallBuilderForm(forms.Form):
    name = forms.CharField(max_length=80)
    character_class = forms.CharField(
        max_length=freefall.NAME_MAX, label="Class", help_text="Your operator's line of work, in a few words."
    )
    specialty = forms.CharField(
        max_length=freefall.NAME_MAX,
        help_text="The talent your class brings, e.g. Infiltration. It lets you roll a specialized action "
        "without gear.",
    )
    body = _attribute_field(freefall.Attribute.BODY)
    mind = _attribute_field(freefall.Attribute.MIND)
    ghost = _attribute_field(freefall.Attribute.GHOST)
    notes = forms.CharField(
        required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}), label="Background"
    )

    def __init__(self, data=None, **kwargs):
        grown = grown_formsets(
            data,
            {
                "gear": (GearRowForm, BaseGearFormSet, MAX_GEAR),
                "programs": (ProgramRowForm, BaseProgramFormSet, MAX_PROGRAMS),
            },
        )
        if grown is not None:
            # Drawn again unbound: is_valid() is False, so the builder shows the page instead of saving.
            super().__init__(initial={name: data.get(name) for name in self.base_fields}, **kwargs)
            self.gear_formset, self.program_formset = grown["gear"], grown["programs"]
            return
        super().__init__(data, **kwargs)
        self.gear_formset = GearFormSet(data, prefix="gear")
        self.program_formset = ProgramFormSet(data, prefix="programs")

    def _formset_errors(self, key: str, formset, what: str) -> bool:
        return formset_errors(self, key, formset, what)

    def clean(self):
        data = super().clean()
        gear_bad = self._formset_errors("gear", self.gear_formset, "gear")
        programs_bad = self._formset_errors("programs", self.program_formset, "program")
        if self.errors or gear_bad or programs_bad:
            return data
        gear_rows = [f for f in self.gear_formset.forms if not f.cleaned_data.get("empty", True)]
        program_rows = [f for f in self.program_formset.forms if not f.cleaned_data.get("empty", True)]
        try:
            data["build"] = freefall.validate_build(
                permanent={a: data[a] for a in ATTRIBUTES},
                character_class=data["character_class"],
                specialty=data["specialty"],
                gear=[row.to_gear() for row in gear_rows],
                programs=[row.to_program() for row in program_rows],
            )
        except freefall.FreeFallError as error:
            if error.field in ("gear", "programs"):
                self._errors[error.field] = self.error_class([str(error)])
            else:
                raise rules_error_to_validation(error) from None
        return data


def builder_form_data(
    *,
    name: str,
    character_class: str,
    specialty: str,
    body: Any,
    mind: Any,
    ghost: Any,
    gear: Any = (),
    programs: Any = (),
    notes: str = "",
) -> dict[str, Any]:
    """Flat builder form data (with the formsets' management fields) from structured values."""
    data: dict[str, Any] = {
        "name": name,
        "character_class": character_class,
        "specialty": specialty,
        "body": body,
        "mind": mind,
        "ghost": ghost,
        "notes": notes,
    }
    for prefix, rows, fields in (
        ("gear", gear, GearRowForm.base_fields),
        ("programs", programs, ProgramRowForm.base_fields),
    ):
        if not isinstance(rows, list | tuple) or not all(isinstance(row, dict) for row in rows):
            # Leave the management form unreadable so the builder says the list is broken.
            data[f"{prefix}-TOTAL_FORMS"] = "unreadable"
            continue
        data[f"{prefix}-TOTAL_FORMS"] = str(len(rows))
        data[f"{prefix}-INITIAL_FORMS"] = "0"
        for index, row in enumerate(rows):
            for field_name in fields:
                value = row.get(field_name)
                if value in (None, False, ""):
                    continue
                data[f"{prefix}-{index}-{field_name}"] = value
    return data


class FreeFallBuilder(SheetSystem):
    """Character creation: the builder form, the rows it creates, the demo characters."""

    # Reference tables the builder shows beside the form.
    attributes = tuple(freefall.Attribute)
    tiers = tuple(freefall.ProgramTier)
    gear_tags = tuple(freefall.GEAR_TAGS.values())

    def builder_form(self, *, campaign, data=None, trusted=False):
        return FreeFallBuilderForm(data)

    def create(self, *, character, cleaned_data):
        build: freefall.Build = cleaned_data["build"]
        FreeFallSheet.objects.create(
            character=character,
            character_class=build.character_class,
            specialty=build.specialty,
            body_perm=build.permanent.body,
            mind_perm=build.permanent.mind,
            ghost_perm=build.permanent.ghost,
        )
        saved = {}
        for item in build.gear:
            saved[name_key(item.name)] = FreeFallGear.objects.create(
                character=character,
                name=item.name,
                binds=item.binds.value if item.binds and item.binding else "",
                binding=item.binding,
                av=item.av,
                dv=item.dv,
                high_impact=item.high_impact,
                piercing=item.piercing,
                hardened=item.hardened,
                load_bearing=item.load_bearing,
            )
        for item in build.gear:
            if item.attached_to:
                row = saved[name_key(item.name)]
                row.attached_to = saved[name_key(item.attached_to)]
                row.save(update_fields=["attached_to"])
        FreeFallProgram.objects.bulk_create(
            FreeFallProgram(character=character, name=p.name, type=p.type.value, tier=p.tier.value)
            for p in build.programs
        )

    def demo_form_data(self):
        return [
            builder_form_data(
                name="Vesna Kade",
                character_class="Breacher",
                specialty="Infiltration",
                body=5,
                mind=4,
                ghost=6,
                gear=[
                    {"name": "Mag-picks", "binds": "ghost", "binding": 1},
                    {"name": "Carbon weave vest", "binds": "body", "binding": 1, "av": 2, "hardened": True},
                    {"name": "Rail pistol", "binds": "body", "binding": 1, "dv": 3, "piercing": True},
                ],
                programs=[{"name": "Needle", "type": "spike", "tier": "steel"}],
                notes="Gets in first, leaves last. Owes the Lattice syndicate one more job.",
            ),
            builder_form_data(
                name="Osei Marr",
                character_class="Netrunner",
                specialty="Intrusion",
                body=3,
                mind=9,
                ghost=4,
                gear=[
                    {"name": "Rig harness", "binds": "body", "binding": 1, "load_bearing": 2},
                    {"name": "Cortex deck", "binds": "mind", "binding": 1, "attached_to": "Rig harness"},
                    {"name": "Shock baton", "dv": 2, "high_impact": True},
                ],
                programs=[
                    {"name": "Icebreaker", "type": "spike", "tier": "chrome"},
                    {"name": "Firewall", "type": "counter", "tier": "red"},
                    {"name": "Puppeteer", "type": "pwn", "tier": "red"},
                ],
                notes="Hears the net as static. Never unplugs for long.",
            ),
        ]
