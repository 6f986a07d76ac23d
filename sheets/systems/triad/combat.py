"""Triad fights: initiative by d20 or best ability (NPCs Difficulty + 5), two actions a turn,
attacks as task rolls against the foe's Difficulty, damage tiers, armor, stun, dying at 0.

Player characters roll everything: on their own turn to attack, and on an NPC's turn to hold off its
attack (a defence roll against the NPC's Difficulty). Quick NPCs have one Difficulty that damage wears
down; at 0 they are out.
"""

from __future__ import annotations

from django import forms

from rules import triad as rules
from sheets.combat import Action, CombatRules, EncounterError, RollResult
from sheets.contract import Die
from sheets.services import character_change

ABILITY_CHOICES = [(a, a.title()) for a in rules.ABILITIES]
WEAPON_CHOICES = [("", "None")] + [(k, f"{t.name} ({t.points})") for k, t in rules.WEAPONS.items()]
ARMOR_CHOICES = [(k, f"{t.name} ({t.points})") for k, t in rules.ARMOR.items()]


class TriadNpcForm(forms.Form):
    difficulty = forms.IntegerField(
        min_value=1,
        max_value=30,
        initial=10,
        help_text="One number for everything it does; damage wears it down.",
    )
    weapon = forms.ChoiceField(choices=WEAPON_CHOICES, required=False, initial="light")
    armor = forms.ChoiceField(choices=ARMOR_CHOICES, initial="none")


class TriadAttackForm(forms.Form):
    ability = forms.ChoiceField(choices=ABILITY_CHOICES, initial=rules.BODY)
    advantages = forms.IntegerField(min_value=0, max_value=9, initial=0, required=False)
    disadvantages = forms.IntegerField(min_value=0, max_value=9, initial=0, required=False)


class TriadDefendForm(forms.Form):
    disadvantages = forms.IntegerField(min_value=0, max_value=9, initial=0, required=False)


def _dice(result) -> tuple[Die, ...]:
    kept_index = result.faces.index(result.kept)
    return tuple(Die(face, kept=i == kept_index, sides=rules.DIE) for i, face in enumerate(result.faces))


