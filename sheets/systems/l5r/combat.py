"""L5R Roll & Keep fights: initiative rolled once, attacks against the target's Armor TN with raises,
damage rolls, and wounds whose TN penalty lands on every later roll.

The GM rolls for everyone. A combatant with a sheet attacks with a weapon skill it picks and one of its
weapons; a quick NPC with its one attack skill and weapon. A hit rolls damage at once and the wounds go
on the sheet (through the sheet history) or on the quick NPC's numbers.

Readings taken (the seed says nothing on initiative, Armor TN or wound ranks; these are L5R 4e's):

- Initiative is rolled once, at the start: Reflexes + school rank rolled, Reflexes kept (a quick NPC's
  "Insight rank" stands in for the school rank). The GM sets the roll on the start button: extra rolled
  dice, extra kept dice and a bonus, the same for everyone (``encounter.state["start"]``). Highest
  first; ties go to the higher Reflexes, then to whoever was added to the encounter first.
- The TN to hit is the Armor TN: 5 x Reflexes + 5, plus armor: the armor bonus recorded on the target's
  sheet (light +3, heavy +5 is the usual reading), or the one typed for a quick NPC.
- An attack rolls the weapon skill + its trait (Agility for Kenjutsu and Jiujutsu, Reflexes for
  Kyujutsu, as on the skill list), keeps the trait. With no rank it is unskilled: no explosions and no
  raises. A bow fires only with Kyujutsu, and Kyujutsu needs a bow; bows shoot a standard arrow.
- Raises called (at most Void) add 5 each to the TN; on a hit each adds one rolled die to the damage
  (+1k0). A Void point adds +1k1 to the attack roll (not to damage) and is spent from the sheet or the
  quick NPC's points.
- Damage is weapon DR + Strength rolled (a bow's own strength instead), tens explode, and the total is
  added to the target's wounds. Quick NPCs' weapons are a plain DR.
- Wound ranks (``rules.l5r.wound_rank``): Healthy holds Earth x 5 wounds, every later rank Earth x 2;
  the rank's TN penalty (Nicked +3, Grazed +5, Hurt +10, Injured +15, Crippled +20, Down +40) is added
  to the TN of every roll the wounded character makes, before raises. Out, or more wounds than Out
  holds (Dead), takes the combatant out of the fight. Earth is the lower of Stamina and Willpower; a
  quick NPC has an Earth rank.
- One attack a turn (a Complex Action); the turn then ends with "Next turn". A character at Down
  takes no Complex Actions, so it cannot attack (``rules.l5r.can_attack``): its turn only passes.
  Initiative is not a TN roll: wounds do not change it.
- Quick NPCs' initiative rolls are secret (only the GM sees them); their attacks and damage are
  public, since they change player characters' sheets.
- An emphasis of the skill rolled (a skill roll, or an attack: Kenjutsu (Katana)) may be chosen as
  applying: each of the roller's dice first showing a 1 is rolled again, once (4th edition, Emphases).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from django import forms

from campaigns.forms import WholeNumberField
from rules import l5r as rules
from rules.dice import Outcome
from sheets.combat import Action, CombatRules, EncounterError, RollResult
from sheets.contract import Die
from sheets.services import character_change

from .sheet import (
    WOUNDS_MAX,
    emphasis_names,
    odd_die_bonus,
    rerolled_text,
    trait_label,
    wound_note,
    wound_text,
)

ATTACK_SKILLS = tuple(skill for skill in rules.SKILLS if skill.attack)
ARROW = rules.ARROWS[0]  # the standard arrow
ARMOR_MAX = rules.ARMOR_MAX
OUT_RANKS = (rules.OUT, rules.DEAD)


def _rank_field(label: str, initial: int, *, low: int = rules.TRAIT_MIN, high: int = rules.TRAIT_MAX):
    return WholeNumberField(min_value=low, max_value=high, initial=initial, label=label)


class L5RNpcForm(forms.Form):
    reflexes = _rank_field("Reflexes", 2)
    agility = _rank_field("Agility", 2)
    strength = _rank_field("Strength", 2)
    earth = _rank_field("Earth", 2)
    void = _rank_field("Void", 2)
    insight_rank = _rank_field("Insight rank", 1)
    attack_skill = _rank_field("Attack skill", 2, low=rules.SKILL_MIN, high=rules.SKILL_MAX)
    weapon_rolled = _rank_field("Weapon DR rolled", 3, low=0, high=rules.TEN_DICE)
    weapon_kept = _rank_field("Weapon DR kept", 2, low=1, high=rules.TEN_DICE)
    armor = WholeNumberField(
        min_value=0, max_value=ARMOR_MAX, initial=0, label="Armor TN bonus", help_text="On 5 x Reflexes + 5."
    )


def _change_field(down: int, up: int, label: str):
    return WholeNumberField(min_value=-down, max_value=up, initial=0, required=False, label=label)


class L5RStartForm(forms.Form):
    help_text = "Initiative: Reflexes + school rank rolled, Reflexes kept, changed for everyone by these."

    extra_rolled = _change_field(5, 10, "Extra rolled dice")
    extra_kept = _change_field(5, 10, "Extra kept dice")
    bonus = _change_field(50, 50, "Bonus")


def _raises_field(void: int):
    return WholeNumberField(min_value=0, max_value=void, initial=0, required=False, label="Raises called")


def _void_field():
    return forms.BooleanField(required=False, label="Void point (+1k1)")


class L5RNpcAttackForm(forms.Form):
    raises = _raises_field(rules.TRAIT_MAX)  # checked against the NPC's own Void when it attacks
    use_void = _void_field()


# What a contest may roll: a trait, a ring or a skill (each side rolls the same; L5R, Contested Rolls).
CONTEST_CHOICES = (
    [(f"trait:{trait}", f"Trait: {trait_label(trait)}") for trait in rules.TRAITS]
    + [(f"ring:{ring.value}", f"Ring: {ring.value.capitalize()}") for ring in rules.Ring]
    + [(f"skill:{skill.name}", f"Skill: {skill.name}") for skill in rules.SKILLS]
)
# A quick NPC's numbers hold these traits and rings; its attack skill rank serves its weapon skills.
NPC_TRAITS = ("reflexes", "agility", "strength")
MAX_REROLLS = 20  # ties re-roll at once (the book); twenty ties running is a stand-off, not a loop


def _contest_form(others) -> type[forms.Form]:
    """A contested roll: what both roll, the actor's raises, and anyone else who joins (L5R, l.57)."""
    fields = {
        "roll": forms.ChoiceField(choices=CONTEST_CHOICES, initial="trait:agility", label="Both roll"),
        "raises": WholeNumberField(
            min_value=0,
            max_value=rules.TRAIT_MAX,
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


COOPERATION = (
    ("alone", "Alone"),
    ("group", "Group effort: the actor rolls, + the helpers' ranks"),
    ("roped", "Roped together: everyone rolls, + the best rank"),
)


def open_tasks(encounter) -> list[dict]:
    return [task for task in encounter.state.get("l5r_tasks", []) if task["remaining"] > 0]


def _emphasis_field(character, skills) -> dict[str, forms.Field]:
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


def _emphasis(data, skill: rules.Skill) -> str:
    """The chosen emphasis if it is one of ``skill``'s; refused when it belongs to another skill."""
    owner, _, name = (data.get("emphasis") or "").partition(":")
    if not name:
        return ""
    if owner.lower() != skill.name.lower():
        raise EncounterError(
            f"{name} is an emphasis of {owner}, not of {skill.name}: choose none or one of its own."
        )
    return name


def _skill_form(encounter, actor, combatants) -> type[forms.Form]:
    """A skill roll by a character with a sheet: alone or with helpers, maybe toward a cumulative task."""
    helpers = [(str(c.pk), c.name) for c in combatants if c.pk != actor.pk and c.character is not None]
    tasks = [("", "None")] + [
        (str(task["id"]), f"{task['name']} ({task['remaining']} of {task['tn']} to go)")
        for task in open_tasks(encounter)
    ]
    fields = {
        "skill": forms.ChoiceField(choices=[(s.name, s.name) for s in rules.SKILLS], label="Skill"),
        "tn": WholeNumberField(
            min_value=0, max_value=100, initial=15, label="TN", help_text="For a task: its minimum instead."
        ),
        "cooperation": forms.ChoiceField(choices=COOPERATION, initial="alone", label="With others"),
        "helpers": forms.MultipleChoiceField(
            choices=helpers, required=False, widget=forms.CheckboxSelectMultiple, label="Helpers"
        ),
        "task": forms.ChoiceField(choices=tasks, required=False, label="Counts toward"),
        **(_emphasis_field(actor.character, rules.SKILLS) if actor.character is not None else {}),
    }
    return type("L5RSkillRollForm", (forms.Form,), fields)


def _weapon_label(row) -> str:
    if row.bow_strength is not None:
        return f"{row.name} (bow {row.bow_strength})"
    return f"{row.name} {row.rolled}k{row.kept}"


def _attack_form(character) -> type[forms.Form]:
    """The attack options of a character with a sheet: its weapon skills and weapons, raises up to Void."""
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
        "raises": _raises_field(sheet.void),
        "use_void": _void_field(),
        **_emphasis_field(character, ATTACK_SKILLS),
    }
    return type("L5RAttackForm", (forms.Form,), fields)


def _dice(result: rules.RollResult) -> tuple[Die, ...]:
    return tuple(
        Die(total, kept=i in result.kept, exploded=len(chain) > 1, sides=rules.SIDES)
        for i, (chain, total) in enumerate(zip(result.chains, result.die_totals, strict=True))
    )


def _exploded(result: rules.RollResult) -> str:
    chains = [" + ".join(str(face) for face in chain) for chain in result.chains if len(chain) > 1]
    return " · tens exploded: " + ", ".join(chains) if chains else ""


@dataclass(frozen=True)
class Fighter:
    """The numbers a fight needs, from a sheet or a quick NPC's stats."""

    reflexes: int
    agility: int
    strength: int
    earth: int
    void: int
    void_spent: int
    school_rank: int
    wounds: int
    armor: int  # the armor's bonus to the Armor TN

    @property
    def wound_level(self) -> rules.WoundLevel:
        return rules.wound_rank(self.wounds, self.earth)

    @property
    def penalty(self) -> int:
        return rules.wound_penalty(self.wounds, self.earth)


def fighter(combatant) -> Fighter:
    if combatant.character is None:
        stats = combatant.stats
        return Fighter(
            stats["reflexes"],
            stats["agility"],
            stats["strength"],
            stats["earth"],
            stats["void"],
            stats.get("void_spent", 0),
            stats["insight_rank"],
            stats.get("wounds", 0),
            stats.get("armor", 0),
        )
    sheet = combatant.character.l5r
    return Fighter(
        sheet.reflexes,
        sheet.agility,
        sheet.strength,
        min(sheet.stamina, sheet.willpower),
        sheet.void,
        sheet.void_spent,
        sheet.school_rank,
        sheet.wounds,
        sheet.armor,
    )


@dataclass(frozen=True)
class AttackPlan:
    """What an attack rolls and, on a hit, what damage it rolls."""

    pool: rules.Pool
    words: str  # "Kenjutsu 2 + Agility 3"
    damage: rules.Pool
    damage_words: str  # "Katana 3k2 + Strength 2"
    raises: int
    use_void: bool
    emphasis: str = ""  # the attack skill's emphasis that applies: 1s re-rolled once


class L5RCombat(CombatRules):
    key = "l5r"
    npc_form_class = L5RNpcForm
    start_form_class = L5RStartForm

    def npc_stats(self, cleaned_data):
        numbers = (
            "reflexes",
            "agility",
            "strength",
            "earth",
            "void",
            "insight_rank",
            "attack_skill",
            "weapon_rolled",
            "weapon_kept",
            "armor",
        )
        return {**{name: cleaned_data[name] for name in numbers}, "wounds": 0, "void_spent": 0}

    # ----- order ----------------------------------------------------------------------------------

    def start(self, encounter, combatants, roller):
        chosen = encounter.state.get("start", {})
        options = {name: chosen.get(name) or 0 for name in ("extra_rolled", "extra_kept", "bonus")}
        odd = odd_die_bonus(encounter.campaign)
        lines = []
        for combatant in combatants:
            numbers = fighter(combatant)
            pool = rules.initiative_pool(
                numbers.reflexes,
                numbers.school_rank,
                extra_rolled=options["extra_rolled"],
                extra_kept=options["extra_kept"],
                bonus=options["bonus"],
            )
            result = rules.roll_pool(roller, pool, odd_die_bonus=odd)
            rank_name = "school rank" if combatant.character is not None else "Insight rank"
            combatant.initiative = result.total
            combatant.state = {}
            lines.append(
                RollResult(
                    label=f"{combatant.name} initiative",
                    summary=(
                        f"Reflexes {numbers.reflexes} + {rank_name} {numbers.school_rank}: "
                        f"{result.notation}: {result.total}{_exploded(result)}"
                    ),
                    dice=_dice(result),
                    total=result.total,
                    character=combatant.character,
                    secret=combatant.character is None,
                )
            )
        listed = {combatant.pk: index for index, combatant in enumerate(combatants)}
        combatants.sort(key=lambda c: (-c.initiative, -fighter(c).reflexes, listed[c.pk]))
        for position, combatant in enumerate(combatants):
            combatant.position = position
        return lines

    def begin_turn(self, encounter, actor, author):
        actor.state = {"attacked": False}
        return []

    # ----- a turn ---------------------------------------------------------------------------------

    def actions(self, encounter, actor, combatants):
        numbers = fighter(actor)
        offered = []
        if not actor.state.get("attacked") and rules.can_attack(numbers.wound_level):
            offered.append(self._attack_action(actor, combatants, numbers))
        if not rules.can_roll(numbers.wound_level):
            return offered
        others = tuple(c for c in combatants if c.pk != actor.pk and not self.is_out(c))
        offered.append(
            Action(
                "contest",
                "Contested roll",
                needs_target=True,
                form_class=_contest_form(others),
                targets=others,
                gm_fields=("tie_stands",),  # whether the scene allows a draw is the GM's call
                help=(
                    "Everyone in it rolls the same trait, ring or skill; the highest total wins, a tie at "
                    "the top is rolled again unless it can stand. Each raise the actor declares must be "
                    "won by 5 more."
                ),
            )
        )
        if actor.character is not None:
            tasks = "; ".join(
                f"{t['name']}: {t['remaining']} of {t['tn']} to go" for t in open_tasks(encounter)
            )
            offered.append(
                Action(
                    "skill",
                    "Skill roll",
                    form_class=_skill_form(encounter, actor, combatants),
                    help=(
                        "Skill + its trait against the TN (wounds add theirs). Group effort: one roll, "
                        "+ every helper's rank in the skill. Roped together: each rolls, all but the "
                        "best-ranked + the best rank. Toward a task: a total reaching its minimum comes off "
                        "its TN." + (f" Open tasks: {tasks}." if tasks else "")
                    ),
                )
            )
        offered.append(
            Action(
                "task",
                "Set a cumulative task",
                form_class=L5RTaskForm,
                help="A high TN reached over several skill rolls; each counted total comes off it.",
                gm_only=True,
            )
        )
        return offered

    def _attack_action(self, actor, combatants, numbers) -> Action:
        foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
        wounded = f" Wounds add +{numbers.penalty}." if numbers.penalty else ""
        return Action(
            "attack",
            "Attack",
            needs_target=True,
            form_class=_attack_form(actor.character) if actor.character is not None else L5RNpcAttackForm,
            targets=foes,
            help=(
                "Skill + its trait (Agility; Reflexes for Kyujutsu) against the target's Armor TN, "
                "+5 per raise (armor from the target's sheet or numbers); a hit rolls damage at once, "
                f"+1k0 per raise.{wounded}"
            ),
        )

    def act(self, encounter, actor, action, target, data, roller, author):
        if action == "contest":
            return self._contest(encounter, actor, target, data, roller)
        if action == "skill":
            return self._skill_roll(encounter, actor, data, roller)
        if action == "task":
            return self._set_task(encounter, actor, data)
        if action != "attack":
            raise EncounterError("That action is not open to this combatant now.")
        attacker, defender = fighter(actor), fighter(target)
        if not rules.can_attack(attacker.wound_level):
            level = attacker.wound_level
            raise EncounterError(f"{actor.name} is {level.name}: {wound_note(level)}.")
        plan = self._plan(actor, data)
        if plan.raises > attacker.void:
            raise EncounterError(f"With Void {attacker.void} at most {attacker.void} raises can be called.")
        if plan.use_void and attacker.void_spent >= attacker.void:
            raise EncounterError(f"{actor.name} has no Void points left: all {attacker.void} are spent.")
        armor_tn = rules.armor_tn(defender.reflexes, armor=defender.armor)
        tn_plan = rules.plan_raises(
            armor_tn + attacker.penalty,
            raises=plan.raises,
            void=attacker.void,
            unskilled=not plan.pool.raises_allowed,
        )
        odd = odd_die_bonus(encounter.campaign)
        changes = []
        if plan.use_void:
            changes.append(self._spend_void(actor, author))
        result = rules.roll_pool(roller, plan.pool, tn=tn_plan.tn, odd_die_bonus=odd)
        tn_words = f"Armor TN {armor_tn}"
        if attacker.penalty:
            tn_words += f" + {attacker.penalty} for {attacker.wound_level.name} wounds"
        if plan.raises:
            plural = "s" if plan.raises > 1 else ""
            tn_words += f" + {rules.RAISE_STEP * plan.raises} for {plan.raises} raise{plural}"
        hit_or_miss = "hit" if result.success else "miss"
        lines = [
            RollResult(
                label=f"{actor.name} attacks {target.name}",
                summary=(
                    f"{plan.words}{' + Void point' * plan.use_void}: {result.notation} vs TN {tn_plan.tn} "
                    f"({tn_words}): {result.total}, {hit_or_miss}{_exploded(result)}"
                    + (f" · {rerolled_text(plan.emphasis, result)}" if plan.emphasis else "")
                ),
                dice=_dice(result),
                outcome=result.outcome,
                outcome_label=hit_or_miss,
                total=result.total,
                chance=plan.pool.chance(tn_plan.tn, odd_die_bonus=odd),
                changes=tuple(changes),
                character=actor.character,
            )
        ]
        actor.state = {**actor.state, "attacked": True}
        if result.success:
            damage = rules.roll_pool(roller, plan.damage, odd_die_bonus=odd)
            raised = f" + {plan.raises}k0 for raises" if plan.raises else ""
            lines.append(
                RollResult(
                    label=f"{actor.name} damages {target.name}",
                    summary=(
                        f"{plan.damage_words}{raised}: {damage.notation}: {damage.total} wounds"
                        f"{_exploded(damage)}"
                    ),
                    dice=_dice(damage),
                    outcome=Outcome.NONE,
                    outcome_label="damage",
                    total=damage.total,
                    changes=tuple(self._wound(target, damage.total, author, source=actor.name)),
                    character=target.character or actor.character,
                )
            )
        return lines

    def chance(self, encounter, actor, action, target, data):
        """The attack roll against the target's Armor TN, wounds and raises added, as ``act`` rolls it."""
        if action != "attack" or target is None:
            return None
        attacker, plan = fighter(actor), self._plan(actor, data)
        armor_tn = rules.armor_tn(fighter(target).reflexes, armor=fighter(target).armor)
        tn = rules.plan_raises(
            armor_tn + attacker.penalty,
            raises=plan.raises,
            void=attacker.void,
            unskilled=not plan.pool.raises_allowed,
        ).tn
        return plan.pool.chance(tn, odd_die_bonus=odd_die_bonus(encounter.campaign))

    # ----- contests, skill rolls with others, cumulative tasks --------------------------------------

    @staticmethod
    def _rank(character, skill: rules.Skill) -> int:
        row = next((r for r in character.l5r_skills.all() if r.name.lower() == skill.name.lower()), None)
        return row.rank if row is not None else 0

    def _contest_pool(self, combatant, choice: str) -> tuple[rules.Pool, str]:
        """The pool a contestant rolls for "trait:x", "ring:x" or "skill:Name", and how it is made."""
        kind, _, name = choice.partition(":")
        if combatant.character is not None:
            sheet = combatant.character.l5r
            traits = sheet.trait_values()
            if kind == "trait":
                return rules.trait_pool(traits[name]), f"{trait_label(name)} {traits[name]}"
            if kind == "ring":
                rank = rules.ring_rank(name, traits, void=sheet.void)
                return rules.ring_pool(rank), f"{name.capitalize()} {rank}"
            skill = rules.skill_info(name)
            trait = sheet.void if skill.trait == "void" else traits[skill.trait]
            rank = self._rank(combatant.character, skill)
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + " unskilled" * (not rank)
            return rules.skill_pool(trait, rank, attack=skill.attack), words
        stats = combatant.stats
        if kind == "trait" and name in NPC_TRAITS:
            return rules.trait_pool(stats[name]), f"{trait_label(name)} {stats[name]}"
        if kind == "ring" and name in ("earth", "void"):
            return rules.ring_pool(stats[name]), f"{name.capitalize()} {stats[name]}"
        skill = rules.skill_info(name) if kind == "skill" else None
        if skill is not None and skill.trait in NPC_TRAITS:
            rank = stats["attack_skill"] if skill.attack else 0
            trait = stats[skill.trait]
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + " unskilled" * (not rank)
            return rules.skill_pool(trait, rank, attack=skill.attack), words
        what = dict(CONTEST_CHOICES)[choice].partition(": ")[2]
        raise EncounterError(
            f"{combatant.name}'s numbers have no {what}: a quick NPC has Reflexes, Agility, Strength, "
            "Earth, Void and its attack skill."
        )

    def _contest(self, encounter, actor, target, data, roller) -> list[RollResult]:
        """All roll; the highest total wins, unless its raises were not beaten by (L5R, Contested Rolls)."""
        raises = data.get("raises") or 0
        numbers = fighter(actor)
        if raises > numbers.void:
            raise EncounterError(f"With Void {numbers.void} at most {numbers.void} raises can be declared.")
        # The target, then anyone else ticked (a contest of several: "the player who rolls the highest").
        joining = {int(pk) for pk in data.get("also") or ()} - {actor.pk, target.pk}
        others = [c for c in encounter.combatants.all() if c.pk in joining and not self.is_out(c)]
        if len(others) != len(joining):
            raise EncounterError("Only combatants still in the fight can join the contest.")
        contestants = [actor, target, *sorted(others, key=lambda c: c.position)]
        sides = [(c, *self._contest_pool(c, data["roll"])) for c in contestants]
        if raises and not sides[0][1].raises_allowed:
            raise EncounterError("An unskilled roll cannot take raises.")
        odd = odd_die_bonus(encounter.campaign)
        what = dict(CONTEST_CHOICES)[data["roll"]].partition(": ")[2]
        declared = [raises] + [0] * (len(sides) - 1)
        lines = []
        for attempt in range(1, MAX_REROLLS + 1):
            # Reading: "the players involved must immediately re-roll": the whole contest, everyone in it.
            totals = []
            for combatant, pool, words in sides:
                result = rules.roll_pool(roller, pool, odd_die_bonus=odd)
                totals.append(result.total)
                again = f" (re-roll {attempt - 1})" if attempt > 1 else ""
                lines.append(
                    RollResult(
                        label=f"{combatant.name}: contested {what}{again}",
                        summary=f"{words}: {result.notation}: {result.total}{_exploded(result)}",
                        dice=_dice(result),
                        total=result.total,
                        character=combatant.character,
                    )
                )
            winner = rules.contest_winner(totals, raises=declared)
            if winner is not None or data.get("tie_stands"):
                break
        raised = f", {raises} raise{'s' if raises != 1 else ''} declared" if raises else ""
        score = " to ".join(str(total) for total in totals) + raised
        tied = [c.name for c, total in zip(contestants, totals, strict=True) if total == max(totals)]
        if winner is None and data.get("tie_stands"):
            between = f" between {' and '.join(tied)}" if len(contestants) > 2 else ""
            summary, outcome = f"{score}: a tie{between}, and it stands", Outcome.NONE
        elif winner is None:
            summary, outcome = (
                f"{score}: still tied after {MAX_REROLLS} re-rolls; the GM settles it",
                Outcome.NONE,
            )
        else:
            summary = f"{score}: {contestants[winner].name} wins"
            if winner != 0 and totals[0] == max(totals):
                summary += f" ({actor.name} not ahead by {rules.RAISE_STEP * raises})"
            outcome = Outcome.SUCCESS if winner == 0 else Outcome.FAILURE
        against = ", ".join(c.name for c in contestants[1:])
        lines.append(
            RollResult(
                label=f"Contest of {what}: {actor.name} against {against}",
                summary=summary,
                outcome=outcome,
                outcome_label="" if outcome is Outcome.NONE else ("won" if winner == 0 else "lost"),
                character=actor.character,
            )
        )
        return lines

    def _skill_roll(self, encounter, actor, data, roller) -> list[RollResult]:
        """A skill roll, alone or with others (L5R, Cooperative Rolls), maybe toward a task (Cumulative)."""
        skill = rules.skill_info(data["skill"])
        everyone = {c.pk: c for c in encounter.combatants.select_related("character__l5r")}
        helpers = [everyone[int(pk)] for pk in data["helpers"] if int(pk) in everyone]
        cooperation = data["cooperation"]
        if cooperation == "alone" and helpers:
            raise EncounterError("Pick group effort or roped together for helpers, or tick none.")
        if cooperation != "alone" and not helpers:
            raise EncounterError("Tick the helpers who work with the actor.")
        task = next((t for t in open_tasks(encounter) if str(t["id"]) == data.get("task")), None)
        if data.get("task") and task is None:
            raise EncounterError("That task is done or gone; pick another.")
        if task is not None and cooperation == "roped":
            raise EncounterError(
                "Roped together, each rolls for himself: count a group effort toward a task."
            )
        team = [actor, *helpers]
        ranks = [self._rank(c.character, skill) for c in team]
        if cooperation == "group":
            bonuses = [rules.group_effort_bonus(ranks[1:])]
            rollers = [actor]
        elif cooperation == "roped":
            bonuses = list(rules.roped_team_bonuses(ranks))
            rollers = team
        else:
            bonuses, rollers = [0], [actor]
        base_tn = task["minimum"] if task is not None else data["tn"]
        emphasis = _emphasis(data, skill)  # the actor's own: helpers roll without it
        odd = odd_die_bonus(encounter.campaign)
        lines = []
        for combatant, bonus in zip(rollers, bonuses, strict=False):
            sheet = combatant.character.l5r
            numbers = fighter(combatant)
            if not rules.can_roll(numbers.wound_level):
                raise EncounterError(
                    f"{combatant.name} is {numbers.wound_level.name}: {wound_note(numbers.wound_level)}."
                )
            trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait)
            rank = self._rank(combatant.character, skill)
            pool = rules.skill_pool(trait, rank, bonus=bonus, attack=skill.attack)
            applies = emphasis if combatant.pk == actor.pk else ""
            if applies:
                pool = pool.with_emphasis()
            tn = base_tn + numbers.penalty
            result = rules.roll_pool(roller, pool, tn=tn, odd_die_bonus=odd)
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + " unskilled" * (not rank)
            if bonus:
                words += f", +{bonus} from " + (
                    "the helpers' ranks" if cooperation == "group" else "the best-ranked climber"
                )
            tn_words = f"TN {tn}" + (
                f" ({base_tn} + {numbers.penalty} for wounds)" if numbers.penalty else ""
            )
            lines.append(
                RollResult(
                    label=f"{combatant.name}: {skill.name}" + (f" toward {task['name']}" if task else ""),
                    summary=f"{words}: {result.notation} vs {tn_words}: {result.total}, {result.outcome}"
                    + _exploded(result)
                    + (f" · {rerolled_text(applies, result)}" if applies else ""),
                    dice=_dice(result),
                    outcome=result.outcome,
                    total=result.total,
                    chance=pool.chance(tn, odd_die_bonus=odd),
                    character=combatant.character,
                )
            )
            if task is not None:
                lines.append(self._count(encounter, task, result, tn))
        return lines

    @staticmethod
    def _count(encounter, task: dict, result: rules.RollResult, tn: int) -> RollResult:
        """Take a total off a cumulative task's TN when it reached the minimum (wounds included)."""
        progress = rules.cumulative(task["remaining"], [result.total], minimum=tn)
        counted = progress.counted[0]
        updated = {
            **task,
            "totals": [*task["totals"], result.total] if counted else task["totals"],
            "remaining": progress.remaining,
        }
        tasks = [updated if t["id"] == task["id"] else t for t in encounter.state.get("l5r_tasks", [])]
        encounter.state = {**encounter.state, "l5r_tasks": tasks}
        to_go = f"{progress.remaining} of {task['tn']} to go"
        if not counted:
            summary = f"{result.total} is under {tn}: it does not count; {to_go}"
        elif progress.done:
            summary = f"{result.total} counts: the task is done ({task['tn']} reached)"
        else:
            summary = f"{result.total} counts: {to_go}"
        return RollResult(
            label=f"{task['name']}: cumulative TN {task['tn']}",
            summary=summary,
            outcome=Outcome.SUCCESS if progress.done else Outcome.NONE,
            outcome_label="done" if progress.done else "",
        )

    @staticmethod
    def _set_task(encounter, actor, data) -> list[RollResult]:
        tasks = encounter.state.get("l5r_tasks", [])
        task = {
            "id": max((t["id"] for t in tasks), default=0) + 1,
            "name": " ".join(data["name"].split()),
            "tn": data["tn"],
            "minimum": data["minimum"],
            "totals": [],
            "remaining": data["tn"],
        }
        encounter.state = {**encounter.state, "l5r_tasks": [*tasks, task]}
        each = f"each roll must reach {task['minimum']} to count" if task["minimum"] else "every roll counts"
        return [
            RollResult(
                label=f"Cumulative task: {task['name']}",
                summary=f"TN {task['tn']}, reached over several skill rolls; {each}",
            )
        ]

    def _plan(self, actor, data) -> AttackPlan:
        """The attack and damage pools from the form the GM filled in."""
        if actor.character is None:
            options = data
            stats = actor.stats
            raises = options["raises"] or 0
            pool = rules.skill_pool(stats["agility"], stats["attack_skill"], attack=True)
            words = f"Attack skill {stats['attack_skill']} + Agility {stats['agility']}"
            weapon = rules.Weapon("Weapon", stats["weapon_rolled"], stats["weapon_kept"])
            damage = rules.damage_pool(weapon, stats["strength"])
            damage_words = f"Weapon {weapon.dr} + Strength {stats['strength']}"
            emphasis = ""  # a quick NPC has one attack skill and no emphases
        else:
            options = data
            sheet = actor.character.l5r
            skill = rules.skill_info(options["skill"])
            row = actor.character.l5r_skills.filter(name__iexact=skill.name).first()
            rank = row.rank if row is not None else 0
            trait = getattr(sheet, skill.trait)
            pool = rules.skill_pool(trait, rank, attack=True)
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + (" unskilled" * (not rank))
            raises = options["raises"] or 0
            damage, damage_words = self._weapon_damage(actor.character, options["weapon"], skill)
            emphasis = _emphasis(options, skill)  # offered only for skills with a rank
            if emphasis:
                pool = pool.with_emphasis()
                words += f", emphasis {emphasis}"
        use_void = options["use_void"]
        if use_void:
            pool = dataclasses.replace(pool, rolled=pool.rolled + 1, kept=pool.kept + 1)
        damage = rules.Pool(damage.rolled + raises, damage.kept, damage.bonus)
        return AttackPlan(pool, words, damage, damage_words, raises, use_void, emphasis)

    @staticmethod
    def _weapon_damage(character, choice: str, skill: rules.Skill) -> tuple[rules.Pool, str]:
        strength = character.l5r.strength
        if choice == "unarmed":
            if skill.name == "Kyujutsu":
                raise EncounterError("Kyujutsu shoots a bow: pick the bow.")
            return rules.damage_pool(rules.UNARMED, strength), f"Unarmed 0k1 + Strength {strength}"
        row = character.l5r_weapons.filter(pk=int(choice)).first() if choice.isdigit() else None
        if row is None:
            raise EncounterError("Pick one of the character's weapons.")
        if (row.bow_strength is not None) != (skill.name == "Kyujutsu"):
            raise EncounterError("A bow fires with Kyujutsu, and Kyujutsu needs a bow.")
        if row.bow_strength is not None:
            bow = rules.Weapon(row.name, 0, 0, bow_strength=row.bow_strength)
            return (
                rules.bow_damage_pool(bow, ARROW),
                f"{ARROW.name} {ARROW.dr} + {row.name} strength {row.bow_strength}",
            )
        weapon = rules.Weapon(row.name, row.rolled, row.kept)
        return rules.damage_pool(weapon, strength), f"{row.name} {weapon.dr} + Strength {strength}"

    def _spend_void(self, combatant, author) -> str:
        if combatant.character is None:
            spent = combatant.stats.get("void_spent", 0) + 1
            combatant.stats = {**combatant.stats, "void_spent": spent}
            void = combatant.stats["void"]
        else:
            sheet = combatant.character.l5r
            reason = "Void point for an attack"
            with character_change(character=combatant.character, author=author, reason=reason):
                sheet.void_spent += 1
                sheet.save(update_fields=["void_spent"])
            spent, void = sheet.void_spent, sheet.void
        return f"{combatant.name}: Void point spent, {void - spent} of {void} left"

    def _wound(self, target, amount: int, author, *, source: str) -> list[str]:
        """Damage lands as wounds: on the sheet through its history, or on a quick NPC's numbers."""
        before = fighter(target)
        if target.character is None:
            after = before.wounds + amount
            target.stats = {**target.stats, "wounds": after}
        else:
            sheet = target.character.l5r
            after = min(before.wounds + amount, WOUNDS_MAX)
            reason = f"{amount} wounds from {source}"
            with character_change(character=target.character, author=author, reason=reason):
                sheet.wounds = after
                sheet.save(update_fields=["wounds"])
        level = rules.wound_rank(after, before.earth)
        changes = [f"{target.name}: wounds {before.wounds} -> {after} ({wound_text(level)})"]
        target.out = level.name in OUT_RANKS
        if level.name == rules.DEAD:
            changes.append(f"{target.name} is dead")
        elif level.name == rules.OUT:
            changes.append(f"{target.name} is out of the fight")
        return changes

    # ----- what the table sees --------------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        numbers = fighter(combatant)
        level = numbers.wound_level
        if not for_gm and combatant.side == combatant.Side.GM:
            return "" if level.name == "Healthy" else level.name
        out_at = rules.wound_levels(numbers.earth)[-2].limit + 1  # the first wound past Down
        armor_tn = rules.armor_tn(numbers.reflexes, armor=numbers.armor)
        parts = [
            f"Wounds {numbers.wounds} ({wound_text(level)}; Out at {out_at})",
            f"Armor TN {armor_tn}",
            f"Void points {max(0, numbers.void - numbers.void_spent)}/{numbers.void}",
        ]
        if wound_note(level):
            parts.insert(1, wound_note(level))
        return " · ".join(parts)

    def is_out(self, combatant):
        # From the wounds, so healing on the sheet between turns brings a character back.
        return fighter(combatant).wound_level.name in OUT_RANKS


combat = L5RCombat()
