"""Five by Five experience (the SheetSystem XP methods; sheets/xp.py serves them; readings taken):

- Only the GM awards XP, 1 to 20 at a time (a session is worth 1, a hard one or a long arc's end 2);
  only the character's player spends it ("like money"): a rank up at the engine's price and caps, a
  new descriptor at 2 for 2 XP, or the poor descriptor traded for another weakness for 5 XP.
- Raising HP prices it on HP - 10, and current HP rises with the maximum: new hit points come unhurt.
- A spend carries what the player saw, so a double click or a stale tab is refused, not charged twice.
- What XP buys is not typed: maximum HP and each descriptor's value, name and exclusive action are
  build values and XP the GM's, typed only by the GM after creation (``value_kinds``, sheets/policy.py);
  so are aspects and the advanced flag, which a GM who turns the option on later sets on sheets already
  built. Current HP and the token are play state (the GM's, or the player's when the campaign lets them).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from rules import fivebyfive
from rules.dice import RulesError
from sheets.contract import XpOffer
from sheets.services import character_change

from .fields import DEFAULT_ORDER, EXCLUSIVE_CHOICES, HP_SLOT, FiveByFiveFields
from .models import FiveByFiveDescriptor


class FiveByFiveXp(FiveByFiveFields):
    """What XP buys and the spends, each under character_change's lock."""

    @staticmethod
    def _raise_cost(value: int, *, advanced: bool = False) -> str:
        """What the next rank costs in XP, or why there is none."""
        if value == fivebyfive.POOR:
            return f"poor: trade it for {fivebyfive.POOR_SWAP_COST} XP"
        try:
            return f"next rank: {fivebyfive.improvement_cost(value, advanced=advanced)} XP"
        except RulesError:
            return "at the top"

    def xp(self, character):
        return character.fivebyfive.xp

    def xp_award(self, *, character, amount, author):
        """The GM gives the character ``amount`` XP (a session is worth 1, a hard one 2)."""
        if not isinstance(amount, int) or not 1 <= amount <= self.xp_award_max:
            raise ValidationError(f"Award from 1 to {self.xp_award_max} XP at a time.")
        with character_change(character=character, author=author, reason=f"Awarded {amount} XP"):
            sheet = character.fivebyfive
            sheet.refresh_from_db(fields=["xp"])
            sheet.xp += amount
            sheet.save(update_fields=["xp"])

    def xp_spends(self, character):
        sheet = character.fivebyfive
        rows = self._rows(character)
        entries = [(str(row.pk), row.name, row.value, row.advanced) for row in rows]
        entries.append((HP_SLOT, fivebyfive.HP_NAME, sheet.hp_rank, False))
        offers = []
        for ident, name, value, advanced in entries:
            shown = fivebyfive.hp_points(value) if ident == HP_SLOT else value
            try:
                cost = fivebyfive.improvement_cost(value, advanced=advanced)
            except RulesError:
                why = "poor: trade it instead" if value == fivebyfive.POOR else "at the top"
                offers.append(XpOffer(f"raise:{ident}", f"{name} {shown} ({why})", None, str(value)))
                continue
            after = fivebyfive.hp_points(cost) if ident == HP_SLOT else cost
            offers.append(
                XpOffer(f"raise:{ident}", f"{name} {shown} → {after} ({cost} XP)", cost, str(value))
            )
        new = fivebyfive.NEW_DESCRIPTOR_COST
        # The count seen makes a second click (or another tab) a refusal, not a second new descriptor.
        for action, text in [("", "")] + [(a, f" for {a}") for a, _ in EXCLUSIVE_CHOICES if a]:
            key = f"add:{action}" if action else "add"
            label = f"New descriptor{text} at {new}, named below ({new} XP)"
            offers.append(XpOffer(key, label, new, str(len(rows)), needs_name=True))
        poor_ident, poor_name = self._poor(rows, sheet)
        if poor_ident:
            label = (
                f"Trade {poor_name} -5 for the weakness named below "
                f"({fivebyfive.POOR_SWAP_COST} XP, with the GM's approval)"
            )
            offers.append(XpOffer("trade", label, fivebyfive.POOR_SWAP_COST, poor_ident, needs_name=True))
        return offers

    @staticmethod
    def _saved_rows(character) -> list[FiveByFiveDescriptor]:
        """The descriptors as saved now (under character_change's lock), never a prefetched copy."""
        return list(FiveByFiveDescriptor.objects.filter(character=character))

    @staticmethod
    def _poor(rows, sheet) -> tuple[str, str]:
        """(slot key, name) of the poor descriptor; HP may be it. Blank when there is none to trade."""
        if sheet.hp_rank == fivebyfive.POOR:
            return HP_SLOT, fivebyfive.HP_NAME
        row = next((r for r in rows if r.value == fivebyfive.POOR), None)
        return (str(row.pk), row.name) if row else ("", "")

    @staticmethod
    def _rules_descriptors(rows, sheet) -> list[fivebyfive.Descriptor]:
        return [fivebyfive.Descriptor(row.name, row.value, row.advanced, None) for row in rows] + [
            fivebyfive.Descriptor(fivebyfive.HP_NAME, sheet.hp_rank)
        ]

    def xp_spend(self, *, character, key, expected, name="", author):
        """Raise a descriptor (or HP) a rank, add a new one at 2, or trade the poor one, at the book's price.

        ``expected`` is what the player saw (the value, the count of descriptors, the poor one): a second
        click or a stale tab is refused rather than paying twice. ValidationError: nothing is saved.
        """
        kind, _, ident = key.partition(":")
        if kind == "raise":
            return self._xp_raise(character, ident, expected, author)
        if kind == "add" and ident in {a for a, _ in EXCLUSIVE_CHOICES}:
            return self._xp_add(character, ident, expected, name, author)
        if kind == "trade" and not ident:
            return self._xp_trade(character, expected, name, author)
        raise KeyError(key)

    def _xp_raise(self, character, ident, expected, author) -> int:
        sheet = character.fivebyfive
        if ident == HP_SLOT:
            name = fivebyfive.HP_NAME
        else:
            try:
                name = self._descriptor(character, ident).name
            except KeyError:
                raise ValidationError("There is no such descriptor on this sheet.") from None
        with character_change(
            character=character, author=author, reason=f"Spent XP: raised {name}"
        ) as record:
            # Read again under character_change's lock, so two requests cannot both spend the same XP.
            sheet.refresh_from_db()
            rows = self._saved_rows(character)
            row = next((r for r in rows if str(r.pk) == ident), None)
            current = sheet.hp_rank if ident == HP_SLOT else row.value
            if str(current) != expected:
                shown = fivebyfive.hp_points(current) if ident == HP_SLOT else current
                raise ValidationError(f"{name} is {shown} now, not what you saw; look again before spending.")
            try:
                advancement = fivebyfive.improve(self._rules_descriptors(rows, sheet), name, xp=sheet.xp)
            except RulesError as error:
                raise ValidationError(f"{name} cannot be raised: {error}") from None
            raised = next(d for d in advancement.descriptors if d.name == name)
            if ident == HP_SLOT:
                # The new hit points come unhurt: current HP rises with the maximum.
                sheet.hp += fivebyfive.hp_points(raised.value) - fivebyfive.hp_points(sheet.hp_rank)
                sheet.hp_rank = raised.value
            else:
                row.value = raised.value
                row.save(update_fields=["value"])
            sheet.xp -= advancement.cost
            sheet.save(update_fields=["xp", "hp", "hp_rank"])
            shown = fivebyfive.hp_points(raised.value) if ident == HP_SLOT else raised.value
            record["reason"] = f"Spent {advancement.cost} XP: {name} raised to {shown}"
        return advancement.cost

    @staticmethod
    def _new_name(name: str, what: str) -> str:
        name = " ".join((name or "").split())
        if not name:
            raise ValidationError(f"Type the name of the {what} in Name, then spend.")
        if name.casefold() in (fivebyfive.HP_NAME.casefold(), "hit points"):
            raise ValidationError("HP is already on every sheet; name something else.")
        return name

    def _xp_add(self, character, action, expected, name, author) -> int:
        name = self._new_name(name, "new descriptor")
        sheet = character.fivebyfive
        with character_change(character=character, author=author, reason=f"Spent XP: new {name}") as record:
            sheet.refresh_from_db()
            rows = self._saved_rows(character)
            if str(len(rows)) != expected:
                raise ValidationError("The descriptors changed since you looked; look again before spending.")
            taken = next((r.name for r in rows if r.name.casefold() == name.casefold()), None)
            if taken:
                raise ValidationError(f"'{taken}' is already on this sheet; name something new.")
            exclusive = fivebyfive.ExclusiveAction(action) if action else None
            try:
                advancement = fivebyfive.add_descriptor(
                    self._rules_descriptors(rows, sheet), name, exclusive=exclusive, xp=sheet.xp
                )
            except RulesError as error:
                raise ValidationError(f"{name} cannot be added: {error}") from None
            FiveByFiveDescriptor.objects.create(
                character=character,
                name=name,
                value=fivebyfive.NEW_DESCRIPTOR_COST,
                # After everything ranked at creation (HP took one of the six places).
                position=max([r.position for r in rows] + [len(DEFAULT_ORDER) - 1]) + 1,
                exclusive_action=action,
            )
            sheet.xp -= advancement.cost
            sheet.save(update_fields=["xp"])
            record["reason"] = (
                f"Spent {advancement.cost} XP: new descriptor {name} {fivebyfive.NEW_DESCRIPTOR_COST}"
            )
        return advancement.cost

    def _xp_trade(self, character, expected, name, author) -> int:
        name = self._new_name(name, "new weakness")
        sheet = character.fivebyfive
        with character_change(
            character=character, author=author, reason="Spent XP: traded the poor one"
        ) as record:
            sheet.refresh_from_db()
            rows = self._saved_rows(character)
            ident, old = self._poor(rows, sheet)
            if not ident or ident != expected:
                raise ValidationError(
                    "Your poor descriptor changed since you looked; look again before spending."
                )
            try:
                advancement = fivebyfive.swap_poor(self._rules_descriptors(rows, sheet), name, xp=sheet.xp)
            except RulesError as error:
                raise ValidationError(f"{old} cannot be traded: {error}") from None
            if ident == HP_SLOT:
                # HP leaves the poor rank for untrained (10 HP, the new points unhurt); the weakness is new.
                sheet.hp += fivebyfive.hp_points(fivebyfive.UNTRAINED) - fivebyfive.hp_points(sheet.hp_rank)
                sheet.hp_rank = fivebyfive.UNTRAINED
                FiveByFiveDescriptor.objects.create(
                    character=character,
                    name=name,
                    value=fivebyfive.POOR,
                    position=max([r.position for r in rows] + [len(DEFAULT_ORDER) - 1]) + 1,
                )
            else:
                # The new weakness takes the old one's place; nothing of the old one carries over.
                row = next(r for r in rows if str(r.pk) == ident)
                row.name, row.exclusive_action, row.advanced = name, "", False
                row.save(update_fields=["name", "exclusive_action", "advanced"])
            sheet.xp -= advancement.cost
            sheet.save(update_fields=["xp", "hp", "hp_rank"])
            record["reason"] = f"Spent {advancement.cost} XP: traded {old} for {name}"
        return advancement.cost