class TriadCombat(CombatRules):
    key = "triad"
    npc_form_class = TriadNpcForm

    def npc_stats(self, cleaned_data):
        return {
            "difficulty": cleaned_data["difficulty"],
            "max_difficulty": cleaned_data["difficulty"],
            "weapon": cleaned_data.get("weapon") or "",
            "armor": cleaned_data.get("armor") or "none",
        }

    # ----- order ----------------------------------------------------------------------------------

    def start(self, encounter, combatants, roller):
        lines, entries = [], []
        for combatant in combatants:
            if combatant.character is None:
                entry = rules.npc_initiative(str(combatant.pk), combatant.stats["difficulty"])
                lines.append(
                    RollResult(
                        label=f"{combatant.name} initiative",
                        summary=f"Difficulty {combatant.stats['difficulty']} + 5 = {entry.value}",
                        total=entry.value,
                        secret=True,
                    )
                )
            else:
                sheet = combatant.character.triad
                edge = -1 if sheet.stunned else 0
                entry = rules.roll_initiative(
                    roller,
                    str(combatant.pk),
                    body=sheet.body,
                    mind=sheet.mind,
                    spirit=sheet.spirit,
                    edge=edge,
                )
                best = max(sheet.body, sheet.mind, sheet.spirit)
                lines.append(
                    RollResult(
                        label=f"{combatant.name} initiative",
                        summary=f"d20 {entry.die} or best ability {best}: {entry.value}",
                        dice=tuple(Die(f, kept=f == entry.die, sides=rules.DIE) for f in entry.faces),
                        total=entry.value,
                        character=combatant.character,
                    )
                )
            combatant.initiative = entry.value
            entries.append(entry)
        order = [e.name for e in rules.initiative_order(entries)]
        for combatant in combatants:
            combatant.position = order.index(str(combatant.pk))
            combatant.state = {}
        combatants.sort(key=lambda c: c.position)
        return lines

    def new_round(self, encounter, combatants):
        return []  # what lasts in Triad lasts until a character's next turn, not a round

    def begin_turn(self, encounter, actor, author):
        # Evading lasts until the evader's next turn; a stun taken before this turn spoils this one.
        stunned = actor.character is not None and actor.character.triad.stunned
        actor.state = {
            "actions": 0,
            "stunned_this_turn": stunned,
            **({"dead": True} if actor.state.get("dead") else {}),
        }
        return []

    def end_turn(self, encounter, actor, author):
        if actor is None or actor.character is None or not actor.state.get("stunned_this_turn"):
            return []
        sheet = actor.character.triad
        with character_change(character=actor.character, author=author, reason="Stun wears off"):
            sheet.stunned = False
            sheet.save(update_fields=["stunned"])
        return [
            RollResult(
                label=f"{actor.name} shakes off the stun",
                summary="No longer stunned.",
                character=actor.character,
            )
        ]

    # ----- a turn ---------------------------------------------------------------------------------

    def actions(self, encounter, actor, combatants):
        if actor.state.get("actions", 0) >= rules.ACTIONS_PER_TURN:
            return []
        foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
        if actor.character is not None:
            return [
                Action(
                    "attack",
                    "Attack",
                    needs_target=True,
                    form_class=TriadAttackForm,
                    targets=foes,
                    help="A task roll against the foe's Difficulty; a miss lets it hit back.",
                ),
                Action("evade", "Evade", help="Advantage on defence rolls until this character's next turn."),
                Action("move", "Move", help=f"Up to {rules.MOVE_FEET} feet."),
            ]
        return [
            Action(
                "attack",
                "Attack",
                needs_target=True,
                form_class=TriadDefendForm,
                targets=tuple(f for f in foes if f.character is not None),
                help="The player character rolls to hold it off, against its Difficulty.",
            ),
            Action("move", "Move"),
        ]

    def act(self, encounter, actor, action, target, data, roller, author):
        actor.state = {**actor.state, "actions": actor.state.get("actions", 0) + 1}
        if action == "move":
            return [
                RollResult(
                    label=f"{actor.name} moves",
                    summary=f"{actor.name} moves.",
                    secret=actor.character is None,
                )
            ]
        if action == "evade":
            actor.state["evading"] = True
            return [
                RollResult(label=f"{actor.name} evades", summary="Advantage on defence until the next turn.")
            ]
        if actor.character is not None:
            return self._pc_attacks(actor, target, data, roller, author)
        return self._npc_attacks(actor, target, data, roller, author)

    def _pc_attacks(self, actor, target, data, roller, author):
        options = data
        sheet = actor.character.triad
        ability = options["ability"]
        edge = rules.net_edge(
            (options.get("advantages") or 0),
            (options.get("disadvantages") or 0) + sheet.stunned,
        )
        if target.character is not None:
            raise EncounterError("Player characters attack the GM's side.")
        difficulty = target.stats["difficulty"]
        odds = rules.chance(getattr(sheet, ability), difficulty, edge=edge)
        result = rules.roll_task(roller, ability=getattr(sheet, ability), difficulty=difficulty, edge=edge)
        npc_weapon = rules.weapon_damage(target.stats["weapon"]) if target.stats.get("weapon") else 0
        outcome = rules.attack(
            result.outcome,
            weapon=rules.weapon_damage(sheet.weapon),
            target_armor=rules.armor_rating(target.stats["armor"]),
            counter=npc_weapon,
            attacker_armor=rules.armor_rating(sheet.armor or "none"),
        )
        changes = []
        if outcome.to_target:
            npc = rules.hit_npc(rules.Npc(target.name, difficulty), outcome.to_target)
            target.stats = {**target.stats, "difficulty": npc.difficulty}
            changes.append(f"{target.name}: Difficulty {difficulty} -> {npc.difficulty}")
            if npc.down:
                target.out = True
                changes.append(f"{target.name} is out of the fight")
        if outcome.to_attacker:
            changes += self._hurt(actor, outcome.to_attacker, author, source=target.name)
        lines = [
            RollResult(
                label=f"{actor.name} attacks {target.name}",
                summary=(
                    f"{ability.title()} {result.ability} vs {difficulty}: {result.total}, {result.outcome}"
                ),
                dice=_dice(result),
                outcome=result.outcome,
                total=result.total,
                chance=odds[rules.CRITICAL] + odds[rules.SUCCESS] + odds[rules.MIXED],
                changes=tuple(changes),
                character=actor.character,
            )
        ]
        return lines

    def _npc_attacks(self, actor, target, data, roller, author):
        options = data
        sheet = target.character.triad
        difficulty = actor.stats["difficulty"]
        evading = target.state.get("evading", False)
        edge = rules.net_edge(int(evading), (options.get("disadvantages") or 0) + sheet.stunned)
        odds = rules.chance(sheet.body, difficulty, edge=edge)
        result = rules.roll_task(roller, ability=sheet.body, difficulty=difficulty, edge=edge)
        # The defender's roll: a success holds the NPC off, anything less lets its weapon land.
        hit = result.outcome in (rules.MIXED, rules.FAILURE, rules.FUMBLE)
        changes = []
        if hit and actor.stats.get("weapon"):
            points = rules.damage(
                rules.weapon_damage(actor.stats["weapon"]), armor=rules.armor_rating(sheet.armor or "none")
            )
            changes += self._hurt(target, points, author, source=actor.name)
        return [
            RollResult(
                label=f"{actor.name} attacks {target.name}",
                summary=(
                    f"{target.name} defends with Body {result.ability} vs {difficulty}: {result.total}, "
                    f"{result.outcome}" + (" - hit" if hit else " - held off")
                ),
                dice=_dice(result),
                outcome=result.outcome,
                total=result.total,
                chance=odds[rules.CRITICAL] + odds[rules.SUCCESS],
                changes=tuple(changes),
                character=target.character,
            )
        ]

    def _hurt(self, combatant, points: int, author, *, source: str) -> list[str]:
        """Damage (already after armor) lands on a player character's sheet: stun, dying, death."""
        sheet = combatant.character.triad
        vitals = rules.Vitals(
            sheet.body_max,
            sheet.mind_max,
            sheet.spirit_max,
            sheet.body,
            sheet.mind,
            sheet.spirit,
            traits=frozenset(combatant.character.triad_traits.values_list("name", flat=True)),
            dead=combatant.state.get("dead", False),
        )
        report = rules.take_damage(vitals, points)
        with character_change(
            character=combatant.character, author=author, reason=f"{points} damage from {source}"
        ):
            sheet.body = report.vitals.body
            sheet.stunned = sheet.stunned or report.stunned
            sheet.save(update_fields=["body", "stunned"])
        changes = [f"{combatant.name}: Body {vitals.body} -> {report.vitals.body} ({points} damage)"]
        if report.saved_by:
            changes.append(f"{report.saved_by} keeps {combatant.name} standing")
        if report.stunned:
            changes.append(f"{combatant.name} is stunned (disadvantage next turn)")
        if report.dead:
            combatant.state = {**combatant.state, "dead": True}
            combatant.out = True
            changes.append(f"{combatant.name} dies")
        elif report.dying:
            changes.append(f"{combatant.name} is dying")
        return changes

    def summary(self, combatant, *, for_gm):
        if combatant.character is None:
            stats = combatant.stats
            if not for_gm:
                return (
                    "out"
                    if combatant.out
                    else ("hurt" if stats["difficulty"] < stats["max_difficulty"] else "")
                )
            return f"Difficulty {stats['difficulty']}/{stats['max_difficulty']}" + (
                " · out" if combatant.out else ""
            )
        sheet = combatant.character.triad
        flags = [
            f
            for f, on in (
                ("stunned", sheet.stunned),
                ("evading", combatant.state.get("evading")),
                ("dead", combatant.state.get("dead")),
            )
            if on
        ]
        return (
            f"Body {sheet.body}/{sheet.body_max} · Mind {sheet.mind}/{sheet.mind_max} · "
            f"Spirit {sheet.spirit}/{sheet.spirit_max}" + "".join(f" · {f}" for f in flags)
        )

    def is_out(self, combatant):
        return combatant.out


combat = TriadCombat()
