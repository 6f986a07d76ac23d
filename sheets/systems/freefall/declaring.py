"""FREE/FALL declarations: the actions a combatant may declare, each one added and checked against the
pool and its prerequisite, and the lock-in that pays what a prerequisite costs and builds the queue.
A mixin of ``combat.FreeFallCombat``.
"""

from __future__ import annotations

from typing import Any

from rules import freefall
from sheets.combat import Action, EncounterError, RollResult, for_players, is_npc
from sheets.services import character_change

from .fields import programs_of
from .fighters import (
    PLAIN,
    UNARMED_DV,
    declaration_form,
    engine_action,
    hack_form,
    resources_of,
    row_text,
)
from .sheet import system as sheet_system


class Declarations:
    """Phase 1 and 2 of FREE/FALL's round (l.7-25): a combatant declares its actions one by one, then
    locks them in, paying the prerequisites that cost something."""

    def _declaring_actions(self, encounter, actor, combatants):
        rows = actor.state.get("declaring") or []
        # The sheet read once for the pool and every form below (each would read its gear and programs).
        state = sheet_system.state(actor.character) if actor.character is not None else None
        left = resources_of(actor, state)[0].pool - sum(r["dice"] for r in rows)
        found = []
        if left > 0:
            foes = tuple(c for c in combatants if c.side != actor.side and not self.is_out(c))
            found += [
                Action(
                    "attack",
                    "Declare an attack",
                    needs_target=True,
                    form_class=lambda: declaration_form(encounter, actor, attack=True, state=state),
                    targets=foes,
                    help=f"{left} of {left + sum(r['dice'] for r in rows)} dice left to assign.",
                    gm_fields=("difficulty",),
                    own_odds=True,  # its dice against the TN picked: nothing of the target's
                ),
                Action(
                    "task",
                    "Declare an action",
                    form_class=lambda: declaration_form(encounter, actor, attack=False, state=state),
                    help="Anything beyond talking or walking needs a prerequisite: the gear, the "
                    "specialty, 1 current attribute point or 1 level of harm, paid when locked in.",
                    gm_fields=("difficulty",),
                ),
            ]
            if actor.character is not None:
                found.append(
                    Action(
                        "hack",
                        "Declare a hack",
                        form_class=lambda: hack_form(encounter, actor, state=state),
                        gm_fields=("difficulty",),
                        help="An active program adds its tier to every die; a natural 1 on any die "
                        "compromises it for the mission. Without one, the specialty earns the roll.",
                    )
                )
        if rows:
            found += [
                Action("declare", "Lock in: " + "; ".join(row_text(r) for r in rows)),
                Action("clear", "Clear the declaration"),
            ]
        return found

    def _add(self, actor, action, target, data):
        cleaned = data
        difficulty = freefall.Difficulty(cleaned["difficulty"])
        row = {
            "by": actor.pk,
            "name": cleaned["name"].strip() or "Action",
            "dice": cleaned["dice"],
            "difficulty": difficulty.value,
            "tn": difficulty.tn,
            "target": target.pk if target is not None else None,
            "target_name": target.name if target is not None else "",
            "prerequisite": cleaned.get("prerequisite") or ("gear" if target is not None else PLAIN),
            "gear": cleaned.get("gear", ""),
            "claimed": actor.character is not None,
        }
        if actor.character is not None:
            row["specialty"] = actor.character.freefall.specialty
        if target is not None:
            row.update(self._weapon(actor, cleaned.get("gear", "")), kind=cleaned["kind"])
        rows = (actor.state.get("declaring") or []) + [row]
        self._validate(actor, rows)
        actor.state = {**actor.state, "declaring": rows}
        return []

    def _add_hack(self, actor, data):
        difficulty = freefall.Difficulty(data["difficulty"])
        program = next((p for p in programs_of(actor.character) if p.name == data.get("program")), None)
        row = {
            "by": actor.pk,
            "name": data["name"].strip() or "Hack",
            "dice": data["dice"],
            "difficulty": difficulty.value,
            "tn": difficulty.tn,
            "target": None,
            "target_name": "",
            "hack": True,
            "program": program.name if program is not None else "",
            "bonus": program.bonus if program is not None else 0,
            "prerequisite": "program" if program is not None else "specialty",
            "gear": "",
        }
        rows = (actor.state.get("declaring") or []) + [row]
        self._validate(actor, rows)
        actor.state = {**actor.state, "declaring": rows}
        return []

    def _weapon(self, actor, gear_name: str) -> dict[str, Any]:
        if actor.character is None:
            return {"dv": actor.stats["dv"], "piercing": False, "high_impact": False}
        weapon = next((g for g in sheet_system.state(actor.character).gear if g.name == gear_name), None)
        if weapon is None:
            return {"dv": UNARMED_DV, "piercing": False, "high_impact": False}
        return {"dv": weapon.dv, "piercing": weapon.piercing, "high_impact": weapon.high_impact}

    def _validate(self, actor, rows) -> freefall.Declaration:
        track, current, gear, _ = resources_of(actor)
        if actor.character is None:
            plain = [freefall.Action(r["name"], r["dice"], specialized=False) for r in rows]
            return freefall.validate_declaration(plain, pool=track.pool)
        return freefall.validate_declaration(
            [engine_action(r) for r in rows],
            pool=track.pool,
            current=current,
            gear=gear,
            programs=programs_of(actor.character),
            specialty=actor.character.freefall.specialty,
        )

    def _lock_in(self, encounter, actor, author):
        rows = actor.state.get("declaring") or []
        if not rows:
            raise EncounterError("Declare at least one action first, or pass with Next turn.")
        declaration = self._validate(actor, rows)
        changes = []
        if actor.character is not None and any(declaration.spent[a] for a in freefall.Attribute):
            sheet = actor.character.freefall
            with character_change(
                character=actor.character, author=author, reason="Attribute spent to force"
            ):
                for a in freefall.Attribute:
                    if declaration.spent[a]:
                        setattr(
                            sheet,
                            f"{a.value}_spent",
                            getattr(sheet, f"{a.value}_spent") + declaration.spent[a],
                        )
                        changes.append(
                            f"{actor.name} spends {declaration.spent[a]} {a.label} to force an action"
                        )
                sheet.save(update_fields=[f"{a.value}_spent" for a in freefall.Attribute])
        for kind in declaration.harm:
            encounter.state["pending_harm"].append(
                self._pending(
                    actor, kind=kind.value, levels=1, stage=freefall.Stage.RESOLVE, source="pushing limits"
                )
            )
            changes.append(f"{actor.name} takes 1 level of {kind.value} harm to push limits")
        encounter.state["declarations"].append({"by": actor.pk, "name": actor.name, "actions": rows})
        encounter.state["queue"] = self._queue(encounter.state["declarations"])
        actor.state = {"declared": rows}
        line = RollResult(
            label=f"{actor.name} declares",
            summary="; ".join(row_text(r) for r in rows) + f" ({declaration.dice_assigned} of "
            f"{declaration.pool} dice)",
            changes=tuple(changes),
            character=actor.character,
            secret=actor.character is None,
        )
        if is_npc(actor):  # what it does is said; its dice and what it paid are the GM's
            said = "; ".join(r["name"] + (f" at {r['target_name']}" if r.get("target") else "") for r in rows)
            line = for_players(line, said)
        return [line] + self._settle(encounter, actor, author)

    @staticmethod
    def _queue(declarations) -> list[dict[str, Any]]:
        """Every declared action, last declared first; mutual attacks share a clash tag."""
        flat = [dict(row, faces=None, clash=None) for d in declarations for row in d["actions"]]
        for row in flat:
            if row["target"] is not None and any(
                o["by"] == row["target"] and o["target"] == row["by"] for o in flat
            ):
                row["clash"] = "-".join(str(pk) for pk in sorted((row["by"], row["target"])))
        return list(reversed(flat))
