"""An L5R Turn (4th edition, Skirmishes): the Stance chosen at its start, the Actions it holds (one
Complex or two Simple, and Free), and the Actions that are not attacks: Guard, standing up, picking a
weapon up, and a Free Action at Down paid with a Void point."""

from __future__ import annotations

from rules import l5r
from sheets.combat import Action, EncounterError, RollResult, for_players, is_npc

from ..base import odd_die_bonus
from .forms import (
    L5RFreeActionForm,
    L5RSceneForm,
    L5RStanceForm,
    L5RTaskForm,
    contest_form,
    open_tasks,
    scene,
    skill_form,
)
from .numbers import dice, exploded, fighter, refusal, spend, spend_void, stance_of

SIMPLE, COMPLEX, FREE = l5r.ActionKind.SIMPLE, l5r.ActionKind.COMPLEX, l5r.ActionKind.FREE


def _stance_form(actor) -> type:
    """The Stance choice, starting on the one the combatant holds."""
    field = L5RStanceForm.base_fields["stance"]
    initial = {
        "stance": type(field)(choices=field.choices, initial=stance_of(actor).value, label=field.label)
    }
    return type("L5RStanceForm", (L5RStanceForm,), initial)


class TurnMixin:
    def actions(self, encounter, actor, combatants):
        numbers = fighter(actor)
        offered = []
        state = actor.state
        if (
            numbers.wound_level.tn_penalty is not None
            and not state.get("spent")
            and not state.get("stance_chosen")
        ):
            offered.append(
                Action(
                    "stance",
                    "Stance",
                    form_class=lambda: _stance_form(actor),
                    help=(
                        f"Held now: {stance_of(actor).label}. Chosen at the start of the turn. "
                        "Attack: no limits. Full Attack: +2k1 to melee "
                        "attacks, Armor TN -10, attacks only. Defense: Armor TN + Air + Defense, no "
                        "attacks. Full Defense: a Defense / Reflexes roll, half of it on the Armor TN "
                        "until the next turn, nothing else. Center: no actions; next round +1k1 and "
                        "+Void on one roll, +10 initiative."
                    ),
                )
            )
        extra = state.get("extra_attack", False)
        if not refusal(actor, FREE if extra else COMPLEX, attack=True):
            offered.append(self._attack_action(actor, combatants))
        others = tuple(c for c in combatants if c.pk != actor.pk and not self.is_out(c))
        if not refusal(actor, COMPLEX):
            offered.append(
                Action(
                    "contest",
                    "Contested roll (Complex Action)",
                    needs_target=True,
                    form_class=lambda: contest_form(encounter, others),
                    targets=others,
                    # What all roll is the GM's (l.57), and so is whether the scene allows a draw.
                    gm_fields=("roll", "tie_stands"),
                    help=(
                        "Everyone in it rolls the same trait, ring or skill (the GM's call); the highest "
                        "total wins, a tie at the top is rolled again unless it can stand. Each raise the "
                        "actor declares must be won by 5 more."
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
                        "Skill roll (Complex Action)",
                        form_class=lambda: skill_form(encounter, actor, combatants),
                        gm_fields=("tn",),  # the GM's TN (l.6): the scene's, or the GM types it
                        help=(
                            f"Skill + its trait against the GM's TN ({scene(encounter)['tn']} unless the "
                            "GM says otherwise; wounds add theirs). Group effort: one roll, + every "
                            "helper's rank in the skill. Roped together: each rolls, all but the "
                            "best-ranked + the best rank. Toward a task: a total reaching its minimum "
                            "comes off its TN." + (f" Open tasks: {tasks}." if tasks else "")
                        ),
                    )
                )
        if not refusal(actor, SIMPLE):
            friends = tuple(c for c in others if c.side == actor.side)
            if friends:
                offered.append(
                    Action(
                        "guard",
                        "Guard (Simple Action)",
                        needs_target=True,
                        targets=friends,
                        help="Until your next turn: their Armor TN +10, yours -5.",
                    )
                )
            if state.get("prone"):
                offered.append(Action("stand", "Stand up (Simple Action)", help="No longer prone."))
            if state.get("disarmed"):
                offered.append(Action("pick_up", "Pick the weapon up (Simple Action)"))
        if numbers.wound_level.name == l5r.DOWN and not refusal(actor, FREE):
            offered.append(
                Action(
                    "free",
                    "Free Action (a Void point)",
                    form_class=L5RFreeActionForm,
                    help="Down: Free Actions only, each paid with a Void point.",
                )
            )
        offered += [
            Action(
                "scene",
                "Set the TN and the contest roll",
                form_class=L5RSceneForm,
                help="The GM's calls a player's turn takes: the TN of skill rolls, what contests roll.",
                gm_only=True,
            ),
            Action(
                "task",
                "Set a cumulative task",
                form_class=L5RTaskForm,
                help="A high TN reached over several skill rolls; each counted total comes off it.",
                gm_only=True,
            ),
        ]
        return offered

    def _stance(self, encounter, actor, data, roller, author) -> list[RollResult]:
        """Adopt a Stance at the start of the Turn (4th edition, Stances)."""
        if actor.state.get("spent") or actor.state.get("stance_chosen"):
            raise EncounterError("The stance is chosen at the start of the turn, before any action.")
        stance = l5r.Stance(data["stance"])
        why = l5r.stance_refusal(stance, prone=actor.state.get("prone", False))
        if why:
            raise EncounterError(f"{actor.name}: {why}.")
        state = {**actor.state, "stance": stance.value, "stance_chosen": True}
        label = f"{actor.name}: {stance.label}"
        if stance is l5r.Stance.FULL_DEFENSE:
            # "This Skill Roll is considered a Complex Action": refused where no Complex Action is.
            why = l5r.action_refusal(
                COMPLEX, spent=0, stance=l5r.Stance.ATTACK, level=fighter(actor).wound_level
            )
            if why:
                raise EncounterError(f"{actor.name}: {why}.")
            numbers = fighter(actor)
            result = l5r.roll_pool(
                roller,
                l5r.full_defense_pool(numbers.reflexes, numbers.defense),
                odd_die_bonus=odd_die_bonus(encounter.campaign),
            )
            bonus = l5r.full_defense_bonus(result.total)
            actor.state = {**state, "full_defense": bonus, "spent": l5r.TURN_ACTIONS}
            unskilled = " unskilled" * (not numbers.defense)
            line = RollResult(
                label=label,
                summary=(
                    f"Defense {numbers.defense} + Reflexes {numbers.reflexes}{unskilled}: {result.notation}: "
                    f"{result.total}{exploded(result)}: Armor TN +{bonus} until its next turn; "
                    "Free Actions only"
                ),
                dice=dice(result),
                total=result.total,
                character=actor.character,
            )
            return [for_players(line, "Armor TN raised until its next turn") if is_npc(actor) else line]
        if stance is l5r.Stance.CENTER:
            actor.state = {**state, "center_round": encounter.round + 1, "spent": l5r.TURN_ACTIONS}
            summary = "no actions this turn; next round +1k1 and +Void on one roll, +10 initiative"
        else:
            actor.state = state
            summary = {
                l5r.Stance.ATTACK: "no limits",
                l5r.Stance.FULL_ATTACK: "+2k1 to melee attacks, Armor TN -10, attacks only",
                l5r.Stance.DEFENSE: "Armor TN + Air + Defense, no attacks",
            }[stance]
        return [RollResult(label=label, summary=summary, character=actor.character)]

    def _simple(self, encounter, actor, action, target, data, author) -> list[RollResult]:
        """Guard, standing up, picking a weapon up (Simple Actions) and Down's Free Action."""
        if action == "free":
            changes = [spend_void(actor, author, "Void point for a Free Action at Down")]
            what = " ".join(data["what"].split())
            return [
                RollResult(
                    label=f"{actor.name} (Down): Free Action",
                    summary=f"{what}, for a Void point",
                    changes=tuple(changes),
                    character=actor.character,
                )
            ]
        spend(actor, SIMPLE)
        if action == "guard":
            actor.state = {**actor.state, "guarding": target.pk}
            return [
                RollResult(
                    label=f"{actor.name} guards {target.name}",
                    summary=(
                        f"Until {actor.name}'s next turn: {target.name}'s Armor TN +{l5r.GUARD_BONUS}, "
                        f"{actor.name}'s -{l5r.GUARD_COST}"
                    ),
                    character=actor.character,
                )
            ]
        key = "prone" if action == "stand" else "disarmed"
        actor.state = {k: v for k, v in actor.state.items() if k != key}
        said = "stands up" if action == "stand" else "picks the weapon up"
        return [
            RollResult(label=f"{actor.name} {said}", summary="A Simple Action", character=actor.character)
        ]
