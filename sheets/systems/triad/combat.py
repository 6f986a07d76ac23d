"""Triad fights: initiative by d20 or best ability (NPCs Difficulty + 5), two actions a turn,
attacks as task rolls against the foe's Difficulty, damage tiers, armor, stun, dying at 0, and what an
attack may do instead of damage.

Player characters roll everything: on their own turn to attack, and on an NPC's turn to hold off its
attack (a defence roll against the NPC's Difficulty, with the ability its kind of attack hurts). Quick
NPCs have one Difficulty that damage wears down; at 0 they are out. Traits that change a fight
(an (Adv.) trait picked for the roll, Deadly, Danger Sense, Hard To ..., Relentless, Berserker Rage)
are played here; what must outlast the fight (death, a spent Hard To ..., a stun, Rage's advantage, the
conditions) is kept on the sheet.

By concern: the forms and shared readers (``combat_forms``), the order (``combat_order``), blows and
damage (``combat_attacks``), conditions and the actions that end them (``combat_conditions``), opposed
and team tasks (``combat_tasks``). This module offers the actions and routes each to its part.
"""

from __future__ import annotations

from rules import triad
from sheets.combat import Action, CombatRules, RollResult
from sheets.services import character_change

from .combat_attacks import TriadAttacks
from .combat_conditions import CONDITION_ACTIONS, TriadConditions, conditions_of
from .combat_forms import (
    TriadAttackForm,
    TriadDefendForm,
    TriadNpcForm,
    TriadOpposedForm,
    TriadRageForm,
    TriadTeamForm,
    able,
    adv_traits,
    choices_form,
    label,
    trait_names,
    with_traits,
)
from .combat_order import TriadOrder
from .combat_tasks import TriadTasks

#: Actions that do not use up one of the turn's two.
FREE_ACTIONS = ("rage",)


