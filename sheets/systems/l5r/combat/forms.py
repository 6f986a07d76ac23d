"""The forms of an L5R fight: a quick NPC, the start button, and each action's inputs."""

from __future__ import annotations

from django import forms

from campaigns.forms import WholeNumberField
from rules import l5r

from ..base import emphasis_names, trait_label

ATTACK_SKILLS = tuple(skill for skill in l5r.SKILLS if skill.attack)
# What a contest may roll: a trait, a ring or a skill (each side rolls the same; L5R, Contested Rolls).
CONTEST_CHOICES = (
    [(f"trait:{trait}", f"Trait: {trait_label(trait)}") for trait in l5r.TRAITS]
    + [(f"ring:{ring.value}", f"Ring: {ring.value.capitalize()}") for ring in l5r.Ring]
    + [(f"skill:{skill.name}", f"Skill: {skill.name}") for skill in l5r.SKILLS]
)
# The GM's calls until the GM sets the scene's own (seed l.6: the GM "must also decide how difficult the
# task should be"; l.57: the participants make "the designated roll").
SCENE_TN = 15  # Average, on the seed's table (l.18)
SCENE_CONTEST = "trait:agility"
STANCE_CHOICES = [(stance.value, stance.label) for stance in l5r.Stance]
MANEUVER_CHOICES = [("", "None"), *((m.key, f"{m.name} ({m.raises} raises)") for m in l5r.MANEUVERS)]
COOPERATION = (
    ("alone", "Alone"),
    ("group", "Group effort: the actor rolls, + the helpers' ranks"),
    ("roped", "Roped together: everyone rolls, + the best rank"),
)


def _rank_field(label: str, initial: int, *, low: int = l5r.TRAIT_MIN, high: int = l5r.TRAIT_MAX):
    return WholeNumberField(min_value=low, max_value=high, initial=initial, label=label)


def _optional(low: int, high: int, label: str, help_text: str = ""):
    return WholeNumberField(
        min_value=low, max_value=high, initial=0, required=False, label=label, help_text=help_text
    )


class L5RNpcForm(forms.Form):
    reflexes = _rank_field("Reflexes", 2)
    agility = _rank_field("Agility", 2)
    strength = _rank_field("Strength", 2)
    earth = _rank_field("Earth", 2)
    void = _rank_field("Void", 2)
    insight_rank = _rank_field("Insight rank", 1)
    attack_skill = _rank_field("Attack skill", 2, low=l5r.SKILL_MIN, high=l5r.SKILL_MAX)
    defense = _optional(l5r.SKILL_MIN, l5r.SKILL_MAX, "Defense skill", "Adds to its Armor TN in Defense.")
    weapon_rolled = _rank_field("Weapon DR rolled", 3, low=0, high=l5r.TEN_DICE)
    weapon_kept = _rank_field("Weapon DR kept", 2, low=1, high=l5r.TEN_DICE)
    armor = WholeNumberField(
        min_value=0,
        max_value=l5r.ARMOR_MAX,
        initial=0,
        label="Armor TN bonus",
        help_text="On 5 x Reflexes + 5: light armor +5, heavy +10.",
    )
    reduction = _optional(
        0, l5r.REDUCTION_MAX, "Armor Reduction", "Off each damage roll: light 3, heavy 5."
    )


class L5RStartForm(forms.Form):
    help_text = "Initiative: Reflexes + school rank rolled, Reflexes kept, changed for everyone by these."

    extra_rolled = _optional(-5, 10, "Extra rolled dice")
    extra_kept = _optional(-5, 10, "Extra kept dice")
    bonus = _optional(-50, 50, "Bonus")


def _raises_field(void: int):
    return WholeNumberField(
        min_value=0, max_value=void, initial=0, required=False, label="Increased Damage raises (+1k0 each)"
    )


def _maneuver_field():
    return forms.ChoiceField(
        choices=MANEUVER_CHOICES,
        required=False,
        label="Maneuver",
        help_text="Its raises and Increased Damage's together: at most Void.",
    )


def _void_field():
    return forms.BooleanField(required=False, label="Void point (+1k1)")


class L5RNpcAttackForm(forms.Form):
    maneuver = _maneuver_field()
    raises = _raises_field(l5r.TRAIT_MAX)  # checked against the NPC's own Void when it attacks
    use_void = _void_field()


class L5RStanceForm(forms.Form):
    stance = forms.ChoiceField(choices=STANCE_CHOICES, initial=l5r.Stance.ATTACK.value, label="Stance")


class L5RFreeActionForm(forms.Form):
    what = forms.CharField(max_length=80, label="Free Action", help_text="e.g. whispers a warning")


class L5RTaskForm(forms.Form):
    name = forms.CharField(max_length=60, label="Task")
    tn = WholeNumberField(min_value=1, max_value=500, initial=60, label="Cumulative TN")
    minimum = WholeNumberField(
        min_value=0,
        max_value=100,
        initial=15,
        label="Each roll must reach",
        help_text="0: every roll counts.",
    )


