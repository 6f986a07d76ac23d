"""Five by Five attacks in a fight (l.358-383, l.500-503): to hit, the target's dodge (declared by a
hit player character's player, or resolved at once), then the damage with weapon DB, armor AV and
trumps, rolled by the engine (``rules.fivebyfive.roll_to_hit``, ``roll_after_hit``). A mixin of
``combat.FiveByFiveCombat``.
"""

from __future__ import annotations

from rules import fivebyfive
from rules.dice import Outcome
from sheets.combat import Defence, EncounterError, RollResult, for_players, is_npc

from .combatants import (
    ATTACK,
    DEFAULT_ASPECT,
    DODGE,
    NO_DODGE,
    Changes,
    aspect_steps,
    chain_dice,
    condition_note,
    condition_of,
    defence_form_class,
    dodges_of,
    gear_of,
    hp_of,
    pick_use,
    read_task,
    shifted,
    shown_condition,
    task_dice,
    tokens_said,
    usable_uses,
    uses_aspects,
)

# ----- the rules -----------------------------------------------------------------------------------


class Attacks:
    """The attack action and the defence its target's player declares."""

    def open_defence(self, encounter, actor, action, target, data, roller, author):
        """The to-hit alone: on a hit the target's player declares the dodge (l.500-503, "declares after
        being the successful target of an attack"); a miss, or a target with no dodge, is done at once."""
        lines, waits = self._attack(encounter, actor, target, data, roller, author, ask=True)
        actor.state = {**actor.state, "acted": True}
        return lines, waits

    def defence(self, encounter, pending, attacker, defender):
        holds_token = Changes(encounter).holds_token(defender)
        aspects = uses_aspects(encounter)
        aspect = DEFAULT_ASPECT[DODGE].value if aspects else ""
        used, per_round = dodges_of(defender)
        shift = aspect_steps(defender, aspect)
        odds = tuple(
            (f"Dodge with {u.label}", fivebyfive.chance(fivebyfive.shift(u.value, u.steps + shift)))
            for u in usable_uses(defender, DODGE)
        )
        return Defence(
            prompt=f"{attacker.name} hits {defender.name}: dodge, or take the damage?",
            form_class=defence_form_class(defender, holds_token=holds_token, aspects=aspects),
            label="Defend",
            help=f"A dodge that succeeds negates the attack; {per_round - used} of {per_round} "
            f"dodge{'s' if per_round > 1 else ''} left this round. Damage: 1d6 + DB + your AV.",
            odds=odds,
            own_odds=True,  # the dodge is the defender's descriptor alone
        )

    def defence_chance(self, encounter, pending, attacker, defender, data):
        """The chance the declared dodge succeeds (None: no dodge, nothing rolled)."""
        if data.get("dodge_with", NO_DODGE) == NO_DODGE:
            return None
        use = pick_use(defender, data["dodge_with"], DODGE)
        steps = use.steps + aspect_steps(defender, data.get("dodge_aspect") or "")
        return fivebyfive.chance(
            fivebyfive.shift(use.value, steps), doubles_token=bool(data.get("dodge_token"))
        )

    def defend(self, encounter, pending, attacker, defender, data, roller, author):
        changes = Changes(encounter)
        dodge_use, no_dodge = None, self._no_dodge(defender)
        if data["dodge_with"] != NO_DODGE and not no_dodge:
            dodge_use = pick_use(defender, data["dodge_with"], DODGE)
        dodge_token = bool(data.get("dodge_token")) and dodge_use is not None
        if dodge_token and not changes.holds_token(defender):
            raise EncounterError(f"{defender.name} holds no doubles token to spend on the dodge.")
        dodge_aspect = aspect_steps(defender, data.get("dodge_aspect") or "")
        # The attacker's token waits for the damage it was named for (still held after the hit).
        damage_token = bool(pending.get("damage_token")) and changes.holds_token(attacker)
        reasons: dict[int, str] = {}
        lines = self._after_hit(
            attacker, defender, dodge_use, dodge_aspect, dodge_token, damage_token, roller, changes, reasons
        )
        changes.save(author, reasons)
        return lines

    @staticmethod
    def _no_dodge(target) -> str:
        """Why ``target`` cannot dodge now ("" when it can)."""
        _, _, shield, dagger = gear_of(target)
        if condition_of(target) != "healthy":
            return f"{target.name} is {condition_of(target)} and cannot dodge"
        if not fivebyfive.can_dodge(dodges_of(target)[0], shield=shield, offhand_dagger=dagger):
            return f"{target.name} has no dodge left this round"
        return ""

    def _attack(self, encounter, actor, target, data, roller, author, *, ask=False):
        """To hit, then (on a hit) the target's dodge and the damage. ``ask``: a hit the target can dodge
        stops after the to-hit, for its player to declare the dodge (``defend``); the second value is
        what that needs, or None when the attack is done."""
        if data.get("dodge_with") and not str(data["dodge_with"]).startswith(f"{target.pk}:"):
            raise EncounterError(
                f"That dodge is another combatant's: pick one of {target.name}'s, or leave it automatic."
            )
        options = data
        use = pick_use(actor, options["descriptor"], ATTACK)
        shift = (options.get("shift") or 0) + aspect_steps(actor, options.get("aspect") or "")
        changes = Changes(encounter)
        attacker_token = changes.holds_token(actor)
        if options["spend"] and not attacker_token:
            raise EncounterError(f"{actor.name} holds no doubles token to spend.")
        no_dodge = self._no_dodge(target) if (ask or options["dodge"]) else ""
        dodge_use, dodge_aspect, dodge_token = None, 0, False
        if not ask and options["dodge"] and not no_dodge:
            key = options["dodge_with"].partition(":")[2] if options["dodge_with"] else ""
            dodge_use = pick_use(target, key, DODGE)
            dodge_aspect = aspect_steps(target, options.get("dodge_aspect") or "")
            dodge_token = bool(options["dodge_token"])
            if dodge_token and not changes.holds_token(target):
                raise EncounterError(f"{target.name} holds no doubles token to spend on the dodge.")
        hit = fivebyfive.roll_to_hit(
            roller,
            use.value,
            steps=use.steps + shift,
            attack_token=options["spend"] == "hit",
            damage_token=options["spend"] == "damage",
            holding_token=attacker_token,
        )
        changes.set_token(actor, hit.token_held)
        hit_notes = tokens_said(actor.name, spent=hit.token_spent, earned=hit.token_earned)
        if no_dodge and hit.success:
            hit_notes.append(no_dodge)
        line = RollResult(
            label=f"{actor.name} attacks {target.name}",
            summary=f"{shifted(use, shift)}: {read_task(hit)}, " + ("hit" if hit.success else "miss"),
            dice=task_dice(hit),
            outcome=hit.outcome,
            total=hit.faces[0] * hit.faces[1] if len(hit.faces) == 2 else None,
            chance=fivebyfive.chance(hit.target, doubles_token=hit.token_spent),
            changes=tuple(hit_notes),
            character=actor.character,
        )
        if is_npc(actor):  # its descriptor and odds are the GM's
            line = for_players(line, "hit" if hit.success else "miss", hit_notes)
        lines = [line]
        reasons = {}
        if actor.character is not None:
            reasons[actor.character.pk] = f"Attack on {target.name}"
        waits = None
        if hit.success and ask and not no_dodge:
            waits = {"damage_token": options["spend"] == "damage"}
        elif hit.success:
            lines += self._after_hit(
                actor,
                target,
                dodge_use,
                dodge_aspect,
                dodge_token,
                options["spend"] == "damage",
                roller,
                changes,
                reasons,
            )
        changes.save(author, reasons)
        return lines, waits

    def _after_hit(
        self, actor, target, dodge_use, dodge_aspect, dodge_token, damage_token, roller, changes, reasons
    ) -> list[RollResult]:
        """The hit target's dodge (``dodge_use`` None: none), then the damage unless it dodged."""
        lines = []
        db, _, _, _ = gear_of(actor)
        _, av, _, _ = gear_of(target)
        after_hit = fivebyfive.roll_after_hit(
            roller,
            db=db,
            av=av,
            dodge=dodge_use.value if dodge_use is not None else None,
            dodge_steps=dodge_use.steps + dodge_aspect if dodge_use is not None else 0,
            dodge_token=dodge_token,
            damage_token=damage_token,
            dodge_holding_token=changes.holds_token(target),
        )
        dodge, hurt = after_hit.dodge, after_hit.damage
        if dodge is not None:
            target.state = {**target.state, "dodges": target.state.get("dodges", 0) + 1}
            changes.set_token(target, dodge.token_held)
            used, per_round = dodges_of(target)
            token_notes = tokens_said(target.name, spent=dodge.token_spent, earned=dodge.token_earned)
            line = RollResult(
                label=f"{target.name} dodges",
                summary=f"{shifted(dodge_use, dodge_aspect)}: {read_task(dodge)}, "
                + ("dodged" if dodge.success else "too slow")
                + f" ({used} of {per_round} dodge{'s' if per_round > 1 else ''} this round)",
                dice=task_dice(dodge),
                outcome=dodge.outcome,
                total=dodge.faces[0] * dodge.faces[1] if len(dodge.faces) == 2 else None,
                chance=fivebyfive.chance(dodge.target, doubles_token=dodge.token_spent),
                changes=tuple(token_notes),
                character=target.character,
            )
            if is_npc(target):
                line = for_players(line, "dodged" if dodge.success else "too slow", token_notes)
            lines.append(line)
            if target.character is not None:
                reasons[target.character.pk] = f"Dodged {actor.name}'s attack"
        if hurt is None:  # dodged
            return lines
        if hurt.token_spent:
            changes.set_token(actor, False)
        before = hp_of(target)[0]
        after = fivebyfive.apply_damage(before, hurt.damage)
        changes.set_hp(target, after)
        trumps = len(hurt.faces) - 1
        trump_note = (
            f" + {fivebyfive.DAMAGE_TRUMP_BONUS * trumps} ({trumps} trump{'s' if trumps > 1 else ''})"
        )
        token_notes = tokens_said(actor.name, spent=hurt.token_spent, earned=False)
        # A hit the armour takes whole is said in words too: "HP 12 -> 12" alone reads as a lost line.
        absorbed = [f"{target.name}'s armour absorbs the hit: 0 damage"] if not hurt.damage else []
        line = RollResult(
            label=f"{actor.name} damages {target.name}",
            summary=f"{hurt.faces[-1]}{trump_note if trumps else ''} + DB {hurt.db} + AV {hurt.av} "
            f"= {hurt.damage} damage",
            dice=chain_dice(hurt.faces, token=hurt.token_spent),
            outcome=Outcome.NONE,
            outcome_label="damage",
            total=hurt.damage,
            changes=tuple(token_notes + absorbed + condition_note(target, before, after)),
            character=target.character,
        )
        if is_npc(actor) or is_npc(target):  # an NPC's DB, AV or HP: a character's own loss stays in
            lost = "" if is_npc(target) and hurt.damage else f"{hurt.damage} damage"
            line = for_players(line, lost, token_notes + absorbed + shown_condition(target, before, after))
        lines.append(line)
        if target.character is not None:
            reasons[target.character.pk] = f"{hurt.damage} damage from {actor.name}"
        return lines
