"""L5R emphases in an encounter: a skill roll or an attack whose emphasis applies re-rolls each 1 once
(4th edition, "Emphases"; docs/rules.md), through the encounter services with fixed dice."""

from fractions import Fraction

import pytest

from campaigns.models import FeedEntry
from rules import l5r
from sheets.combat import EncounterError
from sheets.systems.l5r.combat import L5RCombat

from . import test_encounter_l5r as base
from .test_encounter_l5r import do, reload

# The scripted fight's fixtures: Shinai, then the bandit, then Tishi, started.
fight, party = base.fight, base.party


def test_rule_an_emphasis_re_rolls_the_ones_of_a_skill_roll(party, gm):
    encounter, by_name = party
    shinai = by_name["Bayushi Shinai"]
    # Sincerity 2 + Awareness 3 = 5k3 with the emphasis Deceit: dice 1, 6, 5, 1, 3; die 1 again shows
    # 10 then 2 (12), die 4 again shows 4. Keeps 12 + 6 + 5 = 23 against TN 20.
    do(
        encounter,
        shinai,
        "skill",
        {"skill": "Sincerity", "tn": "20", "cooperation": "alone", "emphasis": "Sincerity:Deceit"},
        (1, 6, 5, 1, 3, 10, 2, 4),
        gm=gm,
    )
    line = FeedEntry.objects.get(label__endswith="Bayushi Shinai: Sincerity")
    assert line.result["total"] == 23 and line.result["outcome"] == "success"
    assert [d["face"] for d in line.result["dice"]] == [12, 6, 5, 4, 3]
    assert "emphasis Deceit: 1s re-rolled (die 1: 1 → 12, die 4: 1 → 4)" in line.summary
    assert Fraction(line.chance) == l5r.chance(5, 3, 20, reroll_ones=True)


def test_the_skill_rolls_emphasis_must_be_that_skills(party, gm):
    encounter, by_name = party
    before = FeedEntry.objects.count()
    with pytest.raises(EncounterError, match="Deceit is an emphasis of Sincerity, not of Stealth"):
        do(
            encounter,
            by_name["Bayushi Shinai"],
            "skill",
            {"skill": "Stealth", "tn": "15", "cooperation": "alone", "emphasis": "Sincerity:Deceit"},
            (5, 5, 5, 5),
            gm=gm,
        )
    assert FeedEntry.objects.count() == before


def test_rule_an_attack_with_its_skills_emphasis(party, gm):
    encounter, by_name = party
    shinai, bandit = by_name["Bayushi Shinai"], by_name["Bandit"]
    shinai.character.l5r_skills.filter(name="Kenjutsu").update(emphasis="Katana")
    katana = shinai.character.l5r_weapons.get(name="Katana").pk
    offered = L5RCombat().actions(encounter, shinai, list(encounter.combatants.all()))
    form = next(action for action in offered if action.key == "attack").form_class
    assert dict(form.base_fields["emphasis"].choices) == {"": "None", "Kenjutsu:Katana": "Kenjutsu: Katana"}
    # Kenjutsu 2 + Agility 3 = 5k3 against the bandit's Armor TN 20: dice 1, 8, 4, 1, 2; die 1 again
    # shows 9, die 4 again a 1, which stands. Keeps 9 + 8 + 4 = 21, a hit; damage 5k2: 7 + 6 = 13.
    data = {"skill": "Kenjutsu", "weapon": str(katana), "raises": "0", "emphasis": "Kenjutsu:Katana"}
    do(encounter, shinai, "attack", data, (1, 8, 4, 1, 2, 9, 1, 7, 6, 3, 2, 1), gm=gm, target=bandit)
    attack = FeedEntry.objects.get(label__endswith="Shinai attacks Bandit")
    assert attack.result["total"] == 21 and attack.result["outcome_label"] == "hit"
    assert attack.summary.startswith("Kenjutsu 2 + Agility 3, emphasis Katana: 5k3 vs TN 20")
    assert "emphasis Katana: 1s re-rolled (die 1: 1 → 9, die 4: 1 → 1)" in attack.summary
    assert Fraction(attack.chance) == l5r.chance(5, 3, 20, reroll_ones=True)
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["wounds"] == 13


def test_an_attack_refuses_another_skills_emphasis(party, gm):
    encounter, by_name = party
    shinai, bandit = by_name["Bayushi Shinai"], by_name["Bandit"]
    shinai.character.l5r_skills.filter(name="Kenjutsu").update(emphasis="Katana")
    yumi = shinai.character.l5r_weapons.get(name="Yumi").pk
    data = {"skill": "Kyujutsu", "weapon": str(yumi), "raises": "0", "emphasis": "Kenjutsu:Katana"}
    with pytest.raises(EncounterError, match="Katana is an emphasis of Kenjutsu, not of Kyujutsu"):
        do(encounter, shinai, "attack", data, (5,) * 12, gm=gm, target=bandit)
    assert not FeedEntry.objects.filter(label__endswith="attacks Bandit").exists()
