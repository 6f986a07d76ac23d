"""Triad fights, the inputs: the quick NPC's numbers, each action's form, and the small readers of a
character's traits and dice that every part of the fight shares."""

from __future__ import annotations

from django import forms

from campaigns.forms import WholeNumberField
from rules import triad
from sheets.combat import EncounterError
from sheets.contract import Die

from .models import TriadTrait

ABILITY_CHOICES = [(a, a.title()) for a in triad.ABILITIES]
WEAPON_CHOICES = [("", "None")] + [(k, f"{t.name} ({t.points})") for k, t in triad.WEAPONS.items()]
ARMOR_CHOICES = [(k, f"{t.name} ({t.points})") for k, t in triad.ARMOR.items()]
#: What a kind of attack hurts: Body for physical, Mind for mental, Spirit for emotional or psychic.
KIND_CHOICES = [
    (triad.BODY, "Physical (hurts Body)"),
    (triad.MIND, "Mental (hurts Mind)"),
    (triad.SPIRIT, "Emotional or psychic (hurts Spirit)"),
]
KIND_LABELS = {triad.BODY: "physical", triad.MIND: "mental", triad.SPIRIT: "emotional"}
#: What an attack may do instead of damage, declared before the roll (Triad l.125, l.191).
INTENT_CHOICES = [
    ("", "Damage"),
    (triad.GRAPPLE, "Grapple (disadvantage on its Body tasks until it breaks free)"),
    (triad.DISARM, "Disarm (knock its weapon away)"),
    (triad.TRIP, "Trip (it falls prone)"),
    (triad.STUN, "Stunning strike (no damage: disadvantage on its next turn)"),
]


class TriadNpcForm(forms.Form):
    difficulty = WholeNumberField(
        min_value=1,
        max_value=30,
        initial=10,
        help_text="One number for everything it does; damage wears it down.",
    )
    weapon = forms.ChoiceField(choices=WEAPON_CHOICES, required=False, initial="light")
    armor = forms.ChoiceField(choices=ARMOR_CHOICES, initial="none")
    # Not required: a form from before the choice existed (or a quick "Add") means blows to the body.
    kind = forms.ChoiceField(
        choices=KIND_CHOICES,
        initial=triad.BODY,
        required=False,
        label="Its attacks",
        help_text="Which score its hits take points from; armor only stops physical harm.",
    )


class TriadAttackForm(forms.Form):
    # The score a task rolls is the GM's call (Triad l.33: "one current, most appropriate ability"), Body
    # for a weapon (l.22): a player attacking on their own turn rolls Body unless the GM acts for them.
    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=triad.BODY, label="Ability (the GM's call)")
    intent = forms.ChoiceField(
        choices=INTENT_CHOICES,
        required=False,
        label="Instead of damage",
        help_text="Declared before the roll; a hit leaves the condition and no damage.",
    )
    spare = forms.BooleanField(
        required=False,
        label="Knock out rather than slay",
        help_text="If this blow takes the foe to Difficulty 0, it is unconscious, not slain.",
    )
    trait = forms.ChoiceField(
        choices=[("", "None")],
        required=False,
        label="A related (Adv.) trait",
        help_text="Advantage on the roll, and a tie with the Difficulty counts as a full success.",
    )
    advantages = WholeNumberField(min_value=0, max_value=9, initial=0, required=False)
    disadvantages = WholeNumberField(min_value=0, max_value=9, initial=0, required=False)
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point, gives advantage)")


class TriadBreakFreeForm(forms.Form):
    """Breaking a hold: a Body task against the holder's Difficulty, at the hold's disadvantage."""

    trait = forms.ChoiceField(choices=[("", "None")], required=False, label="A related (Adv.) trait")
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point, gives advantage)")


class TriadOpposedForm(forms.Form):
    """An opposed roll between two characters: the GM picks what each side rolls."""

    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=triad.BODY, label="Actor rolls")
    trait = forms.ChoiceField(choices=[("", "None")], required=False, label="The actor's (Adv.) trait")
    their_ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=triad.BODY, label="Opponent rolls")
    their_trait = forms.ChoiceField(
        choices=[("", "None")], required=False, label="The opponent's (Adv.) trait"
    )
    harm = forms.BooleanField(
        required=False,
        label="Harm at stake (the loser takes the winner's weapon damage)",
    )


