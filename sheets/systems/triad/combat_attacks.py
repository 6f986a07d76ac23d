"""Triad fights, the blows: a character's attack on a quick NPC (damage, or a condition instead, and the
final blow that may spare it), an NPC's attack held off by the character it aims at, and damage landing
on a character's score (stun, Hard To ..., dying, death)."""

from __future__ import annotations

from rules import triad
from sheets.combat import Defence, EncounterError, RollResult, for_players
from sheets.services import character_change

from .combat_conditions import npc_has, npc_weapon, set_npc_condition
from .combat_forms import (
    KIND_LABELS,
    TriadDefenceForm,
    adv_traits,
    label,
    picked_trait,
    task_dice,
    trait_names,
    with_traits,
)


class TriadAttacks:
    """Attacks both ways and what damage does; mixed into ``TriadCombat``."""

    # ----- a character's attack on a quick NPC ---------------------------------------------------------

    def _attack_edge(self, actor, data, trait, *, raging: bool) -> int:
        """Every edge source of a character's attack: the trait, the scene, effort, a stun, a hold on a
        Body attack (Triad l.125: "ongoing Disadvantage on Body tasks")."""
        sheet = actor.character.triad
        held = sheet.body_hindrances if data.get("ability", triad.BODY) == triad.BODY else 0
        return triad.count_edge(
            adv_traits=int(trait is not None),
            advantages=(data.get("advantages") or 0) + raging,
            disadvantages=(data.get("disadvantages") or 0) + held,
            stunned=bool(actor.state.get("stunned_this_turn")),
            extra_effort=bool(data.get("extra_effort")),
        )

    def _attack_chance(self, actor, target, data):
        sheet = actor.character.triad
        ability = data.get("ability") or triad.BODY
        trait = picked_trait(actor.character, data.get("trait") or "")
        raging = sheet.rage_advantage and ability == triad.BODY
        edge = self._attack_edge(actor, {**data, "ability": ability}, trait, raging=raging)
        odds = triad.chance(
            getattr(sheet, ability), target.stats["difficulty"], edge=edge, adv_trait=trait is not None
        )
        return odds[triad.CRITICAL] + odds[triad.SUCCESS] + odds[triad.MIXED]

    def _pc_attacks(self, actor, target, data, roller, author):
        sheet = actor.character.triad
        traits = trait_names(actor.character)
        ability = data["ability"]
        intent = data.get("intent") or ""
        if target.character is not None:
            raise EncounterError("Player characters attack the GM's side.")
        if intent == triad.DISARM and not target.stats.get("weapon"):
            raise EncounterError(f"{target.name} holds no weapon to knock away.")
        trait = picked_trait(actor.character, data.get("trait") or "")
        changes = []
        shown = []  # the changes as players read them: the NPC's Difficulty is the GM's
        raging = sheet.rage_advantage and ability == triad.BODY
        if raging:
            changes.append(self._use_rage(actor, author))
            shown.append(changes[-1])
        stunned = bool(actor.state.get("stunned_this_turn"))
        effort = bool(data.get("extra_effort"))
        held = sheet.body_hindrances if ability == triad.BODY else 0
        edge = self._attack_edge(actor, data, trait, raging=raging)
        difficulty = target.stats["difficulty"]
        current = getattr(sheet, ability)
        adv_trait = trait is not None
        vitals = sheet.vitals(traits)
        if effort:
            vitals = triad.spend(vitals, ability, 1)  # refused (nothing rolled) with no point left
        odds = triad.chance(current, difficulty, edge=edge, adv_trait=adv_trait)
        result = triad.roll_task(
            roller, ability=current, difficulty=difficulty, edge=edge, adv_trait=adv_trait
        )
        if effort:
            # The point goes once the task is settled and before any blow it lets through (Triad, l.57).
            with character_change(character=actor.character, author=author, reason="Extra effort"):
                sheet.store(vitals)
                sheet.save(update_fields=[ability])
            changes.append(f"{label(ability)} {current} -> {vitals.current(ability)} (extra effort)")
            shown.append(changes[-1])
        kind = target.stats.get("kind", triad.BODY)
        # Armor is worn against blows; it does nothing for a mind or spirit under attack.
        attacker_armor = triad.armor_rating(sheet.armor or "none") if kind == triad.BODY else 0
        if intent:
            left, to_attacker = triad.alternative(
                result.outcome, intent, counter=npc_weapon(target), attacker_armor=attacker_armor
            )
            if left:
                said = self._leave(target, left)
                changes.append(said)
                shown.append(said)
        else:
            to_attacker = self._damage_npc(actor, target, result, data, changes, shown, attacker_armor)
        if to_attacker:
            hurt = self._hurt(actor, to_attacker, author, source=target.name, ability=kind, own_turn=True)
            changes += hurt
            shown += hurt
        notes = [
            n
            for n, on in (
                (trait.name if trait else "", adv_trait),
                ("extra effort", effort),
                ("stunned", stunned),
                ("held: disadvantage on Body", held),
                (f"to {intent}", bool(intent)),
            )
            if on
        ]
        line = RollResult(
            label=f"{actor.name} attacks {target.name}",
            summary=(
                f"{label(ability)} {result.ability} vs {difficulty}: {result.total}, {result.outcome}"
                + (f" ({', '.join(notes)})" if notes else "")
            ),
            dice=task_dice(result),
            outcome=result.outcome,
            total=result.total,
            chance=odds[triad.CRITICAL] + odds[triad.SUCCESS] + odds[triad.MIXED],
            changes=tuple(changes),
            character=actor.character,
        )
        # The target is a quick NPC: its Difficulty (in the summary, the odds) is the GM's.
        own = f"{label(ability)} {result.ability}: {result.total}" + (
            f" ({', '.join(notes)})" if notes else ""
        )
        return [for_players(line, own, shown)]

    def _damage_npc(self, actor, target, result, data, changes, shown, attacker_armor) -> int:
        """A damaging attack's both sides: the NPC's Difficulty worn down (slain at 0, or knocked out when
        the blow spares it: Triad l.127), and what it deals back; the points the attacker takes."""
        sheet = actor.character.triad
        traits = trait_names(actor.character)
        difficulty = target.stats["difficulty"]
        deadly = "Deadly" in traits
        outcome = triad.attack(
            result.outcome,
            weapon=triad.weapon_in_hand(sheet.weapon, disarmed=sheet.disarmed),
            target_armor=triad.armor_rating(target.stats["armor"]),
            deadly=deadly,
            counter=npc_weapon(target),
            attacker_armor=attacker_armor,
        )
        hit = outcome.outcome in (triad.CRITICAL, triad.SUCCESS, triad.MIXED)
        if hit and not outcome.to_target:
            said = f"{target.name}'s armor stops the blow (0 damage)"
            changes.append(said)
            shown.append(said)
        if outcome.to_target:
            spare = bool(data.get("spare"))
            npc = triad.hit_npc(triad.Npc(target.name, difficulty), outcome.to_target, spare=spare)
            target.stats = {**target.stats, "difficulty": npc.difficulty}
            changes.append(
                f"{target.name}: Difficulty {difficulty} -> {npc.difficulty}"
                + (" (Deadly)" if deadly else "")
            )
            said = [f"{target.name} is hurt"]
            if npc.down:
                target.out = True
                target.stats = {**target.stats, "unconscious": npc.unconscious}
                said = [f"{target.name} is knocked out" if npc.unconscious else f"{target.name} is slain"]
                if "Relentless" in traits:
                    actor.state["relentless"] = True
                    said.append(f"Relentless: {actor.name} may attack another foe at once")
            elif outcome.target_stunned:
                target.state = {**target.state, "stunned": True}
                said.append(f"{target.name} is stunned (disadvantage on its next turn)")
            changes += said if npc.down else said[1:]  # the GM's line above says "hurt" in numbers
            shown += said
        return outcome.to_attacker

    def _leave(self, target, condition: str) -> str:
        """An attack's alternative to damage lands on the NPC (Triad l.125, l.191); the line saying so."""
        if condition == "stunned":
            target.state = {**target.state, "stunned": True}
            return f"{target.name} is stunned (disadvantage on its next turn)"
        set_npc_condition(target, condition, True)
        return {
            "grappled": f"{target.name} is grappled (disadvantage on its Body tasks until it breaks free)",
            "disarmed": f"{target.name} is disarmed (its weapon knocked away)",
            "prone": f"{target.name} is knocked prone",
        }[condition]

    # ----- an NPC's attack, held off by the player character it aims at ---------------------------

    def open_defence(self, encounter, actor, action, target, data, roller, author):
        """The NPC's attack waits for the defending player's choices (the trait, extra effort); the GM's
        calls (the kind of attack, disadvantages) are kept for it. A dying target cannot defend."""
        if target.character.triad.dying:
            return self.act(encounter, actor, action, target, data, roller, author), None
        self._spend_action(actor, action)
        return [], {"kind": data.get("kind") or "", "disadvantages": data.get("disadvantages") or 0}

    def defence(self, encounter, pending, attacker, defender):
        kind = pending.get("kind") or attacker.stats.get("kind", triad.BODY)
        traits = adv_traits(defender.character)
        choices = [(str(t.pk), t.name) for t in traits]
        odds = tuple(
            (name, self._defence_odds(attacker, defender, {**pending, "trait": key}))
            for key, name in [("", "No (Adv.) trait"), *choices]
        )
        return Defence(
            # The NPC's Difficulty is the GM's (the GM's page shows it beside the NPC).
            prompt=f"{attacker.name} attacks {defender.name}: hold it off with {label(kind)}.",
            form_class=with_traits(TriadDefenceForm, choices),
            label="Defend",
            help=f"A success holds the {KIND_LABELS[kind]} attack off; anything less lets its weapon land.",
            odds=odds,
        )

    def defence_chance(self, encounter, pending, attacker, defender, data):
        return self._defence_odds(attacker, defender, {**pending, **data})

    def defend(self, encounter, pending, attacker, defender, data, roller, author):
        return self._npc_attacks(attacker, defender, {**pending, **data}, roller, author)

    def _defence_edge(self, actor, target, data, trait) -> tuple[str, int]:
        """(the score the defence rolls, its edge) against the NPC ``actor``'s attack."""
        sheet = target.character.triad
        kind = data.get("kind") or actor.stats.get("kind", triad.BODY)
        body = kind == triad.BODY
        raging = sheet.rage_advantage and body
        # A stunned NPC attacks at disadvantage, a grappled one strikes a blow (a Body task) at disadvantage:
        # in a roll only the defender makes, each is the defender's advantage.
        npc_hindered = bool(actor.state.get("stunned_this_turn")) + (body and npc_has(actor, "grappled"))
        edge = triad.count_edge(
            adv_traits=int(trait is not None),
            advantages=raging + npc_hindered,
            disadvantages=(data.get("disadvantages") or 0) + (sheet.body_hindrances if body else 0),
            evading=bool(target.state.get("evading")),
            extra_effort=bool(data.get("extra_effort")),
        )
        return kind, edge

    def _defence_odds(self, actor, target, data):
        """The chance the defence holds the NPC off, as ``_npc_attacks`` records it."""
        trait = picked_trait(target.character, data.get("trait") or "")
        kind, edge = self._defence_edge(actor, target, data, trait)
        adv_trait = trait is not None
        current = getattr(target.character.triad, kind)
        odds = triad.chance(current, actor.stats["difficulty"], edge=edge, adv_trait=adv_trait)
        return odds[triad.CRITICAL] + odds[triad.SUCCESS] + (odds[triad.MIXED] if adv_trait else 0)

    def _npc_attacks(self, actor, target, data, roller, author):
        sheet = target.character.triad
        kind = data.get("kind") or actor.stats.get("kind", triad.BODY)
        difficulty = actor.stats["difficulty"]
        weapon = npc_weapon(actor)
        armor = triad.armor_rating(sheet.armor or "none") if kind == triad.BODY else 0
        if sheet.dying:
            # A dying character cannot act, so it cannot hold the blow off: it lands.
            points = triad.damage(weapon, armor=armor)
            changes = self._hurt(target, points, author, source=actor.name, ability=kind) if weapon else []
            return [
                RollResult(
                    label=f"{actor.name} attacks {target.name}",
                    summary=f"{target.name} is dying and cannot defend: the {KIND_LABELS[kind]} hit lands.",
                    changes=tuple(changes),
                    character=target.character,
                )
            ]
        trait = picked_trait(target.character, data.get("trait") or "")
        changes = []
        raging = sheet.rage_advantage and kind == triad.BODY
        kind, edge = self._defence_edge(actor, target, data, trait)
        effort = bool(data.get("extra_effort"))
        vitals = sheet.vitals(trait_names(target.character))
        if effort:
            vitals = triad.spend(vitals, kind, 1)  # refused (nothing rolled) with no point left
        if raging:
            changes.append(self._use_rage(target, author))
        evading = bool(target.state.get("evading"))
        npc_stunned = bool(actor.state.get("stunned_this_turn"))
        current = getattr(sheet, kind)
        adv_trait = trait is not None
        odds = triad.chance(current, difficulty, edge=edge, adv_trait=adv_trait)
        result = triad.roll_task(
            roller, ability=current, difficulty=difficulty, edge=edge, adv_trait=adv_trait
        )
        if effort:
            # Extra effort on the defence (Triad, l.57): the point goes once the roll is settled, before
            # the blow it did not stop.
            with character_change(character=target.character, author=author, reason="Extra effort"):
                sheet.store(vitals)
                sheet.save(update_fields=[kind])
            changes.append(f"{label(kind)} {current} -> {vitals.current(kind)} (extra effort)")
        # The defender's roll: a success holds the NPC off, anything less lets its weapon land.
        hit = result.failed
        if hit and weapon:
            changes += self._hurt(
                target, triad.damage(weapon, armor=armor), author, source=actor.name, ability=kind
            )
        body = kind == triad.BODY
        notes = [
            n
            for n, on in (
                (trait.name if trait else "", adv_trait),
                ("extra effort", effort),
                ("evading", evading),
                (f"{actor.name} stunned", npc_stunned),
                (f"{actor.name} grappled", body and npc_has(actor, "grappled")),
                ("held: disadvantage on Body", body and sheet.body_hindrances),
            )
            if on
        ]
        line = RollResult(
            label=f"{actor.name} attacks {target.name}",
            summary=(
                f"{target.name} defends with {label(kind)} {result.ability} vs {difficulty}: "
                f"{result.total}, {result.outcome}"
                + (f" ({', '.join(notes)})" if notes else "")
                + (" - hit" if hit else " - held off")
            ),
            dice=task_dice(result),
            outcome=result.outcome,
            total=result.total,
            chance=odds[triad.CRITICAL] + odds[triad.SUCCESS] + (odds[triad.MIXED] if adv_trait else 0),
            changes=tuple(changes),
            character=target.character,
        )
        # The NPC's Difficulty (in the summary, the odds) is the GM's; what the blow did is the character's.
        own = (
            f"{target.name} defends with {label(kind)} {result.ability}: {result.total}"
            + (f" ({', '.join(notes)})" if notes else "")
            + (" - hit" if hit else " - held off")
        )
        return [for_players(line, own, changes)]

    # ----- damage on a character ---------------------------------------------------------------------

    def _hurt(
        self, combatant, points: int, author, *, source: str, ability: str, own_turn: bool = False
    ) -> list[str]:
        """Damage (after armor) lands on a player character's score: stun, Hard To ..., dying, death."""
        if not points:
            return [f"{combatant.name}'s armor stops the blow (0 damage)"]
        sheet = combatant.character.triad
        vitals = sheet.vitals(trait_names(combatant.character))
        report = triad.take_damage(vitals, points, ability=ability)
        with character_change(
            character=combatant.character, author=author, reason=f"{points} damage from {source}"
        ):
            fields = sheet.store(report.vitals)
            stunned = report.stunned and not report.dead
            sheet.stunned = sheet.stunned or stunned
            sheet.save(update_fields=[*fields, "stunned"])
        if vitals.dying:
            # Triad l.126: the score stays at 0; what happened is the death, not a number that did not move.
            combatant.out = True
            return [f"{combatant.name}, dying, takes {points} damage and dies"]
        name = label(ability)
        before, after = vitals.current(ability), report.vitals.current(ability)
        changes = [f"{combatant.name}: {name} {before} -> {after} ({points} damage)"]
        if report.saved_by:
            changes.append(
                f"{report.saved_by} keeps {combatant.name} going (used until {name} is full again)"
            )
        if report.dead:
            combatant.out = True
            changes.append(f"{combatant.name} dies")
            return changes
        if stunned:
            if own_turn:
                combatant.state = {**combatant.state, "stunned_anew": True}
            changes.append(f"{combatant.name} is stunned (disadvantage on the next turn)")
        if report.dying:
            changes.append(f"{combatant.name} is dying")
        return changes

    def _use_rage(self, combatant, author) -> str:
        """Spend Berserker Rage's waiting advantage on this Body task; the line saying so."""
        sheet = combatant.character.triad
        with character_change(
            character=combatant.character, author=author, reason="Berserker Rage advantage used"
        ):
            sheet.rage_advantage = False
            sheet.save(update_fields=["rage_advantage"])
        return "Berserker Rage: advantage"
