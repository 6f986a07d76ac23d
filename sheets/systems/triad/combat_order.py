"""Triad fights, the order: initiative (d20 or the best current ability; NPCs Difficulty + 5), a newcomer
placed by its own initiative, and what a turn's start and end change (evading, a stun wearing off)."""

from __future__ import annotations

from rules import triad
from sheets.combat import RollResult, for_players, is_npc
from sheets.contract import Die
from sheets.services import character_change

from .combat_forms import trait_names


class TriadOrder:
    """Initiative and turns; mixed into ``TriadCombat``."""

    def _initiative(self, combatant, roller) -> tuple[triad.Initiative, RollResult]:
        """The combatant's initiative (Triad l.84, l.149) and the feed line that tells it."""
        if combatant.character is None:
            entry = triad.npc_initiative(str(combatant.pk), combatant.stats["difficulty"])
            line = RollResult(
                label=f"{combatant.name} initiative",
                summary=f"Difficulty {combatant.stats['difficulty']} + 5 = {entry.value}",
                total=entry.value,
                secret=True,
            )
            return entry, line
        sheet = combatant.character.triad
        # Danger Sense: advantage on initiative. A stun waits for the character's next turn.
        sensed = "Danger Sense" in trait_names(combatant.character)
        entry = triad.roll_initiative(
            roller,
            str(combatant.pk),
            body=sheet.body,
            mind=sheet.mind,
            spirit=sheet.spirit,
            edge=int(sensed),
        )
        best = max(sheet.body, sheet.mind, sheet.spirit)
        line = RollResult(
            label=f"{combatant.name} initiative",
            summary=f"d20 {entry.die} or best ability {best}: {entry.value}"
            + (" (Danger Sense: advantage)" if sensed else ""),
            dice=tuple(Die(f, kept=f == entry.die, sides=triad.DIE) for f in entry.faces),
            total=entry.value,
            character=combatant.character,
        )
        return entry, (for_players(line) if is_npc(combatant) else line)  # an NPC's sheet

    def start(self, encounter, combatants, roller):
        lines, entries = [], []
        for combatant in combatants:
            entry, line = self._initiative(combatant, roller)
            lines.append(line)
            combatant.initiative = entry.value
            entries.append(entry)
        order = [e.name for e in triad.initiative_order(entries)]
        for combatant in combatants:
            combatant.position = order.index(str(combatant.pk))
            combatant.state = {}
        combatants.sort(key=lambda c: c.position)
        return lines

    def join(self, encounter, combatant, combatants, roller):
        """A newcomer to a running fight rolls initiative (Triad l.84) and takes its place in the order:
        after everyone with a higher or equal value (their dice are gone, so a tie goes to those already
        fighting). Whoever acts now keeps the turn, so a newcomer placed above them waits for the next
        round."""
        entry, line = self._initiative(combatant, roller)
        combatant.initiative = entry.value
        combatant.state = {}
        others = [c for c in combatants if c is not combatant]
        index = next((i for i, c in enumerate(others) if (c.initiative or 0) < entry.value), len(others))
        waits = index <= encounter.turn  # its place this round has gone by
        self.place(encounter, combatants, combatant, index)
        where = f"after {others[index - 1].name}" if index else "first"
        joined = RollResult(
            label=f"{combatant.name} joins",
            summary=f"{combatant.name} joins the fight, acting {where} in the order"
            + (", from the next round." if waits else "."),
            character=combatant.character,
        )
        return [line, joined]

    def new_round(self, encounter, combatants):
        return []  # what lasts in Triad lasts until a character's next turn, not a round

    def begin_turn(self, encounter, actor, author):
        # Evading lasts until the evader's next turn. A stun taken before this turn spoils this one:
        # a player character's waits on the sheet, an NPC's on its combatant.
        if actor.character is not None:
            stunned = actor.character.triad.stunned
        else:
            stunned = bool(actor.state.get("stunned"))
        actor.state = {"actions": 0, "stunned_this_turn": stunned}
        return []

    def end_turn(self, encounter, actor, author):
        if actor is None or not actor.state.get("stunned_this_turn"):
            return []
        # A stun taken during this very turn is for the next one: it stays.
        restunned = actor.state.get("stunned_anew", False)
        actor.state = {k: v for k, v in actor.state.items() if k not in ("stunned_this_turn", "stunned_anew")}
        if restunned:
            return []
        if actor.character is not None:
            sheet = actor.character.triad
            with character_change(character=actor.character, author=author, reason="Stun wears off"):
                sheet.stunned = False
                sheet.save(update_fields=["stunned"])
        return [
            RollResult(
                label=f"{actor.name} shakes off the stun",
                summary="No longer stunned.",
                character=actor.character,
                secret=actor.character is None,
            )
        ]
