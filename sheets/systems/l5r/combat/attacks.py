"""L5R attacks: the roll against the Armor TN with raises and maneuvers, damage through Reduction, and
what a Disarm or a Knockdown's Contested Strength Roll does after the hit."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from campaigns.forms import row_id
from rules import l5r
from rules.dice import Outcome
from sheets.combat import Action, EncounterError, RollResult, for_players, is_npc

from ..base import odd_die_bonus, trait_label
from ..rolls import rerolled_text
from .forms import L5RNpcAttackForm, attack_form
from .numbers import (
    armor_tn,
    centered,
    dice,
    exploded,
    fighter,
    refusal,
    spend,
    spend_void,
    stance_of,
    use_center,
    wound,
)

ARROW = l5r.ARROWS[0]  # the standard arrow
MAX_REROLLS = 20  # ties re-roll at once (the book); twenty ties running is a stand-off, not a loop


@dataclass(frozen=True)
class AttackPlan:
    """What an attack rolls and, on a hit, what damage it rolls."""

    pool: l5r.Pool
    words: str  # "Kenjutsu 2 + Agility 3"
    damage: l5r.Pool
    damage_words: str  # "Katana 3k2 + Strength 2"
    raises: int  # every raise declared: the maneuver's and Increased Damage's
    increased: int  # Increased Damage raises: +1k0 each
    use_void: bool
    maneuver: l5r.Maneuver | None
    ranged: bool
    emphasis: str = ""  # the attack skill's emphasis that applies: 1s re-rolled once


def _weapon_damage(character, choice: str, skill: l5r.Skill) -> tuple[l5r.Pool, str, bool]:
    """The damage pool of the chosen weapon, its words, and whether it shoots (a bow)."""
    strength = character.l5r.strength
    if choice == "unarmed":
        if skill.name == "Kyujutsu":
            raise EncounterError("Kyujutsu shoots a bow: pick the bow.")
        return l5r.damage_pool(l5r.UNARMED, strength), f"Unarmed 0k1 + Strength {strength}", False
    row = character.l5r_weapons.filter(pk=row_id(choice)).first() if row_id(choice) else None
    if row is None:
        raise EncounterError("Pick one of the character's weapons.")
    if (row.bow_strength is not None) != (skill.name == "Kyujutsu"):
        raise EncounterError("A bow fires with Kyujutsu, and Kyujutsu needs a bow.")
    if row.bow_strength is not None:
        bow = l5r.Weapon(row.name, 0, 0, bow_strength=row.bow_strength)
        words = f"{ARROW.name} {ARROW.dr} + {row.name} strength {row.bow_strength}"
        return l5r.bow_damage_pool(bow, ARROW), words, True
    weapon = l5r.Weapon(row.name, row.rolled, row.kept)
    return l5r.damage_pool(weapon, strength), f"{row.name} {weapon.dr} + Strength {strength}", False


class AttackMixin:
    def _attack_action(self, actor, combatants) -> Action:
        numbers = fighter(actor)
        foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
        wounded = f" Wounds add +{numbers.penalty}." if numbers.penalty else ""
        extra = " This is the Extra Attack its last hit won." if actor.state.get("extra_attack") else ""
        return Action(
            "attack",
            "Attack (Complex Action)" if not extra else "Extra Attack",
            needs_target=True,
            form_class=L5RNpcAttackForm if actor.character is None else lambda: attack_form(actor.character),
            targets=foes,
            help=(
                "Skill + its trait (Agility; Reflexes for Kyujutsu) against the target's Armor TN, +5 "
                "per raise: a maneuver's, and Increased Damage's (+1k0 each); a hit rolls damage at "
                f"once, less the target's armor Reduction.{wounded}{extra}"
            ),
        )

    def _plan(self, encounter, actor, data) -> AttackPlan:
        """The attack and damage pools from the form, with the Stance, Prone, Void and Center."""
        maneuver_key = data.get("maneuver") or ""
        increased = data.get("raises") or 0
        raises = l5r.maneuver_raises(maneuver_key, increased)
        maneuver = l5r.MANEUVERS_BY_KEY.get(maneuver_key)
        if maneuver is not None and maneuver.key == "extra_attack" and actor.state.get("extra_used"):
            raise EncounterError("The Extra Attack maneuver may be used only once a turn.")
        disarmed = actor.state.get("disarmed")
        if actor.character is None:
            stats = actor.stats
            pool = l5r.skill_pool(stats["agility"], stats["attack_skill"], attack=True)
            words = f"Attack skill {stats['attack_skill']} + Agility {stats['agility']}"
            if disarmed:  # its one weapon lies on the ground: it fights bare-handed
                weapon = l5r.UNARMED
                damage_words = f"Unarmed 0k1 + Strength {stats['strength']} (disarmed)"
            else:
                weapon = l5r.Weapon("Weapon", stats["weapon_rolled"], stats["weapon_kept"])
                damage_words = f"Weapon {weapon.dr} + Strength {stats['strength']}"
            damage = l5r.damage_pool(weapon, stats["strength"])
            emphasis, ranged = "", False  # a quick NPC has one melee attack and no emphases
        else:
            sheet = actor.character.l5r
            skill = l5r.skill_info(data["skill"])
            row = actor.character.l5r_skills.filter(name__iexact=skill.name).first()
            rank = row.rank if row is not None else 0
            trait = getattr(sheet, skill.trait)
            pool = l5r.skill_pool(trait, rank, attack=True)
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + (" unskilled" * (not rank))
            if disarmed and data["weapon"] != "unarmed":
                raise EncounterError(
                    f"{actor.name} was disarmed: pick the weapon up (a Simple Action) or fight unarmed."
                )
            damage, damage_words, ranged = _weapon_damage(actor.character, data["weapon"], skill)
            emphasis = self._emphasis(data, skill)  # offered only for skills with a rank
            if emphasis:
                pool = pool.with_emphasis()
                words += f", emphasis {emphasis}"
        stance = stance_of(actor)
        try:
            pool = l5r.stance_attack_pool(pool, stance, ranged=ranged)
        except l5r.RulesError as refused:
            raise EncounterError(str(refused)) from None
        if stance is l5r.Stance.FULL_ATTACK:
            words += ", Full Attack +2k1"
        if actor.state.get("prone"):
            pool = l5r.prone_attack_pool(pool)
            words += ", prone -2k0"
        use_void = data.get("use_void", False)
        if use_void:
            pool = dataclasses.replace(pool, rolled=pool.rolled + 1, kept=pool.kept + 1)
        pool, center_words = centered(encounter, actor, pool)
        words += center_words
        if maneuver is not None and maneuver.key == "disarm":
            damage, damage_words = l5r.DISARM_DAMAGE, "Disarm 2k1"
        damage = l5r.Pool(damage.rolled + increased, damage.kept, damage.bonus)
        return AttackPlan(
            pool, words, damage, damage_words, raises, increased, use_void, maneuver, ranged, emphasis
        )

    def _attack_tn(self, encounter, actor, target, plan) -> tuple[l5r.RaisePlan, str]:
        attacker = fighter(actor)
        everyone = list(encounter.combatants.all())
        by_pk = {c.pk: c for c in everyone}
        by_pk.update({actor.pk: actor, target.pk: target})  # this request's own, with their state
        base, words = armor_tn(target, list(by_pk.values()), melee=not plan.ranged)
        if plan.raises > attacker.void:
            raise EncounterError(f"With Void {attacker.void} at most {attacker.void} raises can be called.")
        tn_plan = l5r.plan_raises(
            base + attacker.penalty,
            raises=plan.raises,
            void=attacker.void,
            unskilled=not plan.pool.raises_allowed,
        )
        if attacker.penalty:
            words += f" + {attacker.penalty} for {attacker.wound_level.name} wounds"
        if plan.raises:
            plural = "s" if plan.raises > 1 else ""
            words += f" + {l5r.RAISE_STEP * plan.raises} for {plan.raises} raise{plural}"
            if plan.maneuver is not None:
                words += f": {plan.maneuver.name}"
        return tn_plan, words

    def _attack(self, encounter, actor, target, data, roller, author) -> list[RollResult]:
        extra = actor.state.get("extra_attack", False)
        why = refusal(actor, l5r.ActionKind.FREE if extra else l5r.ActionKind.COMPLEX, attack=True)
        if why:
            raise EncounterError(f"{actor.name}: {why}.")
        attacker = fighter(actor)
        plan = self._plan(encounter, actor, data)
        if plan.use_void and attacker.void_left < 1:
            raise EncounterError(f"{actor.name} has no Void points left: all {attacker.void} are spent.")
        tn_plan, tn_words = self._attack_tn(encounter, actor, target, plan)
        odd = odd_die_bonus(encounter.campaign)
        changes = []
        if plan.use_void:
            changes.append(spend_void(actor, author, "Void point for an attack"))
        result = l5r.roll_pool(roller, plan.pool, tn=tn_plan.tn, odd_die_bonus=odd)
        use_center(encounter, actor)
        if extra:
            actor.state = {**actor.state, "extra_attack": False}
        else:
            spend(actor, l5r.ActionKind.COMPLEX)
        hit_or_miss = "hit" if result.success else "miss"
        line = RollResult(
            label=f"{actor.name} attacks {target.name}",
            summary=(
                f"{plan.words}{' + Void point' * plan.use_void}: {result.notation} vs TN {tn_plan.tn} "
                f"({tn_words}): {result.total}, {hit_or_miss}{exploded(result)}"
                + (f" · {rerolled_text(plan.emphasis, result)}" if plan.emphasis else "")
            ),
            dice=dice(result),
            outcome=result.outcome,
            outcome_label=hit_or_miss,
            total=result.total,
            chance=plan.pool.chance(tn_plan.tn, odd_die_bonus=odd),
            changes=tuple(changes),
            character=actor.character,
        )
        # An NPC's skill and Void, or its Armor TN (the odds and the total against it tell it too).
        npc_line = is_npc(actor) or is_npc(target)
        lines = [for_players(line, "", [] if is_npc(actor) else changes) if npc_line else line]
        if result.success:
            lines += self._hit(encounter, actor, target, plan, result, tn_plan.tn, roller, author)
        return lines

    def _hit(self, encounter, actor, target, plan, result, tn, roller, author) -> list[RollResult]:
        """Damage through the target's Reduction, then what the maneuver does (4th edition, Maneuvers)."""
        odd = odd_die_bonus(encounter.campaign)
        maneuver = plan.maneuver.key if plan.maneuver is not None else ""
        damage_pool, extra_words = plan.damage, ""
        if plan.increased:
            extra_words += f" + {plan.increased}k0 for raises"
        if maneuver == "feint":
            bonus = l5r.feint_bonus(result.total, tn, fighter(actor).school_rank)
            damage_pool = dataclasses.replace(damage_pool, bonus=damage_pool.bonus + bonus)
            extra_words += f" + {bonus} for the Feint"
        damage = l5r.roll_pool(roller, damage_pool, odd_die_bonus=odd)
        reduction = fighter(target).reduction
        wounds = l5r.reduced_damage(damage.total, reduction)
        through = f" - {reduction} Reduction = {wounds}" if reduction else ""
        wounded = wound(target, wounds, author, source=actor.name)
        line = RollResult(
            label=f"{actor.name} damages {target.name}",
            summary=(
                f"{plan.damage_words}{extra_words}: {damage.notation}: {damage.total}{through} wounds"
                f"{exploded(damage)}"
            ),
            dice=dice(damage),
            outcome=Outcome.NONE,
            outcome_label="damage",
            total=damage.total,
            changes=tuple(wounded),
            character=target.character or actor.character,
        )
        if is_npc(target):  # its wounds are the GM's; its rank is what anyone sees of it
            level = fighter(target).wound_level.name
            line = for_players(line, "", [f"{target.name}: {level}", *wounded[1:]])
        elif is_npc(actor):  # the NPC's weapon and Strength; the wounds are the character's own
            line = for_players(line, f"{wounds} wounds", wounded)
        lines = [line]
        if plan.maneuver is not None and plan.maneuver.key.startswith("called_"):
            lines[0] = dataclasses.replace(
                lines[0], summary=lines[0].summary + f" · {plan.maneuver.name}: the GM rules what it does"
            )
        if maneuver == "extra_attack":
            actor.state = {**actor.state, "extra_attack": True, "extra_used": True}
        if maneuver in ("disarm", "knockdown") and not self.is_out(target):
            lines += self._strength_contest(encounter, actor, target, maneuver, roller)
        return lines

    def _strength_contest(self, encounter, actor, target, maneuver, roller) -> list[RollResult]:
        """A Disarm or Knockdown that hit: a Contested Strength Roll; if the attacker wins, the target
        drops its weapon, or is knocked prone. Ties re-roll (l.57); twenty running leave it as it was."""
        odd = odd_die_bonus(encounter.campaign)
        lines, totals = [], [0, 0]
        for attempt in range(1, MAX_REROLLS + 1):
            totals = []
            for combatant in (actor, target):
                strength = fighter(combatant).strength
                rolled = l5r.roll_pool(roller, l5r.trait_pool(strength), odd_die_bonus=odd)
                totals.append(rolled.total)
                again = f" (re-roll {attempt - 1})" if attempt > 1 else ""
                line = RollResult(
                    label=f"{combatant.name}: contested Strength{again}",
                    summary=f"Strength {strength}: {rolled.notation}: {rolled.total}{exploded(rolled)}",
                    dice=dice(rolled),
                    total=rolled.total,
                    character=combatant.character,
                )
                lines.append(for_players(line, f"total {rolled.total}") if is_npc(combatant) else line)
            if totals[0] != totals[1]:
                break
        won = totals[0] > totals[1]
        if maneuver == "disarm":
            effect = f"{target.name} drops the weapon" if won else f"{target.name} keeps hold of the weapon"
            if won:
                target.state = {**target.state, "disarmed": True}
        else:
            effect = f"{target.name} is knocked prone" if won else f"{target.name} keeps its feet"
            if won:
                target.state = {**target.state, "prone": True}
        lines.append(
            RollResult(
                label=f"{maneuver.capitalize()}: {actor.name} against {target.name}",
                summary=f"{totals[0]} to {totals[1]}: {effect}",
                outcome=Outcome.SUCCESS if won else Outcome.FAILURE,
                outcome_label="won" if won else "lost",
                character=actor.character,
            )
        )
        return lines

    def chance(self, encounter, actor, action, target, data):
        """The attack roll against the target's Armor TN, wounds and raises added, as ``act`` rolls it."""
        if action != "attack" or target is None:
            return None
        plan = self._plan(encounter, actor, data)
        tn_plan, _ = self._attack_tn(encounter, actor, target, plan)
        return plan.pool.chance(tn_plan.tn, odd_die_bonus=odd_die_bonus(encounter.campaign))
