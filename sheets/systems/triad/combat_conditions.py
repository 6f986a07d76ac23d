"""Triad fights, the conditions an attack leaves instead of damage (Triad l.125: grappled, disarmed,
prone; l.191's stun is the stun of l.124) and the GM's restrained (l.63, l.100), and the actions that end
them: breaking free, standing up, picking the weapon up.

A character's conditions are on its sheet (they outlast the fight, and the sheet's rolls feel them); a
quick NPC's are in its combatant's ``stats["conditions"]``.
"""

from __future__ import annotations

from rules import triad
from sheets.combat import Action, RollResult, for_players
from sheets.services import character_change

from .combat_forms import (
    TriadBreakFreeForm,
    adv_traits,
    label,
    picked_trait,
    task_dice,
    trait_names,
    with_traits,
)

#: The actions that end a condition, each one of the turn's two.
CONDITION_ACTIONS = ("break_free", "stand", "pick_up")


def npc_has(combatant, condition: str) -> bool:
    return condition in (combatant.stats.get("conditions") or ())


def set_npc_condition(combatant, condition: str, on: bool) -> None:
    held = [c for c in (combatant.stats.get("conditions") or ()) if c != condition]
    combatant.stats = {**combatant.stats, "conditions": [*held, condition] if on else held}


def npc_weapon(combatant) -> int:
    """The damage a quick NPC's blows deal: its weapon, or its fists once disarmed."""
    return triad.weapon_in_hand(combatant.stats.get("weapon") or "", disarmed=npc_has(combatant, "disarmed"))


def has(combatant, condition: str) -> bool:
    """Whether the combatant (a character's sheet, or a quick NPC) has the condition."""
    if combatant.character is not None:
        return bool(getattr(combatant.character.triad, condition))
    return npc_has(combatant, condition)


def conditions_of(combatant) -> list[str]:
    return [c for c in ("grappled", "restrained", "prone", "disarmed") if has(combatant, c)]