class TriadTeamForm(forms.Form):
    """A team task led by the actor: everyone rolls, the best single number counts."""

    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=triad.BODY)
    difficulty = WholeNumberField(min_value=0, max_value=40, initial=10)
    helpers = forms.MultipleChoiceField(
        choices=[], label="Working with", widget=forms.SelectMultiple(attrs={"size": 3})
    )
    adv_trait = forms.BooleanField(required=False, label="An (Adv.) trait applies to the team")


class TriadDefendForm(forms.Form):
    kind = forms.ChoiceField(
        choices=[("", "Its usual kind")] + KIND_CHOICES,
        required=False,
        label="This attack is",
    )
    trait = forms.ChoiceField(
        choices=[("", "None")],
        required=False,
        label="The defender's related (Adv.) trait",
        help_text="Advantage on the defence, and a tie counts as holding it off.",
    )
    disadvantages = WholeNumberField(min_value=0, max_value=9, initial=0, required=False)
    extra_effort = forms.BooleanField(
        required=False, label="The defender's extra effort (1 point of the score hit, for advantage)"
    )


class TriadDefenceForm(forms.Form):
    """What the defending player chooses on an NPC's attack: a related (Adv.) trait, extra effort."""

    trait = forms.ChoiceField(
        choices=[("", "None")],
        required=False,
        label="A related (Adv.) trait",
        help_text="Advantage on the defence, and a tie counts as holding it off.",
    )
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point, gives advantage)")


class TriadRageForm(forms.Form):
    source = forms.ChoiceField(
        choices=[(triad.MIND, "Mind"), (triad.SPIRIT, "Spirit")],
        initial=triad.SPIRIT,
        label="Take the point from",
    )


def with_traits(form_class: type[forms.Form], choices: list[tuple[str, str]]) -> type[forms.Form]:
    """``form_class`` whose trait list is these (Adv.) traits: only they can be picked."""

    class Form(form_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.fields["trait"].choices = [("", "None"), *choices]

    Form.__name__ = form_class.__name__
    return Form


def choices_form(form_class: type[forms.Form], **choices: list[tuple[str, str]]) -> type[forms.Form]:
    """``form_class`` with these fields' choices filled in ("" = None first for the trait lists)."""

    class Form(form_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            for name, listed in choices.items():
                blank = [("", "None")] if name.endswith("trait") else []
                self.fields[name].choices = [*blank, *listed]

    Form.__name__ = form_class.__name__
    return Form


def able(combatant) -> bool:
    """A character combatant who can still take actions (not dying, not dead)."""
    sheet = combatant.character.triad
    return not sheet.dead and not sheet.dying


def percent(chance) -> str:
    return f"{float(chance) * 100:.1f}%"


def adv_traits(character) -> list[TriadTrait]:
    return [t for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT and t.adv]


def trait_names(character) -> frozenset[str]:
    return frozenset(t.name for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT)


def picked_trait(character, picked: str) -> TriadTrait | None:
    if not picked:
        return None
    trait = next((t for t in adv_traits(character) if str(t.pk) == picked), None)
    if trait is None:
        raise EncounterError(f"That (Adv.) trait is not {character.name}'s.")
    return trait


def task_dice(result) -> tuple[Die, ...]:
    kept_index = result.faces.index(result.kept)
    return tuple(Die(face, kept=i == kept_index, sides=triad.DIE) for i, face in enumerate(result.faces))


def side_dice(side: triad.Side, faces: tuple[int, ...]) -> tuple[Die, ...]:
    """One team member's dice, the one their edge keeps marked."""
    kept = max(faces) if side.edge > 0 else min(faces) if side.edge < 0 else faces[0]
    index = faces.index(kept)
    return tuple(Die(face, kept=i == index, sides=triad.DIE) for i, face in enumerate(faces))


def label(ability: str) -> str:
    return ability.title()


def success_chance(odds, *, adv_trait: bool) -> object:
    """Critical + success, and mixed when an (Adv.) trait turns a tie into a success."""
    return odds[triad.CRITICAL] + odds[triad.SUCCESS] + (odds[triad.MIXED] if adv_trait else 0)
