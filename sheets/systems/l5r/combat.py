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
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms

from campaigns.forms import WholeNumberField
from rules import l5r as rules
from rules.dice import Outcome
from sheets.combat import Action, CombatRules, EncounterError, RollResult
from sheets.contract import Die
from sheets.services import character_change

from .sheet import WOUNDS_MAX, odd_die_bonus, trait_label, wound_note, wound_text

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
        if actor.state.get("attacked") or not rules.can_attack(fighter(actor).wound_level):
            return []
        foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
        numbers = fighter(actor)
        wounded = f" Wounds add +{numbers.penalty}." if numbers.penalty else ""
        return [
            Action(
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
        ]

    def act(self, encounter, actor, action, target, data, roller, author):
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
        use_void = options["use_void"]
        if use_void:
            pool = rules.Pool(
                pool.rolled + 1, pool.kept + 1, pool.bonus, pool.explode, pool.raises_allowed, pool.attack
            )
        damage = rules.Pool(damage.rolled + raises, damage.kept, damage.bonus)
        return AttackPlan(pool, words, damage, damage_words, raises, use_void)

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
