"""FREE/FALL A5 on the sheet: a d20 pool shrunk by harm, attributes bound by gear and programs, hacking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField, row_id
from rules import freefall as rules
from rules.dice import Roller, RulesError
from sheets.contract import (
    Bar,
    Die,
    EditableField,
    RollButton,
    RollResult,
    SheetSystem,
    format_percent,
    rules_error_to_validation,
)
from sheets.policy import Kind

from .models import HARM_KIND_CHOICES, HARM_STATE_CHOICES, FreeFallGear, FreeFallProgram, FreeFallSheet

ATTRIBUTES = tuple(a.value for a in rules.Attribute)
ATTRIBUTE_LABELS = {a.value: a.label for a in rules.Attribute}
OUTCOME_TONES = {rules.FAILURE: "secondary", rules.SUCCESS: "info", rules.GREATER: "success"}
OUTCOME_LABELS = {rules.FAILURE: "failure", rules.SUCCESS: "success", rules.GREATER: "greater success"}
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
GEAR_ROWS = 4
PROGRAM_ROWS = 3
MAX_GEAR = 20
MAX_PROGRAMS = 10

SMALL_NUMBER = {"class": "form-control-sm", "inputmode": "numeric"}


def _number(label: str, *, high: int = rules.ATTRIBUTE_MAX) -> WholeNumberField:
    return WholeNumberField(
        label=label, min_value=0, max_value=high, required=False, widget=forms.NumberInput(attrs=SMALL_NUMBER)
    )


# ----- builder -------------------------------------------------------------------------------------


class GearRowForm(forms.Form):
    name = forms.CharField(
        max_length=rules.NAME_MAX,
        required=False,
        label="Item",
        widget=forms.TextInput(attrs={"class": "form-control-sm"}),
    )
    binds = forms.ChoiceField(
        choices=[("", "Nothing")] + [(a.value, a.label) for a in rules.Attribute],
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
        max_length=rules.NAME_MAX,
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

    def to_gear(self) -> rules.Gear:
        data = self.cleaned_data
        return rules.Gear(
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
        max_length=rules.NAME_MAX,
        required=False,
        label="Program",
        widget=forms.TextInput(attrs={"class": "form-control-sm"}),
    )
    type = forms.ChoiceField(
        choices=[("", "-")]
        + [
            (t.value, f"{t.label} (binds double)" if t.binding_multiplier > 1 else t.label)
            for t in rules.ProgramType
        ],
        required=False,
        label="Type",
        widget=forms.Select(attrs={"class": "form-select-sm"}),
    )
    tier = forms.ChoiceField(
        choices=[("", "-")]
        + [(t.value, f"{t.label} (+{t.bonus}, binds MIND {t.binding})") for t in rules.ProgramTier],
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

    def to_program(self) -> rules.Program:
        data = self.cleaned_data
        return rules.Program(name=data["name"], type=data["type"], tier=data["tier"])


def _key(name: str) -> str:
    return name.strip().casefold()


class BaseGearFormSet(forms.BaseFormSet):
    def clean(self):
        # Rows already refused are left out, so every other problem still shows in the same round.
        rows = [f for f in self.forms if not f.errors and f.cleaned_data and not f.cleaned_data.get("empty")]
        seen: set[str] = set()
        for row in rows:
            name = row.cleaned_data["name"]
            if _key(name) in seen:
                row.add_error("name", f"Another item is already called {name}; give each a different name.")
            seen.add(_key(name))
        carriers = {_key(r.cleaned_data["name"]) for r in rows if r.cleaned_data.get("load_bearing")}
        for row in rows:
            target = row.cleaned_data.get("attached_to")
            if not target:
                continue
            if _key(target) == _key(row.cleaned_data["name"]):
                row.add_error("attached_to", "An item cannot be attached to itself.")
            elif _key(target) not in carriers:
                row.add_error("attached_to", f"{target} is not a Load Bearing item in this list.")


class BaseProgramFormSet(forms.BaseFormSet):
    def clean(self):
        # A hack names its program, so two programs may not share a name.
        seen: set[str] = set()
        for row in self.forms:
            if row.errors or not row.cleaned_data or row.cleaned_data.get("empty"):
                continue
            name = row.cleaned_data["name"]
            if _key(name) in seen:
                row.add_error(
                    "name", f"Another program is already called {name}; give each a different name."
                )
            seen.add(_key(name))


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


def _attribute_field(attribute: rules.Attribute) -> WholeNumberField:
    return WholeNumberField(
        label=attribute.label,
        min_value=rules.ATTRIBUTE_MIN,
        max_value=rules.ATTRIBUTE_MAX,
        initial=4,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


class FreeFallBuilderForm(forms.Form):
    name = forms.CharField(max_length=80)
    character_class = forms.CharField(
        max_length=rules.NAME_MAX, label="Class", help_text="Your operator's line of work, in a few words."
    )
    specialty = forms.CharField(
        max_length=rules.NAME_MAX,
        help_text="The talent your class brings, e.g. Infiltration. It lets you roll a specialized action "
        "without gear.",
    )
    body = _attribute_field(rules.Attribute.BODY)
    mind = _attribute_field(rules.Attribute.MIND)
    ghost = _attribute_field(rules.Attribute.GHOST)
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
            data["build"] = rules.validate_build(
                permanent={a: data[a] for a in ATTRIBUTES},
                character_class=data["character_class"],
                specialty=data["specialty"],
                gear=[row.to_gear() for row in gear_rows],
                programs=[row.to_program() for row in program_rows],
            )
        except rules.FreeFallError as error:
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


# ----- sheet ---------------------------------------------------------------------------------------


class FreeFallOptionsForm(forms.Form):
    tn = forms.ChoiceField(
        label="Target number",
        choices=[(d.value, f"{d.label} (TN {d.tn}+)") for d in rules.Difficulty],
        initial=rules.Difficulty.CHALLENGING.value,
        widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
    )
    dice = WholeNumberField(
        label="Dice assigned",
        required=False,
        min_value=1,
        widget=forms.NumberInput(attrs={"class": "form-control form-control-sm", "inputmode": "numeric"}),
    )
    conflict = forms.BooleanField(required=False, initial=True, label="In a conflict (a 1 complicates)")

    def __init__(self, *args, pool: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.pool = pool
        self.fields["dice"].max_value = pool
        self.fields["dice"].widget.attrs.update(min=1, max=pool, placeholder=f"all {pool}")
        self.fields["dice"].help_text = f"Empty: the whole pool ({pool})."

    def clean_dice(self):
        dice = self.cleaned_data.get("dice")
        if dice is not None and dice > self.pool:
            raise ValidationError(
                f"Your pool is {self.pool} dice right now; assign at most {self.pool}.", code="max_value"
            )
        return dice


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


def _tags(item: rules.Gear) -> list[tuple[str, str]]:
    """Each tag's name (with its number) and what it does, for the gear list."""
    out = []
    for tag in item.tags:
        name, text = rules.GEAR_TAGS[tag]
        if tag is rules.GearTag.ATTRIBUTE_BINDING:
            name = f"Binding {item.binding} {item.binds.label if item.binds else ''}".strip()
        elif tag is rules.GearTag.LOAD_BEARING:
            name = f"Load Bearing {item.load_bearing}"
        out.append((name, text))
    return out