class L5RSceneForm(forms.Form):
    """The GM's calls a player's own turn takes as given: the TN of a skill roll, what a contest rolls."""

    tn = WholeNumberField(min_value=0, max_value=100, initial=SCENE_TN, label="TN of skill rolls")
    roll = forms.ChoiceField(choices=CONTEST_CHOICES, initial=SCENE_CONTEST, label="Contests roll")


def scene(encounter) -> dict:
    """The scene's TN and contest roll as the GM last set them (``Encounter.state["l5r_scene"]``)."""
    return {"tn": SCENE_TN, "roll": SCENE_CONTEST, **encounter.state.get("l5r_scene", {})}


def open_tasks(encounter) -> list[dict]:
    return [task for task in encounter.state.get("l5r_tasks", []) if task["remaining"] > 0]


def contest_form(encounter, others) -> type[forms.Form]:
    """A contested roll: what all roll (the GM's), the actor's raises, and anyone else who joins (l.57)."""
    fields = {
        "roll": forms.ChoiceField(
            choices=CONTEST_CHOICES, initial=scene(encounter)["roll"], label="All roll (the GM's call)"
        ),
        "raises": WholeNumberField(
            min_value=0,
            max_value=l5r.TRAIT_MAX,
            initial=0,
            required=False,
            label="Raises declared by the actor",
        ),
        "also": forms.MultipleChoiceField(
            choices=[(str(c.pk), c.name) for c in others],
            required=False,
            widget=forms.CheckboxSelectMultiple,
            label="Others in the contest",
        ),
        "tie_stands": forms.BooleanField(required=False, label="A tie can stand (no re-roll)"),
    }
    return type("L5RContestForm", (forms.Form,), fields)


def emphasis_field(character, skills) -> dict[str, forms.Field]:
    """The "emphasis applies" choice over the character's emphases of ``skills`` (none: no field)."""
    names = {skill.name.lower() for skill in skills}
    offered = [
        (f"{row.name}:{name}", f"{row.name}: {name}")
        for row in character.l5r_skills.all()
        if row.rank and row.name.lower() in names
        for name in emphasis_names(row.emphasis)
    ]
    if not offered:
        return {}
    field = forms.ChoiceField(
        choices=[("", "None"), *offered], required=False, label="Emphasis applies (re-roll 1s once)"
    )
    return {"emphasis": field}


def skill_form(encounter, actor, combatants) -> type[forms.Form]:
    """A skill roll by a character with a sheet: alone or with helpers, maybe toward a cumulative task.
    Its TN is the GM's (prefilled with the scene's)."""
    helpers = [(str(c.pk), c.name) for c in combatants if c.pk != actor.pk and c.character is not None]
    tasks = [("", "None")] + [
        (str(task["id"]), f"{task['name']} ({task['remaining']} of {task['tn']} to go)")
        for task in open_tasks(encounter)
    ]
    fields = {
        "skill": forms.ChoiceField(choices=[(s.name, s.name) for s in l5r.SKILLS], label="Skill"),
        "tn": WholeNumberField(
            min_value=0,
            max_value=100,
            initial=scene(encounter)["tn"],
            label="TN (the GM's call)",
            help_text="For a task: its minimum instead.",
        ),
        "cooperation": forms.ChoiceField(choices=COOPERATION, initial="alone", label="With others"),
        "helpers": forms.MultipleChoiceField(
            choices=helpers, required=False, widget=forms.CheckboxSelectMultiple, label="Helpers"
        ),
        "task": forms.ChoiceField(choices=tasks, required=False, label="Counts toward"),
        **(emphasis_field(actor.character, l5r.SKILLS) if actor.character is not None else {}),
    }
    return type("L5RSkillRollForm", (forms.Form,), fields)


def _weapon_label(row) -> str:
    if row.bow_strength is not None:
        return f"{row.name} (bow {row.bow_strength})"
    return f"{row.name} {row.rolled}k{row.kept}"


def attack_form(character) -> type[forms.Form]:
    """The attack options of a character with a sheet: its weapon skills and weapons, a maneuver and
    raises up to Void."""
    sheet = character.l5r
    ranks = {skill.name.lower(): skill.rank for skill in character.l5r_skills.all()}
    skill_choices = [
        (skill.name, f"{skill.name} {ranks.get(skill.name.lower(), 0)}") for skill in ATTACK_SKILLS
    ]
    best = max(ATTACK_SKILLS, key=lambda skill: ranks.get(skill.name.lower(), 0))
    weapons = list(character.l5r_weapons.all())
    weapon_choices = [(str(w.pk), _weapon_label(w)) for w in weapons] + [("unarmed", "Unarmed 0k1")]
    # Start on a weapon that suits the best skill: a bow for Kyujutsu, else the first hand weapon.
    wants_bow = best.name == "Kyujutsu"
    initial = next((str(w.pk) for w in weapons if (w.bow_strength is not None) == wants_bow), "unarmed")
    fields = {
        "skill": forms.ChoiceField(choices=skill_choices, initial=best.name, label="Skill"),
        "weapon": forms.ChoiceField(choices=weapon_choices, initial=initial, label="Weapon"),
        "maneuver": _maneuver_field(),
        "raises": _raises_field(sheet.void),
        "use_void": _void_field(),
        **emphasis_field(character, ATTACK_SKILLS),
    }
    return type("L5RAttackForm", (forms.Form,), fields)
