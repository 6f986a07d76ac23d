"""The order of an L5R fight: initiative rolled once (and on joining), Center's +10 for a round, what
lasts from one Turn to the next."""

from __future__ import annotations

from rules import l5r
from sheets.combat import RollResult, for_players, is_npc

from ..base import odd_die_bonus
from .numbers import dice, exploded, fighter, stance_of

# What a combatant carries from Turn to Turn: its Stance, lying prone, a dropped weapon, a Center
# Stance's bonus waiting for its round, and the initiative it rolled (before Center's +10).
LASTING = ("stance", "prone", "disarmed", "center_round", "rolled_initiative")
# Stances whose effect ends at the combatant's next Turn: Full Defense's roll lasts "until his following
# Turn" and Center "forfeits all Actions" of one Turn, so each is declared again to be held (reading).
ONE_TURN = (l5r.Stance.FULL_DEFENSE, l5r.Stance.CENTER)


class OrderMixin:
    def _initiative(self, encounter, combatant, roller) -> RollResult:
        """Roll ``combatant``'s initiative: Reflexes + Insight (school) rank rolled, Reflexes kept, with
        the GM's changes from the start button (4th edition, Stage 1: Initiative)."""
        chosen = encounter.state.get("start", {})
        options = {name: chosen.get(name) or 0 for name in ("extra_rolled", "extra_kept", "bonus")}
        numbers = fighter(combatant)
        pool = l5r.initiative_pool(
            numbers.reflexes,
            numbers.school_rank,
            extra_rolled=options["extra_rolled"],
            extra_kept=options["extra_kept"],
            bonus=options["bonus"],
        )
        result = l5r.roll_pool(roller, pool, odd_die_bonus=odd_die_bonus(encounter.campaign))
        rank_name = "school rank" if combatant.character is not None else "Insight rank"
        combatant.initiative = result.total
        combatant.state = {"rolled_initiative": result.total}
        line = RollResult(
            label=f"{combatant.name} initiative",
            summary=(
                f"Reflexes {numbers.reflexes} + {rank_name} {numbers.school_rank}: "
                f"{result.notation}: {result.total}{exploded(result)}"
            ),
            dice=dice(result),
            total=result.total,
            character=combatant.character,
            secret=combatant.character is None,
        )
        return for_players(line) if is_npc(combatant) else line

    @staticmethod
    def _sort(combatants, listed) -> None:
        """Highest initiative first; ties to the higher Reflexes, then to ``listed`` order."""
        combatants.sort(key=lambda c: (-c.initiative, -fighter(c).reflexes, listed[c.pk]))
        for position, combatant in enumerate(combatants):
            combatant.position = position

    def start(self, encounter, combatants, roller):
        lines = [self._initiative(encounter, combatant, roller) for combatant in combatants]
        self._sort(combatants, {combatant.pk: index for index, combatant in enumerate(combatants)})
        return lines

    def join(self, encounter, combatant, combatants, roller):
        """A combatant added to a running fight rolls initiative as everyone did at the start (4th
        edition: the roll is made "on a character's first Round of participation") and takes its place
        in the order by it, after anyone it ties with (they were there first). Whoever acts now keeps
        the turn (``place``): placed ahead of the turn, the newcomer first acts next round."""
        line = self._initiative(encounter, combatant, roller)

        def rank(c):
            return (-c.initiative, -fighter(c).reflexes)

        others = [c for c in combatants if c.pk != combatant.pk]
        index = next((i for i, c in enumerate(others) if rank(combatant) < rank(c)), len(others))
        self.place(encounter, combatants, combatant, index)
        return [line]

    def new_round(self, encounter, combatants):
        """Nothing ends with the round (a guard and a Full Defense roll last until their maker's next Turn:
        ``begin_turn``); a Center Stance taken last round adds 10 to its Initiative Score for this round
        only, so the order is found again each round."""
        for combatant in combatants:
            rolled = combatant.state.get("rolled_initiative", combatant.initiative)
            centered = combatant.state.get("center_round") == encounter.round
            combatant.initiative = rolled + (l5r.CENTER_INITIATIVE if centered else 0)
            combatant.state = {**combatant.state, "rolled_initiative": rolled}
        self._sort(combatants, {c.pk: c.position for c in combatants})
        return []

    def begin_turn(self, encounter, actor, author):
        """A Turn starts with nothing spent; a guard and a Full Defense roll end now, and so does a
        Stance held for one Turn; the Stance may be chosen again before any Action."""
        kept = {k: v for k, v in actor.state.items() if k in LASTING}
        if stance_of(actor) in ONE_TURN:
            kept["stance"] = l5r.Stance.ATTACK.value
        if kept.get("center_round", encounter.round) < encounter.round:
            kept.pop("center_round")  # its round passed unused
        actor.state = {**kept, "spent": 0}
        return []
