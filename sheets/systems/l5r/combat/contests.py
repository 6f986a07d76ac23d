"""L5R rolls beside the blows: contested rolls, skill rolls alone or together, cumulative tasks, and the
GM's calls they take (the scene's TN and what a contest rolls)."""

from __future__ import annotations

from rules import l5r
from rules.dice import Outcome
from sheets.combat import EncounterError, RollResult, for_players, is_npc

from ..base import odd_die_bonus, trait_label, wound_note
from ..rolls import rerolled_text
from .attacks import MAX_REROLLS
from .forms import CONTEST_CHOICES, open_tasks
from .numbers import centered, dice, exploded, fighter, skill_rank, spend, use_center

# A quick NPC's numbers hold these traits and rings; its attack skill rank serves its weapon skills.
NPC_TRAITS = ("reflexes", "agility", "strength")


class ContestMixin:
    @staticmethod
    def _emphasis(data, skill: l5r.Skill) -> str:
        """The chosen emphasis if it is one of ``skill``'s; refused when it belongs to another skill."""
        owner, _, name = (data.get("emphasis") or "").partition(":")
        if not name:
            return ""
        if owner.lower() != skill.name.lower():
            raise EncounterError(
                f"{name} is an emphasis of {owner}, not of {skill.name}: choose none or one of its own."
            )
        return name

    def _contest_pool(self, combatant, choice: str) -> tuple[l5r.Pool, str]:
        """The pool a contestant rolls for "trait:x", "ring:x" or "skill:Name", and how it is made."""
        kind, _, name = choice.partition(":")
        if combatant.character is not None:
            sheet = combatant.character.l5r
            traits = sheet.trait_values()
            if kind == "trait":
                return l5r.trait_pool(traits[name]), f"{trait_label(name)} {traits[name]}"
            if kind == "ring":
                rank = l5r.ring_rank(name, traits, void=sheet.void)
                return l5r.ring_pool(rank), f"{name.capitalize()} {rank}"
            skill = l5r.skill_info(name)
            trait = sheet.void if skill.trait == "void" else traits[skill.trait]
            rank = skill_rank(combatant.character, skill)
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + " unskilled" * (not rank)
            return l5r.skill_pool(trait, rank, attack=skill.attack), words
        stats = combatant.stats
        if kind == "trait" and name in NPC_TRAITS:
            return l5r.trait_pool(stats[name]), f"{trait_label(name)} {stats[name]}"
        if kind == "ring" and name in ("earth", "void"):
            return l5r.ring_pool(stats[name]), f"{name.capitalize()} {stats[name]}"
        skill = l5r.skill_info(name) if kind == "skill" else None
        if skill is not None and skill.trait in NPC_TRAITS:
            if skill.attack:
                rank = stats["attack_skill"]
            else:
                rank = stats.get("defense", 0) if skill.name == "Defense" else 0
            trait = stats[skill.trait]
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + " unskilled" * (not rank)
            return l5r.skill_pool(trait, rank, attack=skill.attack), words
        what = dict(CONTEST_CHOICES)[choice].partition(": ")[2]
        raise EncounterError(
            f"{combatant.name}'s numbers have no {what}: a quick NPC has Reflexes, Agility, Strength, "
            "Earth, Void, its attack skill and Defense."
        )

    def _contest(self, encounter, actor, target, data, roller) -> list[RollResult]:
        """All roll; the highest total wins, unless its raises were not beaten by (L5R, Contested Rolls)."""
        raises = data.get("raises") or 0
        numbers = fighter(actor)
        if raises > numbers.void:
            raise EncounterError(f"With Void {numbers.void} at most {numbers.void} raises can be declared.")
        # The target, then anyone else ticked (a contest of several: "the player who rolls the highest").
        joining = {int(pk) for pk in data.get("also") or ()} - {actor.pk, target.pk}
        others = [c for c in encounter.combatants.all() if c.pk in joining and not self.is_out(c)]
        if len(others) != len(joining):
            raise EncounterError("Only combatants still in the fight can join the contest.")
        contestants = [actor, target, *sorted(others, key=lambda c: c.position)]
        sides = [(c, *self._contest_pool(c, data["roll"])) for c in contestants]
        if raises and not sides[0][1].raises_allowed:
            raise EncounterError("An unskilled roll cannot take raises.")
        pool, center_words = centered(encounter, actor, sides[0][1])
        sides[0] = (actor, pool, sides[0][2] + center_words)
        use_center(encounter, actor)
        spend(actor, l5r.ActionKind.COMPLEX)  # the other contestants' Turns are not spent (reading)
        odd = odd_die_bonus(encounter.campaign)
        what = dict(CONTEST_CHOICES)[data["roll"]].partition(": ")[2]
        declared = [raises] + [0] * (len(sides) - 1)
        lines = []
        for attempt in range(1, MAX_REROLLS + 1):
            # Reading: "the players involved must immediately re-roll": the whole contest, everyone in it.
            totals = []
            for combatant, pool, words in sides:
                result = l5r.roll_pool(roller, pool, odd_die_bonus=odd)
                totals.append(result.total)
                again = f" (re-roll {attempt - 1})" if attempt > 1 else ""
                line = RollResult(
                    label=f"{combatant.name}: contested {what}{again}",
                    summary=f"{words}: {result.notation}: {result.total}{exploded(result)}",
                    dice=dice(result),
                    total=result.total,
                    character=combatant.character,
                )
                # An NPC's trait or skill rank is the GM's; its total is the contest's, said below.
                lines.append(for_players(line, f"total {result.total}") if is_npc(combatant) else line)
            winner = l5r.contest_winner(totals, raises=declared)
            if winner is not None or data.get("tie_stands"):
                break
        raised = f", {raises} raise{'s' if raises != 1 else ''} declared" if raises else ""
        score = " to ".join(str(total) for total in totals) + raised
        tied = [c.name for c, total in zip(contestants, totals, strict=True) if total == max(totals)]
        if winner is None and data.get("tie_stands"):
            between = f" between {' and '.join(tied)}" if len(contestants) > 2 else ""
            summary, outcome = f"{score}: a tie{between}, and it stands", Outcome.NONE
        elif winner is None:
            summary, outcome = (
                f"{score}: still tied after {MAX_REROLLS} re-rolls; the GM settles it",
                Outcome.NONE,
            )
        else:
            summary = f"{score}: {contestants[winner].name} wins"
            if winner != 0 and totals[0] == max(totals):
                summary += f" ({actor.name} not ahead by {l5r.RAISE_STEP * raises})"
            outcome = Outcome.SUCCESS if winner == 0 else Outcome.FAILURE
        against = ", ".join(c.name for c in contestants[1:])
        lines.append(
            RollResult(
                label=f"Contest of {what}: {actor.name} against {against}",
                summary=summary,
                outcome=outcome,
                outcome_label="" if outcome is Outcome.NONE else ("won" if winner == 0 else "lost"),
                character=actor.character,
            )
        )
        return lines

    def _skill_roll(self, encounter, actor, data, roller) -> list[RollResult]:
        """A skill roll, alone or with others (L5R, Cooperative Rolls), maybe toward a task (Cumulative)."""
        skill = l5r.skill_info(data["skill"])
        everyone = {c.pk: c for c in encounter.combatants.select_related("character__l5r")}
        helpers = [everyone[int(pk)] for pk in data["helpers"] if int(pk) in everyone]
        cooperation = data["cooperation"]
        if cooperation == "alone" and helpers:
            raise EncounterError("Pick group effort or roped together for helpers, or tick none.")
        if cooperation != "alone" and not helpers:
            raise EncounterError("Tick the helpers who work with the actor.")
        task = next((t for t in open_tasks(encounter) if str(t["id"]) == data.get("task")), None)
        if data.get("task") and task is None:
            raise EncounterError("That task is done or gone; pick another.")
        if task is not None and cooperation == "roped":
            raise EncounterError(
                "Roped together, each rolls for himself: count a group effort toward a task."
            )
        team = [actor, *helpers]
        ranks = [skill_rank(c.character, skill) for c in team]
        if cooperation == "group":
            bonuses = [l5r.group_effort_bonus(ranks[1:])]
            rollers = [actor]
        elif cooperation == "roped":
            bonuses = list(l5r.roped_team_bonuses(ranks))
            rollers = team
        else:
            bonuses, rollers = [0], [actor]
        base_tn = task["minimum"] if task is not None else data["tn"]  # the GM's TN (l.6)
        spend(actor, l5r.ActionKind.COMPLEX)  # helpers' Turns are not spent (reading)
        emphasis = self._emphasis(data, skill)  # the actor's own: helpers roll without it
        odd = odd_die_bonus(encounter.campaign)
        lines = []
        for combatant, bonus in zip(rollers, bonuses, strict=False):
            sheet = combatant.character.l5r
            numbers = fighter(combatant)
            if not l5r.can_roll(numbers.wound_level):
                raise EncounterError(
                    f"{combatant.name} is {numbers.wound_level.name}: {wound_note(numbers.wound_level)}."
                )
            trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait)
            rank = skill_rank(combatant.character, skill)
            pool = l5r.skill_pool(trait, rank, bonus=bonus, attack=skill.attack)
            applies = emphasis if combatant.pk == actor.pk else ""
            if applies:
                pool = pool.with_emphasis()
            if combatant.pk == actor.pk:
                pool, center_words = centered(encounter, actor, pool)
                use_center(encounter, actor)
            tn = base_tn + numbers.penalty
            result = l5r.roll_pool(roller, pool, tn=tn, odd_die_bonus=odd)
            words = f"{skill.name} {rank} + {trait_label(skill.trait)} {trait}" + " unskilled" * (not rank)
            if combatant.pk == actor.pk:
                words += center_words
            if bonus:
                words += f", +{bonus} from " + (
                    "the helpers' ranks" if cooperation == "group" else "the best-ranked climber"
                )
            tn_words = f"TN {tn}" + (
                f" ({base_tn} + {numbers.penalty} for wounds)" if numbers.penalty else ""
            )
            lines.append(
                RollResult(
                    label=f"{combatant.name}: {skill.name}" + (f" toward {task['name']}" if task else ""),
                    summary=f"{words}: {result.notation} vs {tn_words}: {result.total}, {result.outcome}"
                    + exploded(result)
                    + (f" · {rerolled_text(applies, result)}" if applies else ""),
                    dice=dice(result),
                    outcome=result.outcome,
                    total=result.total,
                    chance=pool.chance(tn, odd_die_bonus=odd),
                    character=combatant.character,
                )
            )
            if task is not None:
                lines.append(self._count(encounter, task, result, tn))
        return lines

    @staticmethod
    def _count(encounter, task: dict, result: l5r.RollResult, tn: int) -> RollResult:
        """Take a total off a cumulative task's TN when it reached the minimum (wounds included)."""
        progress = l5r.cumulative(task["remaining"], [result.total], minimum=tn)
        counted = progress.counted[0]
        updated = {
            **task,
            "totals": [*task["totals"], result.total] if counted else task["totals"],
            "remaining": progress.remaining,
        }
        tasks = [updated if t["id"] == task["id"] else t for t in encounter.state.get("l5r_tasks", [])]
        encounter.state = {**encounter.state, "l5r_tasks": tasks}
        to_go = f"{progress.remaining} of {task['tn']} to go"
        if not counted:
            summary = f"{result.total} is under {tn}: it does not count; {to_go}"
        elif progress.done:
            summary = f"{result.total} counts: the task is done ({task['tn']} reached)"
        else:
            summary = f"{result.total} counts: {to_go}"
        return RollResult(
            label=f"{task['name']}: cumulative TN {task['tn']}",
            summary=summary,
            outcome=Outcome.SUCCESS if progress.done else Outcome.NONE,
            outcome_label="done" if progress.done else "",
        )

    @staticmethod
    def _set_task(encounter, actor, data) -> list[RollResult]:
        tasks = encounter.state.get("l5r_tasks", [])
        task = {
            "id": max((t["id"] for t in tasks), default=0) + 1,
            "name": " ".join(data["name"].split()),
            "tn": data["tn"],
            "minimum": data["minimum"],
            "totals": [],
            "remaining": data["tn"],
        }
        encounter.state = {**encounter.state, "l5r_tasks": [*tasks, task]}
        each = f"each roll must reach {task['minimum']} to count" if task["minimum"] else "every roll counts"
        return [
            RollResult(
                label=f"Cumulative task: {task['name']}",
                summary=f"TN {task['tn']}, reached over several skill rolls; {each}",
            )
        ]

    @staticmethod
    def _set_scene(encounter, data) -> list[RollResult]:
        """The GM's calls for the scene: the TN a skill roll is made against and what a contest rolls
        (seed l.6, l.57); a player's own turn takes them as given (``Action.gm_fields``)."""
        encounter.state = {**encounter.state, "l5r_scene": {"tn": data["tn"], "roll": data["roll"]}}
        what = dict(CONTEST_CHOICES)[data["roll"]].partition(": ")[2]
        return [
            RollResult(
                label="The GM sets the scene",
                summary=f"Skill rolls against TN {data['tn']} ({l5r.difficulty_name(data['tn'])}); "
                f"contests roll {what}",
            )
        ]