class FreeFallSystem(SheetSystem):
    key = "freefall"
    label = "FREE/FALL A5"
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
    demo_campaign = ("Neon Drop", "A heist in an arcology that never sleeps. FREE/FALL demo table.")
    template = "freefall/sheet.html"
    builder_template = "freefall/builder.html"
    stylesheet = "freefall/freefall.css"
    # Reference tables the builder shows beside the form.
    attributes = tuple(rules.Attribute)
    tiers = tuple(rules.ProgramTier)
    gear_tags = tuple(rules.GEAR_TAGS.values())

    # ----- builder ---------------------------------------------------------------------------------

    def builder_form(self, *, campaign, data=None, trusted=False):
        return FreeFallBuilderForm(data)

    def create(self, *, character, cleaned_data):
        build: rules.Build = cleaned_data["build"]
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
            saved[_key(item.name)] = FreeFallGear.objects.create(
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
                row = saved[_key(item.name)]
                row.attached_to = saved[_key(item.attached_to)]
                row.save(update_fields=["attached_to"])
        FreeFallProgram.objects.bulk_create(
            FreeFallProgram(character=character, name=p.name, type=p.type.value, tier=p.tier.value)
            for p in build.programs
        )

    def import_form_data(self, data):
        return builder_form_data(
            name="",
            character_class=data.get("character_class", ""),
            specialty=data.get("specialty", ""),
            body=data.get("body"),
            mind=data.get("mind"),
            ghost=data.get("ghost"),
            gear=data.get("gear", []),
            programs=data.get("programs", []),
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

    # ----- sheet -----------------------------------------------------------------------------------

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

    def context(self, character):
        sheet = character.freefall
        gear_rows = _gear_rows(character)
        state = self.state(character, gear_rows=gear_rows)
        programs = list(character.ff_programs.all())
        names = {row.pk: row.name for row in gear_rows}
        return {
            "sheet": sheet,
            "ff": state,
            "attributes": [
                {
                    "key": a.value,
                    "label": a.label,
                    "covers": a.covers,
                    "perm": self.field(character, f"{a.value}_perm"),
                    "spent": self.field(character, f"{a.value}_spent"),
                    "binding": state.binding[a],
                    "current_max": state.current_max[a],
                    "current": state.current[a],
                }
                for a in rules.Attribute
            ],
            "harm_slots": [
                {
                    "index": slot,
                    "state": self.field(character, f"harm{slot}_state"),
                    "kind": self.field(character, f"harm{slot}_kind"),
                    "filled": getattr(sheet, f"harm{slot}_state") != rules.SlotState.EMPTY,
                }
                for slot in range(1, rules.HARM_SLOTS + 1)
            ],
            "gear_items": [
                {
                    "row": row,
                    "tags": _tags(item),
                    "attached_to": names.get(row.attached_to_id, ""),
                    "condition": self.field(character, f"gear:{row.pk}:condition"),
                }
                for row, item in zip(gear_rows, state.gear, strict=True)
            ],
            "programs": [
                {
                    "row": row,
                    "type": rules.ProgramType(row.type),
                    "tier": rules.ProgramTier(row.tier),
                    "binding": rules.program_binding(row.type, row.tier),
                    "compromised": self.field(character, f"program:{row.pk}:compromised"),
                }
                for row in programs
            ],
            "sheet_oob_template": "freefall/_live.html#oob",
        }

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

    # ----- rolls -----------------------------------------------------------------------------------

    def options_form(self, *, character, data=None):
        # No character: the GM's roll-request form; each answering sheet checks its own pool.
        pool = self.state(character).pool if character is not None else rules.pool(0)
        return FreeFallOptionsForm(data, pool=pool)

    @staticmethod
    def _roll_settings(options, pool: int) -> tuple[rules.Difficulty, int, bool]:
        try:
            difficulty = rules.Difficulty(options.get("tn") or rules.Difficulty.CHALLENGING)
        except ValueError:
            raise ValidationError("Choose a target number from the list.") from None
        dice = options.get("dice") or pool
        if dice > pool:
            raise ValidationError(f"Your pool is {pool} dice right now; assign at most {pool}.")
        return difficulty, dice, bool(options.get("conflict"))

    def buttons(self, character, options):
        state = self.state(character)
        try:
            difficulty, dice, conflict = self._roll_settings(options, state.pool)
        except ValidationError:
            return []
        tn = difficulty.tn
        buttons = []
        plain = rules.odds(dice, tn, conflict=conflict)
        for a in rules.Attribute:
            buttons.append(
                RollButton(
                    key=f"attribute:{a.value}",
                    label=f"{a.label} {state.current[a]}",
                    chance=plain.at_least_success,
                    detail=f"{dice}d20 vs TN {tn} · {format_percent(plain.complication)} complication",
                    picture=self._bars(plain),
                    group="Attributes",
                )
            )
        for row in character.ff_programs.all():
            program = _engine_program(row)
            if not program.active:
                buttons.append(
                    RollButton(
                        key=f"program:{row.pk}",
                        label=f"{row.name} (compromised)",
                        chance=None,
                        detail="Out for the rest of the mission.",
                        group="Programs",
                    )
                )
                continue
            hack = rules.hack_odds(dice, tn, program=program, conflict=conflict)
            buttons.append(
                RollButton(
                    key=f"program:{row.pk}",
                    label=f"{row.name} {program.tier.label}",
                    chance=hack.at_least_success,
                    detail=f"{dice}d20{f'+{program.bonus}' if program.bonus else ''} vs TN {tn} · "
                    f"{format_percent(hack.natural_one)} compromise",
                    picture=self._bars(hack),
                    group="Programs",
                )
            )
        return buttons

    @staticmethod
    def _bars(odds: rules.Odds) -> tuple[Bar, ...]:
        return tuple(Bar(OUTCOME_LABELS[o], odds.outcomes[o], OUTCOME_TONES[o]) for o in rules.OUTCOMES)

    def roll(self, character, key, options, roller: Roller):
        state = self.state(character)
        kind, _, ident = key.partition(":")
        row = None
        if kind == "attribute" and ident in ATTRIBUTES:
            label = f"{ATTRIBUTE_LABELS[ident]} {state.current[ident]}"
        elif kind == "program" and row_id(ident):
            row = next((r for r in character.ff_programs.all() if r.pk == row_id(ident)), None)
            if row is None:
                raise KeyError(key)
            label = f"{row.name} ({row.type.upper()} {row.tier.upper()})"
        else:
            raise KeyError(key)
        difficulty, dice, conflict = self._roll_settings(options, state.pool)
        tn = difficulty.tn
        changes = []
        try:
            if row is None:
                odds = rules.odds(dice, tn, conflict=conflict)
                result = rules.roll_check(roller, dice=dice, tn=tn, conflict=conflict)
            else:
                program = _engine_program(row)
                odds = rules.hack_odds(dice, tn, program=program, conflict=conflict)
                hack = rules.roll_hack(roller, dice=dice, tn=tn, program=program, conflict=conflict)
                result = hack.check
                if hack.compromised:
                    row.compromised = True
                    row.save(update_fields=["compromised"])
                    changes.append(f"{row.name} compromised (a natural 1): out for the rest of the mission")
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        notes = []
        if result.crit:
            notes.append("natural 20")
        if result.complication:
            notes.append("complication")
        bonus = f"+{result.bonus}" if result.bonus else ""
        successes = f"{result.successes} success{'es' if result.successes != 1 else ''}"
        summary = f"{dice}d20{bonus} vs TN {tn}: {successes}, {OUTCOME_LABELS[result.outcome]}"
        if notes:
            summary += f" ({', '.join(notes)})"
        return RollResult(
            label=label,
            request={
                "key": key,
                "tn": tn,
                "difficulty": difficulty.value,
                "dice": dice,
                "pool": state.pool,
                "conflict": conflict,
                "bonus": result.bonus,
            },
            dice=tuple(Die(face, sides=rules.DIE) for face in result.faces),
            outcome=result.outcome,
            outcome_label=OUTCOME_LABELS[result.outcome],
            summary=summary,
            chance=odds.at_least_success,
            # No total: the dice are not summed, each is read against the TN (successes are in extra).
            total=None,
            changes=tuple(changes),
            extra={
                "successes": result.successes,
                "tn": tn,
                "bonus": result.bonus,
                "crit": result.crit,
                "complication": result.complication,
            },
        )

    # ----- roll requests: the GM names the action (an attribute, or a hack with a program type); the
    # TN and the dice assigned are the request's options, checked against each answering sheet's pool.

    def common_roll_keys(self):
        return [(f"attribute:{a.value}", f"{a.label} check") for a in rules.Attribute] + [
            (f"hack:{t.value}", f"Hack with a {t.value.upper()} program") for t in rules.ProgramType
        ]

    def request_roll_key(self, character, key):
        # A hack asked for by program type: the sheet's first program of that type still running.
        kind, _, program_type = key.partition(":")
        if kind != "hack":
            return key
        row = next(
            (p for p in character.ff_programs.all() if p.type == program_type and not p.compromised), None
        )
        return f"program:{row.pk}" if row is not None else key

    def answer_text(self, result):
        successes = result.get("successes")
        if successes is None:
            return super().answer_text(result)
        plural = "es" if successes != 1 else ""
        return f"{successes} success{plural} vs TN {result.get('tn')}, {result.get('outcome_label')}"

    # ----- export and party ------------------------------------------------------------------------

    def export_data(self, character):
        sheet = character.freefall
        gear_rows = _gear_rows(character)
        names = {row.pk: row.name for row in gear_rows}
        return {
            "character_class": sheet.character_class,
            "specialty": sheet.specialty,
            "body": sheet.body_perm,
            "mind": sheet.mind_perm,
            "ghost": sheet.ghost_perm,
            "gear": [
                {
                    "name": row.name,
                    "binds": row.binds,
                    "binding": row.binding,
                    "av": row.av,
                    "dv": row.dv,
                    "high_impact": row.high_impact,
                    "piercing": row.piercing,
                    "hardened": row.hardened,
                    "load_bearing": row.load_bearing,
                    "attached_to": names.get(row.attached_to_id, ""),
                }
                for row in gear_rows
            ],
            "programs": [
                {"name": p.name, "type": p.type, "tier": p.tier} for p in character.ff_programs.all()
            ],
        }

    def play_problems(self, rows, campaign):
        sheet = rows["freefall"]
        problems = []
        for attribute in ATTRIBUTES:
            perm, spent = getattr(sheet, f"{attribute}_perm"), getattr(sheet, f"{attribute}_spent")
            label = ATTRIBUTE_LABELS[attribute]
            if perm > rules.ATTRIBUTE_MAX:
                problems.append(f"Permanent {label} ({perm}) is above {rules.ATTRIBUTE_MAX}")
            if spent > perm:
                problems.append(f"{label} spent ({spent}) is more than permanent {label} ({perm})")
        for slot in range(1, rules.HARM_SLOTS + 1):
            state, kind = getattr(sheet, f"harm{slot}_state"), getattr(sheet, f"harm{slot}_kind")
            try:
                rules.HarmSlot(state, kind or None)
            except RulesError as error:
                problems.append(f"Harm slot {slot}: {error}")
        return problems

    def party_summary(self, character):
        state = self.state(character)
        return f"Harm {state.filled}/{rules.HARM_SLOTS} · pool {state.pool}"


system = FreeFallSystem()