class TriadConditions:
    """The actions that end a condition; mixed into ``TriadCombat``."""

    def _condition_actions(self, actor, foes) -> list[Action]:
        """What the actor's conditions offer (or take away) this turn: Move only on its feet and untied."""
        offered = []
        holders = tuple(f for f in foes if (f.character is None) == (actor.character is not None))
        if has(actor, "grappled") and holders:
            if actor.character is not None:
                own = [(str(t.pk), t.name) for t in adv_traits(actor.character)]
                offered.append(
                    Action(
                        "break_free",
                        "Break free",
                        needs_target=True,
                        targets=holders,
                        form_class=with_traits(TriadBreakFreeForm, own),
                        help="A Body task against the holder's Difficulty, at the hold's disadvantage.",
                    )
                )
            else:
                offered.append(
                    Action(
                        "break_free",
                        "Break free",
                        needs_target=True,
                        targets=holders,
                        help="The character holding it rolls Body against its Difficulty, with advantage "
                        "(the hold weighs on its Body task); anything short of a success lets it go.",
                    )
                )
        if has(actor, "prone"):
            offered.append(Action("stand", "Stand up", help="One action to get back on its feet."))
        if has(actor, "disarmed"):
            offered.append(
                Action("pick_up", "Pick up the weapon", help="One action; until then, fists (Light).")
            )
        return offered

    def may_move(self, actor) -> bool:
        """Restrained: no moving at all (Triad l.100); prone: standing up comes first."""
        return not has(actor, "restrained") and not has(actor, "prone")

    def _condition_act(self, actor, action, target, data, roller, author) -> list[RollResult]:
        if action == "stand":
            self._clear(actor, "prone", author, reason="Stood up")
            return [self._plain(actor, f"{actor.name} stands up", "No longer prone.")]
        if action == "pick_up":
            self._clear(actor, "disarmed", author, reason="Picked up the weapon")
            return [self._plain(actor, f"{actor.name} picks up the weapon", "Armed again.")]
        if actor.character is not None:
            return self._pc_breaks_free(actor, target, data, roller, author)
        return self._npc_breaks_free(actor, target, roller, author)

    @staticmethod
    def _plain(actor, title: str, summary: str) -> RollResult:
        return RollResult(label=title, summary=summary, character=actor.character, secret=False)

    @staticmethod
    def _clear(combatant, condition: str, author, *, reason: str) -> None:
        if combatant.character is None:
            set_npc_condition(combatant, condition, False)
            return
        sheet = combatant.character.triad
        with character_change(character=combatant.character, author=author, reason=reason):
            setattr(sheet, condition, False)
            sheet.save(update_fields=[condition])

    @staticmethod
    def _break_free_edge(actor, data, trait) -> int:
        """Triad l.125, l.63: the hold's disadvantage weighs on the very task that breaks it."""
        return triad.count_edge(
            adv_traits=int(trait is not None),
            disadvantages=actor.character.triad.body_hindrances,
            stunned=bool(actor.state.get("stunned_this_turn")),
            extra_effort=bool(data.get("extra_effort")),
        )

    def _break_free_chance(self, actor, target, data):
        """The chance a character breaks free, as ``_pc_breaks_free`` rolls it."""
        trait = picked_trait(actor.character, data.get("trait") or "")
        edge = self._break_free_edge(actor, data, trait)
        odds = triad.chance(
            actor.character.triad.body, target.stats["difficulty"], edge=edge, adv_trait=trait is not None
        )
        return odds[triad.CRITICAL] + odds[triad.SUCCESS] + odds[triad.MIXED]

    def _pc_breaks_free(self, actor, target, data, roller, author):
        sheet = actor.character.triad
        trait = picked_trait(actor.character, data.get("trait") or "")
        effort = bool(data.get("extra_effort"))
        edge = self._break_free_edge(actor, data, trait)
        current, difficulty = sheet.body, target.stats["difficulty"]
        vitals = sheet.vitals(trait_names(actor.character))
        if effort:
            vitals = triad.spend(vitals, triad.BODY, 1)  # refused (nothing rolled) with no point left
        odds = triad.chance(current, difficulty, edge=edge, adv_trait=trait is not None)
        result = triad.roll_task(
            roller, ability=current, difficulty=difficulty, edge=edge, adv_trait=trait is not None
        )
        changes = []
        if effort:
            with character_change(character=actor.character, author=author, reason="Extra effort"):
                sheet.store(vitals)
                sheet.save(update_fields=[triad.BODY])
            changes.append(f"Body {current} -> {vitals.body} (extra effort)")
        if result.succeeded:
            self._clear(actor, "grappled", author, reason=f"Broke free of {target.name}")
            changes.append(f"{actor.name} breaks free")
        else:
            changes.append(f"{actor.name} is still held")
        line = RollResult(
            label=f"{actor.name} breaks free of {target.name}",
            summary=f"Body {current} vs {difficulty}: {result.total}, {result.outcome}"
            + (f" ({trait.name})" if trait else ""),
            dice=task_dice(result),
            outcome=result.outcome,
            total=result.total,
            chance=odds[triad.CRITICAL] + odds[triad.SUCCESS] + odds[triad.MIXED],
            changes=tuple(changes),
            character=actor.character,
        )
        return [for_players(line, f"Body {current}: {result.total}", changes)]

    def _npc_breaks_free(self, actor, target, roller, author):
        """An NPC does not roll: the character holding it rolls Body against its Difficulty, the NPC's
        disadvantage being that character's advantage (as a stunned NPC's attack is: docs/rules.md)."""
        sheet = target.character.triad
        edge = triad.count_edge(
            advantages=1, disadvantages=sheet.body_hindrances, stunned=bool(sheet.stunned)
        )
        difficulty = actor.stats["difficulty"]
        result = triad.roll_task(roller, ability=sheet.body, difficulty=difficulty, edge=edge)
        odds = triad.chance(sheet.body, difficulty, edge=edge)
        free = result.failed
        if free:
            set_npc_condition(actor, "grappled", False)
        said = f"{actor.name} breaks free" if free else f"{target.name} keeps hold of {actor.name}"
        line = RollResult(
            label=f"{actor.name} tries to break free of {target.name}",
            summary=f"{target.name} holds on with {label(triad.BODY)} {sheet.body} vs {difficulty}: "
            f"{result.total}, {result.outcome}",
            dice=task_dice(result),
            outcome=result.outcome,
            total=result.total,
            chance=odds[triad.CRITICAL] + odds[triad.SUCCESS],
            changes=(said,),
            character=target.character,
        )
        return [for_players(line, f"{target.name} holds on with Body {sheet.body}: {result.total}", [said])]
