"""Triad fights, tasks between characters: an opposed roll (Triad l.45-48) and a team task (l.50)."""

from __future__ import annotations

from rules import triad
from sheets.combat import RollResult, for_players, is_npc

from .combat_forms import label, percent, picked_trait, side_dice, task_dice, trait_names


class TriadTasks:
    """Opposed rolls and team tasks on a character's turn; mixed into ``TriadCombat``."""

    @staticmethod
    def _side(combatant, ability: str, trait, *, stunned: bool) -> triad.Side:
        sheet = combatant.character.triad
        # A hold or ropes weigh on a Body task (Triad l.125, l.63).
        held = sheet.body_hindrances if ability == triad.BODY else 0
        edge = triad.count_edge(adv_traits=int(trait is not None), disadvantages=held, stunned=stunned)
        return triad.Side(ability=getattr(sheet, ability), edge=edge, adv_trait=trait is not None)

    def _opposed_sides(self, actor, target, data):
        mine = picked_trait(actor.character, data.get("trait") or "")
        theirs = picked_trait(target.character, data.get("their_trait") or "")
        a = self._side(actor, data["ability"], mine, stunned=bool(actor.state.get("stunned_this_turn")))
        # The opponent's stun lasts through its own following turn; until then it weighs on every roll.
        b = self._side(target, data["their_ability"], theirs, stunned=target.character.triad.stunned)
        return a, b, mine, theirs

    def _opposed_odds(self, actor, target, data):
        """(the actor's exact chance to win, to tie)."""
        a, b, _, _ = self._opposed_sides(actor, target, data)
        odds = triad.opposed_chance(a, b)
        return odds[triad.CRITICAL] + odds[triad.SUCCESS], odds[triad.MIXED]

    def _opposed(self, actor, target, data, roller, author):
        """Triad l.45-48: both roll, the higher total wins; with harm at stake the loser is hit."""
        a, b, mine, theirs = self._opposed_sides(actor, target, data)
        ability, their_ability = data["ability"], data["their_ability"]
        win, tie = self._opposed_odds(actor, target, data)
        result = triad.roll_opposed(roller, a, b)
        changes = [
            f"Odds for {actor.name}: win {percent(win)}, tie {percent(tie)}, lose {percent(1 - win - tie)}"
        ]
        winner = {"a": actor, "b": target}.get(result.winner or "")
        if winner is None:
            verdict = "a tie: mixed for both" if result.outcome == triad.MIXED else "both fumble: nobody wins"
        else:
            verdict = f"{winner.name} wins by {result.margin}" + (" (critical)" if result.critical else "")
        shown = []  # an NPC's side of it (its score in the odds, its damage) is the GM's
        if data.get("harm") and winner is not None:
            loser = target if winner is actor else actor
            wielded = winner.character.triad
            base = triad.weapon_in_hand(wielded.weapon, disarmed=wielded.disarmed) + (
                triad.DEADLY_BONUS if "Deadly" in trait_names(winner.character) else 0
            )
            armor = triad.armor_rating(loser.character.triad.armor or "none")
            points = triad.damage(base, armor=armor, critical=result.critical)
            if points:
                hurt = self._hurt(
                    loser, points, author, source=winner.name, ability=triad.BODY, own_turn=loser is actor
                )
                changes += hurt
                shown += [f"{loser.name} is hurt"] if is_npc(loser) else hurt
        sides = (
            (actor, ability, result.a, mine),
            (target, their_ability, result.b, theirs),
        )
        told = " vs ".join(
            f"{c.name} {label(ab)} {r.ability}: {r.total}" + (f" ({t.name})" if t else "")
            for c, ab, r, t in sides
        )
        line = RollResult(
            label=f"{actor.name} vs {target.name}: opposed roll",
            summary=f"{told}: {verdict}",
            dice=task_dice(result.a) + task_dice(result.b),
            outcome=result.outcome,
            total=result.a.total,
            chance=win,
            changes=tuple(changes),
            character=actor.character,
            extra={"opponent_total": result.b.total, "winner": result.winner or ""},
        )
        return [for_players(line, verdict, shown) if is_npc(actor) or is_npc(target) else line]

    def _team_sides(self, encounter, actor, data):
        by_pk = {str(c.pk): c for c in encounter.combatants.all() if c.character is not None}
        members = [actor, *(by_pk[pk] for pk in data["helpers"] if pk in by_pk and pk != str(actor.pk))]
        sides = [
            self._side(
                m,
                data["ability"],
                None,
                stunned=bool(m.state.get("stunned_this_turn")) if m is actor else m.character.triad.stunned,
            )
            for m in members
        ]
        return members, sides

    def _team_odds(self, encounter, actor, data):
        """(the team's exact chance to succeed, every outcome's odds)."""
        _, sides = self._team_sides(encounter, actor, data)
        adv_trait = bool(data.get("adv_trait"))
        odds = triad.team_chance(sides, data["difficulty"], adv_trait=adv_trait)
        return odds[triad.CRITICAL] + odds[triad.SUCCESS] + (odds[triad.MIXED] if adv_trait else 0), odds

    def _team(self, encounter, actor, data, roller):
        """Triad l.50: every member rolls, the best single number counts, anyone's 1 fumbles it all."""
        members, sides = self._team_sides(encounter, actor, data)
        ability, difficulty = data["ability"], data["difficulty"]
        adv_trait = bool(data.get("adv_trait"))
        success, odds = self._team_odds(encounter, actor, data)
        result = triad.roll_team(roller, sides, difficulty, adv_trait=adv_trait)
        dice = tuple(
            die for side, faces in zip(sides, result.faces, strict=True) for die in side_dice(side, faces)
        )
        told = ", ".join(
            f"{m.name} {label(ability)} {side.ability}" for m, side in zip(members, sides, strict=True)
        )
        return [
            RollResult(
                label=f"{actor.name} leads a team task",
                summary=f"{told} vs {difficulty}: best {result.total}, {result.outcome}",
                dice=dice,
                outcome=result.outcome,
                total=result.total,
                chance=success,
                changes=(
                    f"Odds of the team: {percent(success)} to succeed, "
                    f"{percent(odds[triad.FUMBLE])} to fumble",
                ),
                character=actor.character,
            )
        ]