class TriadCombat(TriadOrder, TriadAttacks, TriadConditions, TriadTasks, CombatRules):
    key = "triad"
    npc_form_class = TriadNpcForm

    def npc_stats(self, cleaned_data):
        return {
            "difficulty": cleaned_data["difficulty"],
            "max_difficulty": cleaned_data["difficulty"],
            "weapon": cleaned_data.get("weapon") or "",
            "armor": cleaned_data.get("armor") or "none",
            "kind": cleaned_data.get("kind") or triad.BODY,
        }

    def sample_npc(self) -> dict:
        """A guard or soldier of the book's rule of thumb (Triad l.248: Difficulty 10), a sword and a
        leather jacket: the tests' Triad bandit."""
        return {"difficulty": 10, "weapon": "medium", "armor": "light", "kind": triad.BODY}

    # ----- a turn ---------------------------------------------------------------------------------

    def actions(self, encounter, actor, combatants):
        foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
        if actor.character is None:
            if actor.state.get("actions", 0) >= triad.ACTIONS_PER_TURN:
                return []
            targets = tuple(f for f in foes if f.character is not None)
            choices = [(str(t.pk), f"{f.name}: {t.name}") for f in targets for t in adv_traits(f.character)]
            offered = [
                Action(
                    "attack",
                    "Attack",
                    needs_target=True,
                    form_class=with_traits(TriadDefendForm, choices),
                    targets=targets,
                    help="The player character rolls to hold it off, against its Difficulty, with the "
                    "score its kind of attack hurts. A dying character cannot: the hit lands. The "
                    "defender's player picks their (Adv.) trait and extra effort, unless the GM resolves "
                    "at once with the inputs here.",
                    defender_chooses=True,
                )
            ]
            if self.may_move(actor):
                offered.append(Action("move", "Move"))
            return offered + self._condition_actions(actor, foes)
        characters = [c for c in combatants if c.character is not None]
        return self._pc_actions(actor, foes, characters)

    def _together_actions(self, actor, characters) -> list[Action]:
        """Tasks with other characters: an opposed roll against one, a team task with some."""
        others = [c for c in characters if c.pk != actor.pk and able(c)]
        if not others:
            return []
        own = [(str(t.pk), t.name) for t in adv_traits(actor.character)]
        theirs = [(str(t.pk), f"{c.name}: {t.name}") for c in others for t in adv_traits(c.character)]
        return [
            Action(
                "opposed",
                "Opposed roll",
                needs_target=True,
                targets=tuple(others),
                form_class=choices_form(TriadOpposedForm, trait=own, their_trait=theirs),
                gm_fields=("their_ability", "their_trait", "harm"),  # the other side is not the actor's
                help="Both roll; the higher total wins, 5 or more ahead is a critical (double damage "
                "if harm was at stake). A tie is mixed for both unless one side alone has a related "
                "(Adv.) trait. The odds are in the line it writes.",
            ),
            Action(
                "team",
                "Team task",
                form_class=choices_form(TriadTeamForm, helpers=[(str(c.pk), c.name) for c in others]),
                gm_fields=("difficulty",),  # how hard the task is is the GM's call
                help="Everyone named rolls; the best single number counts against the Difficulty, "
                "but a 1 from anyone fumbles the whole task.",
            ),
        ]

    def _pc_actions(self, actor, foes, characters=()):
        character = actor.character
        sheet = character.triad
        traits = trait_names(character)
        used = actor.state.get("actions", 0)
        if sheet.dead:
            return []
        if sheet.dying:
            # A dying character takes no actions; it may only crawl, once a turn.
            if actor.state.get("crawled"):
                return []
            return [
                Action("crawl", "Crawl", help=f"Dying: crawl up to {triad.CRAWL_FEET} feet, nothing else.")
            ]
        attack_form = with_traits(TriadAttackForm, [(str(t.pk), t.name) for t in adv_traits(character)])
        # The score the attack rolls and what the scene gives are the GM's calls (Triad l.33, l.52).
        gm_fields = ("ability", "advantages", "disadvantages")
        offered = []
        if used < triad.ACTIONS_PER_TURN:
            fast = next((t for t in ("Fast (Extreme)", "Fast") if t in traits), None)
            offered += [
                Action(
                    "attack",
                    "Relentless attack" if actor.state.get("relentless") else "Attack",
                    needs_target=True,
                    form_class=attack_form,
                    targets=foes,
                    help="A task roll against the foe's Difficulty (Body, unless the GM calls another "
                    "score); a miss lets it hit back."
                    + (" Relentless: this one is free." if actor.state.get("relentless") else ""),
                    gm_fields=gm_fields,
                ),
                Action("evade", "Evade", help="Advantage on defence rolls until this character's next turn."),
            ]
            if self.may_move(actor):
                offered.append(Action("move", "Move", help=f"Up to {triad.move_feet(trait=fast)} feet."))
            offered += self._condition_actions(actor, foes)
            offered += self._together_actions(actor, characters)
        elif actor.state.get("relentless") and foes:
            offered.append(
                Action(
                    "attack",
                    "Relentless attack",
                    needs_target=True,
                    form_class=attack_form,
                    targets=foes,
                    help="Relentless: the last attack dropped its target, so attack another at once.",
                    gm_fields=gm_fields,
                )
            )
        if (
            "Berserker Rage" in traits
            and not actor.state.get("raged")
            and sheet.body < sheet.body_max
            and (sheet.mind or sheet.spirit)
        ):
            offered.append(
                Action(
                    "rage",
                    "Berserker Rage",
                    form_class=TriadRageForm,
                    help="Once a turn, free: 1 point from Mind or Spirit into Body, and advantage on the "
                    "next Body task.",
                )
            )
        return offered

    @staticmethod
    def _spend_action(actor, action) -> None:
        """One of the turn's two actions used (free ones are not)."""
        state = dict(actor.state)
        free = action in FREE_ACTIONS or (action == "attack" and state.get("relentless"))
        if action not in FREE_ACTIONS:
            state.pop("relentless", None)  # Relentless's extra attack comes at once or not at all
        if not free:
            state["actions"] = state.get("actions", 0) + 1
        actor.state = state

    def act(self, encounter, actor, action, target, data, roller, author):
        self._spend_action(actor, action)
        if action == "move":
            return [
                RollResult(
                    label=f"{actor.name} moves",
                    summary=f"{actor.name} moves.",
                    secret=actor.character is None,
                )
            ]
        if action == "crawl":
            actor.state["crawled"] = True
            return [
                RollResult(
                    label=f"{actor.name} crawls",
                    summary=f"Dying, {actor.name} crawls {triad.CRAWL_FEET} feet.",
                )
            ]
        if action == "evade":
            actor.state["evading"] = True
            return [
                RollResult(label=f"{actor.name} evades", summary="Advantage on defence until the next turn.")
            ]
        if action == "rage":
            return self._rage(actor, data["source"], author)
        if action in CONDITION_ACTIONS:
            return self._condition_act(actor, action, target, data, roller, author)
        if action == "opposed":
            return self._opposed(actor, target, data, roller, author)
        if action == "team":
            return self._team(encounter, actor, data, roller)
        if actor.character is not None:
            return self._pc_attacks(actor, target, data, roller, author)
        return self._npc_attacks(actor, target, data, roller, author)

    def _rage(self, actor, source, author):
        sheet = actor.character.triad
        before = sheet.vitals(trait_names(actor.character))
        after = triad.berserker_rage(before, source)
        with character_change(character=actor.character, author=author, reason="Berserker Rage"):
            sheet.store(after)
            sheet.rage_advantage = True
            sheet.save()
        actor.state["raged"] = True
        return [
            RollResult(
                label=f"{actor.name} flies into a Berserker Rage",
                summary="Advantage on the next Body task.",
                changes=(
                    f"{label(source)} {before.current(source)} -> {after.current(source)}",
                    f"Body {before.body} -> {after.body}",
                ),
                character=actor.character,
            )
        ]

    def chance(self, encounter, actor, action, target, data):
        """A player character's attack on a quick NPC, as ``_pc_attacks`` rolls it; an opposed roll, a
        team task or breaking free as ``_opposed``, ``_team`` and ``_pc_breaks_free`` do."""
        if action == "opposed" and actor.character is not None and target is not None:
            return self._opposed_odds(actor, target, data)[0]
        if action == "team" and actor.character is not None:
            return self._team_odds(encounter, actor, data)[0]
        if action == "break_free" and actor.character is not None and target is not None:
            return self._break_free_chance(actor, target, data)
        if action != "attack" or actor.character is None or target is None or target.character is not None:
            return None
        return self._attack_chance(actor, target, data)

    # ----- what the encounter shows -----------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        held = conditions_of(combatant)
        if not for_gm and combatant.character is not None:  # an NPC's sheet, in words
            sheet = combatant.character.triad
            hurt = any(getattr(sheet, s) < getattr(sheet, f"{s}_max") for s in ("body", "mind", "spirit"))
            flags = [
                f for f, on in (("hurt", hurt), ("stunned", sheet.stunned), ("dying", sheet.dying)) if on
            ]
            return "dead" if sheet.dead else " · ".join(flags + held)
        if combatant.character is None:
            stats = combatant.stats
            stunned = combatant.state.get("stunned") or combatant.state.get("stunned_this_turn")
            down = "knocked out" if stats.get("unconscious") else "out"
            flags = (
                "" if combatant.out else "".join(f" · {f}" for f in (["stunned"] if stunned else []) + held)
            )
            if not for_gm:
                return (
                    down
                    if combatant.out
                    else ("hurt" if stats["difficulty"] < stats["max_difficulty"] else "")
                ) + flags
            return (
                f"Difficulty {stats['difficulty']}/{stats['max_difficulty']}"
                + (f" · {down}" if combatant.out else "")
                + flags
            )
        sheet = combatant.character.triad
        flags = [
            f
            for f, on in (
                ("stunned", sheet.stunned),
                ("evading", combatant.state.get("evading")),
                ("raging", sheet.rage_advantage),
                ("dying", sheet.dying),
                ("dead", sheet.dead),
            )
            if on
        ]
        return (
            f"Body {sheet.body}/{sheet.body_max} · Mind {sheet.mind}/{sheet.mind_max} · "
            f"Spirit {sheet.spirit}/{sheet.spirit_max}" + "".join(f" · {f}" for f in flags + held)
        )

    def is_out(self, combatant):
        if combatant.character is not None:
            return combatant.character.triad.dead  # the sheet decides, so undoing a death brings it back
        return combatant.out


combat = TriadCombat()
