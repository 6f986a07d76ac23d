"""An action that needs a target is offered only when it has one: no Heal, and no empty Target list,
while nobody on the healer's side is hurt."""

from sheets.systems.fivebyfive.models import FiveByFiveSheet

from .test_encounter_fivebyfive import fight, start_with_mara_first  # noqa: F401 - the fixture

HEAL = '<input type="hidden" name="action" value="heal">'
ATTACK = '<input type="hidden" name="action" value="attack">'


def test_heal_is_offered_only_when_someone_is_hurt(fight, gm, client_for):  # noqa: F811
    encounter, larry, mara, bandit = fight
    start_with_mara_first(encounter, gm)  # Mara, a Field Medic, acts first
    page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert ATTACK in page and HEAL not in page and "Heal with" not in page
    assert 'id="target-heal"' not in page

    FiveByFiveSheet.objects.filter(character=larry).update(hp=5)
    page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert HEAL in page and 'id="target-heal"' in page
