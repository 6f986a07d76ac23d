"""L5R experience: the campaign's starting budget, what a sheet's ranks cost, and the GM's awards and the
player's purchases at the common 4th-edition costs."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from campaigns.systems import NumberOption
from rules import l5r
from sheets.contract import SheetSystem, XpOffer
from sheets.services import character_change

from .base import EMPHASIS_MAX_LENGTH, SKILL_FIELDS, TRAIT_LABELS, emphasis_count
from .models import L5RSheet, L5RSkill

BUDGET_OPTION = NumberOption(
    "l5r_starting_xp",
    "Starting XP budget",
    "The XP a new character spends on traits, Void, skills and emphases above the base of 2 in every "
    "trait and Void. Changing it changes what every character here has left to spend.",
    default=l5r.STARTING_XP,
    min_value=0,
    max_value=1000,
)
XP_TOTAL_MAX = 9999


def starting_xp(campaign) -> int:
    """The campaign's starting budget, read at every use so the GM's change reaches existing sheets."""
    return BUDGET_OPTION.value(campaign.options)


def sheet_cost(sheet: L5RSheet, skills) -> int:
    """The XP the sheet's ranks cost from the base: what its build and every later purchase spent."""
    return l5r.build_cost(
        sheet.trait_values(),
        void=sheet.void,
        skills={skill.name: skill.rank for skill in skills},
        emphases=sum(emphasis_count(skill.emphasis) for skill in skills if skill.rank),
    )


def xp_left(character, skills=None) -> int:
    """Budget + awards - what the sheet's ranks cost; below 0 when the GM let it go over."""
    skills = list(character.l5r_skills.all()) if skills is None else skills
    sheet = character.l5r
    return starting_xp(character.campaign) + sheet.xp_awarded - sheet_cost(sheet, skills)


