"""L5R Roll & Keep fights, played as 4th edition's skirmish (docs/rules.md, "L5R Roll & Keep" under
Encounters, says what is played and every reading taken).

By concern: ``forms`` (a quick NPC, the start button, each action's inputs), ``numbers`` (a combatant's
numbers, its Armor TN, Void and wounds), ``order`` (initiative, joining a running fight, what lasts from
turn to turn), ``turns`` (Stances, the Actions a turn holds, Guard and the other Simple Actions),
``attacks`` (attacks, maneuvers, damage through Reduction) and ``contests`` (contested, skill and
cumulative rolls, the GM's scene). The engine's numbers are ``rules.l5r``'s.
"""

from __future__ import annotations

from rules import l5r
from sheets.combat import CombatRules, EncounterError

from ..base import wound_note, wound_text
from .attacks import AttackMixin
from .contests import ContestMixin
from .forms import L5RNpcForm, L5RStartForm, open_tasks
from .numbers import OUT_RANKS, armor_tn, fighter, stance_of
from .order import OrderMixin
from .turns import TurnMixin

__all__ = ["L5RCombat", "combat", "open_tasks"]

NPC_NUMBERS = (
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


class L5RCombat(OrderMixin, TurnMixin, AttackMixin, ContestMixin, CombatRules):
    key = "l5r"
    npc_form_class = L5RNpcForm
    start_form_class = L5RStartForm

    def npc_stats(self, cleaned_data):
        optional = {name: cleaned_data.get(name) or 0 for name in ("defense", "reduction")}
        return {
            **{name: cleaned_data[name] for name in NPC_NUMBERS},
            **optional,
            "wounds": 0,
            "void_spent": 0,
        }

    def sample_npc(self) -> dict:
        """A bandit in light armor (4th edition: Armor TN +5, Reduction 3), as the NPC form takes it."""
        return {
            "reflexes": 2,
            "agility": 3,
            "strength": 3,
            "earth": 2,
            "void": 2,
            "insight_rank": 1,
            "attack_skill": 2,
            "defense": 1,
            "weapon_rolled": 3,
            "weapon_kept": 2,
            "armor": 5,
            "reduction": 3,
        }

    def act(self, encounter, actor, action, target, data, roller, author):
        if action == "attack":
            return self._attack(encounter, actor, target, data, roller, author)
        if action == "stance":
            return self._stance(encounter, actor, data, roller, author)
        if action in ("guard", "stand", "pick_up", "free"):
            return self._simple(encounter, actor, action, target, data, author)
        if action == "contest":
            return self._contest(encounter, actor, target, data, roller)
        if action == "skill":
            return self._skill_roll(encounter, actor, data, roller)
        if action == "task":
            return self._set_task(encounter, actor, data)
        if action == "scene":
            return self._set_scene(encounter, data)
        raise EncounterError("That action is not open to this combatant now.")

    # ----- what the table sees --------------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        numbers = fighter(combatant)
        level = numbers.wound_level
        stance = stance_of(combatant)
        # What anyone at the table sees of a fighter: its Stance, lying prone, a dropped weapon.
        seen = [stance.label] if stance is not l5r.Stance.ATTACK else []
        seen += [word for word in ("prone", "disarmed") if combatant.state.get(word)]
        if not for_gm:
            return " · ".join(([] if level.name == "Healthy" else [level.name]) + seen)
        out_at = l5r.wound_levels(numbers.earth)[-2].limit + 1  # the first wound past Down
        tn, _ = armor_tn(combatant, [combatant])  # a guard on it shows on the attack line
        parts = [
            f"Wounds {numbers.wounds} ({wound_text(level)}; Out at {out_at})",
            f"Armor TN {tn}" + (f", Reduction {numbers.reduction}" if numbers.reduction else ""),
            f"Void points {numbers.void_left}/{numbers.void}",
            *seen,
        ]
        if wound_note(level):
            parts.insert(1, wound_note(level))
        return " · ".join(parts)

    def is_out(self, combatant):
        # From the wounds, so healing on the sheet between turns brings a character back.
        return fighter(combatant).wound_level.name in OUT_RANKS


combat = L5RCombat()