class L5RXp(SheetSystem):
    """Experience: the GM awards it, the player spends it at the common 4th-edition costs."""

    def xp(self, character):
        return max(0, xp_left(character))

    def xp_award(self, *, character, amount, author):
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= self.xp_award_max:
            raise ValidationError(f"Award from 1 to {self.xp_award_max} XP at a time.")
        with character_change(character=character, author=author, reason=f"Awarded {amount} XP"):
            sheet = character.l5r
            sheet.refresh_from_db(fields=["xp_awarded"])
            if sheet.xp_awarded + amount > XP_TOTAL_MAX:
                raise ValidationError(f"A sheet holds at most {XP_TOTAL_MAX} XP awarded in all.")
            sheet.xp_awarded += amount
            sheet.save(update_fields=["xp_awarded"])

    def xp_spends(self, character):
        sheet = character.l5r
        skills = {skill.name.lower(): skill for skill in character.l5r_skills.all()}
        left = xp_left(character, list(skills.values()))
        offers = []

        def offer(key, what, rank, cost, seen, **kwargs):
            if cost is None:
                offers.append(XpOffer(key, f"{what} {rank} (the highest rank)", None, seen))
            elif cost > left:
                offers.append(
                    XpOffer(key, f"{what} {rank} → {rank + 1} ({cost} XP; {left} left)", None, seen)
                )
            else:
                offers.append(XpOffer(key, f"{what} {rank} → {rank + 1} ({cost} XP)", cost, seen, **kwargs))

        for trait in l5r.TRAITS:
            rank = getattr(sheet, trait)
            cost = l5r.trait_cost(rank + 1) if rank < l5r.TRAIT_MAX else None
            offer(f"trait:{trait}", TRAIT_LABELS[trait], rank, cost, str(rank))
        cost = l5r.void_cost(sheet.void + 1) if sheet.void < l5r.TRAIT_MAX else None
        offer("void", "Void", sheet.void, cost, str(sheet.void))
        for name, info in SKILL_FIELDS.items():
            row = skills.get(info.name.lower())
            rank = row.rank if row is not None else 0
            cost = l5r.skill_cost(rank + 1) if rank < l5r.SKILL_MAX else None
            offer(f"skill:{name}", info.name, rank, cost, str(rank))
        for name, info in SKILL_FIELDS.items():
            row = skills.get(info.name.lower())
            if row is None or not row.rank:
                continue
            label = f"New {info.name} emphasis, named below ({l5r.EMPHASIS_XP} XP)"
            if l5r.EMPHASIS_XP > left:
                offers.append(XpOffer(f"emphasis:{name}", f"{label}; {left} left", None, row.emphasis))
            else:
                offers.append(
                    XpOffer(f"emphasis:{name}", label, l5r.EMPHASIS_XP, row.emphasis, needs_name=True)
                )
        return offers

    def xp_spend(self, *, character, key, expected, name="", author):
        """Buy one rank (a trait, Void, a skill) or an emphasis; ``expected`` is what the player saw, so
        a second click or a stale tab is refused rather than paying twice. ValidationError: nothing saved."""
        kind, _, ident = key.partition(":")
        if kind == "trait" and ident in l5r.TRAITS:
            what = TRAIT_LABELS[ident]
        elif kind == "void" and not ident:
            what = "Void"
        elif kind in ("skill", "emphasis") and ident in SKILL_FIELDS:
            what = SKILL_FIELDS[ident].name
        else:
            raise KeyError(key)
        if kind == "emphasis":
            return self._xp_emphasis(character, SKILL_FIELDS[ident], expected, name, author)
        with character_change(
            character=character, author=author, reason=f"Spent XP: raised {what}"
        ) as record:
            # Read again under character_change's lock, so two requests cannot both spend the same XP.
            sheet = L5RSheet.objects.get(pk=character.l5r.pk)
            character.l5r = sheet
            row = None
            if kind == "skill":
                info = SKILL_FIELDS[ident]
                row = character.l5r_skills.filter(name__iexact=info.name).first()
                rank = row.rank if row is not None else 0
                top, cost_of = l5r.SKILL_MAX, l5r.skill_cost
            else:
                rank = getattr(sheet, ident or "void")
                top, cost_of = l5r.TRAIT_MAX, l5r.void_cost if kind == "void" else l5r.trait_cost
            if str(rank) != expected:
                raise ValidationError(f"{what} is {rank} now, not what you saw; look again before spending.")
            if rank >= top:
                raise ValidationError(f"{what} is already {top}, the highest rank.")
            cost = cost_of(rank + 1)
            left = xp_left(character, list(L5RSkill.objects.filter(character=character)))
            if cost > left:
                raise ValidationError(
                    f"{what} {rank + 1} costs {cost} XP; {character.name} has {max(0, left)}."
                )
            if kind == "skill":
                if row is None:
                    L5RSkill.objects.create(character=character, name=info.name, rank=1, trait=info.trait)
                else:
                    row.rank = rank + 1
                    row.save(update_fields=["rank"])
            else:
                setattr(sheet, ident or "void", rank + 1)
                sheet.save(update_fields=[ident or "void"])
            record["reason"] = f"Spent {cost} XP: {what} raised to {rank + 1}"
        return cost

    def _xp_emphasis(self, character, info, expected, name, author) -> int:
        emphasis = " ".join((name or "").replace(",", " ").split())
        if not emphasis:
            raise ValidationError(f"Name the new {info.name} emphasis.")
        with character_change(
            character=character, author=author, reason=f"Spent XP: {info.name} emphasis"
        ) as record:
            row = character.l5r_skills.filter(name__iexact=info.name).first()
            if row is None or not row.rank:
                raise ValidationError(f"An emphasis needs at least one rank in {info.name}.")
            if row.emphasis != expected:
                raise ValidationError(
                    f"{info.name}'s emphases changed since you looked; look again before spending."
                )
            known = {part.strip().lower() for part in row.emphasis.split(",")}
            if emphasis.lower() in known:
                raise ValidationError(f"{info.name} already has the emphasis {emphasis}.")
            written = f"{row.emphasis}, {emphasis}" if row.emphasis else emphasis
            if len(written) > EMPHASIS_MAX_LENGTH:
                raise ValidationError(
                    f"{info.name}'s emphases can be at most {EMPHASIS_MAX_LENGTH} characters in all."
                )
            left = xp_left(character, list(L5RSkill.objects.filter(character=character)))
            if l5r.EMPHASIS_XP > left:
                raise ValidationError(
                    f"An emphasis costs {l5r.EMPHASIS_XP} XP; {character.name} has {max(0, left)}."
                )
            row.emphasis = written
            row.save(update_fields=["emphasis"])
            record["reason"] = f"Spent {l5r.EMPHASIS_XP} XP: {info.name} emphasis {emphasis}"
        return l5r.EMPHASIS_XP
