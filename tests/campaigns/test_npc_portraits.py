"""A quick NPC's portrait: the GM uploads it on the encounter page, checked as a character's is; the
table sees it in the turn order; it goes with its combatant."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse
from PIL import Image

from play import encounters
from play.models import Combatant
from sheets.demo import load_demo_characters
from tests.conftest import page_text
from tests.npcs import sample_npc
from tests.sheets.test_portraits import bomb_png, image_bytes, jpeg_with_exif


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return tmp_path / "media"


@pytest.fixture
def fight(make_campaign, player, other_player):
    """A Triad fight being set up: the player's character and a ghoul (a quick NPC)."""
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    encounter = encounters.encounter_create(campaign=campaign, name="Crypt")
    hero = campaign.characters.get(owner=player)
    encounters.combatant_add_character(encounter=encounter, character=hero)
    encounters.combatant_add_npc(encounter=encounter, name="Ghoul", cleaned_data=sample_npc("triad"))
    return encounter


def ghoul(encounter) -> Combatant:
    return encounter.combatants.get(name="Ghoul")


def url(encounter, combatant, name="npc_portrait"):
    return reverse(name, args=[encounter.campaign_id, encounter.pk, combatant.pk])


def upload(client, encounter, combatant, data, name="ghoul.png", follow=True):
    return client.post(
        url(encounter, combatant),
        {"portrait": SimpleUploadedFile(name, data, content_type="image/png")},
        follow=follow,
    )


def stored_files(media):
    folder = media / "portraits"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_the_gm_uploads_it_from_the_encounter_page_checked_as_a_characters_is(fight, gm, client_for, media):
    client = client_for(gm)
    page = client.get(fight.get_absolute_url()).content.decode()
    target = url(fight, ghoul(fight))
    assert f'action="{target}" enctype="multipart/form-data"' in page
    response = upload(client, fight, ghoul(fight), jpeg_with_exif(), name="../../etc/passwd.jpg")
    assert response.redirect_chain == [(fight.get_absolute_url(), 302)]
    assert "Portrait saved." in page_text(response)
    stored = ghoul(fight).portrait
    assert stored and "passwd" not in stored and stored_files(media) == [stored]
    raw = (media / "portraits" / stored).read_bytes()
    assert b"SpyCam" not in raw and b"hidden note" not in raw
    with Image.open(io.BytesIO(raw)) as image:
        assert image.format == "WEBP" and image.size == (512, 341) and not image.getexif()


def test_the_order_shows_it_to_every_seat_and_the_badge_where_there_is_none(
    fight, gm, player, other_player, client_for
):
    badge = 'role="img" aria-label="Ghoul"><span aria-hidden="true">G</span>'
    panel = reverse("encounter_panel", args=[fight.campaign_id])
    assert badge in client_for(player).get(panel).content.decode()
    upload(client_for(gm), fight, ghoul(fight), image_bytes())
    image = f'src="{url(fight, ghoul(fight))}?v={ghoul(fight).portrait}" alt="Ghoul"'
    for client, page in (
        (client_for(player), panel),
        (client_for(other_player), panel),
        (client_for(gm), panel),
        (client_for(gm), fight.get_absolute_url()),
    ):
        html = client.get(page).content.decode()
        assert image in html and badge not in html


def test_the_image_is_served_to_the_table_only(
    fight, gm, player, other_player, outsider, client_for, make_campaign, make_user
):
    target = url(fight, ghoul(fight))
    assert client_for(player).get(target).status_code == 404  # none yet
    upload(client_for(gm), fight, ghoul(fight), image_bytes())
    for user in (gm, player, other_player):
        response = client_for(user).get(target)
        assert response.status_code == 200 and response["Content-Type"] == "image/webp"
        assert b"".join(response.streaming_content).startswith(b"RIFF")
    assert client_for(outsider).get(target).status_code == 404
    stranger = make_user("stranger")  # the GM of another table is an outsider here
    other = make_campaign("triad", name="Another table")
    other.gm = stranger
    other.save(update_fields=["gm"])
    assert client_for(stranger).get(target).status_code == 404
    assert client_for(None).get(target).status_code == 302  # to the log-in page


def test_only_the_gm_changes_it(fight, gm, player, outsider, client_for, media):
    upload(client_for(gm), fight, ghoul(fight), image_bytes())
    kept = ghoul(fight).portrait
    for user, status in ((player, 403), (outsider, 404)):
        assert (
            upload(client_for(user), fight, ghoul(fight), image_bytes("JPEG"), follow=False).status_code
            == status
        )
        assert client_for(user).post(url(fight, ghoul(fight), "npc_portrait_remove")).status_code == status
    assert ghoul(fight).portrait == kept and stored_files(media) == [kept]


def test_a_character_in_the_fight_or_another_encounters_npc_is_not_a_quick_npc_here(
    fight, gm, client_for, media
):
    client = client_for(gm)
    hero = fight.combatants.get(character__isnull=False)
    assert upload(client, fight, hero, image_bytes(), follow=False).status_code == 404
    elsewhere = encounters.encounter_create(campaign=fight.campaign, name="Tomb")
    assert upload(client, elsewhere, ghoul(fight), image_bytes(), follow=False).status_code == 404
    assert stored_files(media) == [] and not hero.portrait


@pytest.mark.parametrize(
    "data, name, message",
    [
        (b"just some text, not a picture", "notes.png", "not an image this app can read"),
        (image_bytes("BMP"), "old.bmp", "must be a PNG, JPEG, WebP or GIF"),
        (b"\x89PNG" + b"\0" * (2 * 1024 * 1024), "huge.png", "a portrait may be at most 2 MB"),
        (bomb_png(5500), "bomb.png", "too many pixels to open safely"),
    ],
    ids=["text", "bmp", "too-big", "bomb"],
)
def test_a_bad_upload_says_why_on_the_page_and_changes_nothing(
    fight, gm, client_for, media, data, name, message
):
    client = client_for(gm)
    upload(client, fight, ghoul(fight), image_bytes())
    before = ghoul(fight).portrait
    response = upload(client, fight, ghoul(fight), data, name=name)
    assert response.redirect_chain == [(fight.get_absolute_url(), 302)]
    text = page_text(response)
    assert "Portrait not changed:" in text and message in text
    assert ghoul(fight).portrait == before and stored_files(media) == [before]


def test_a_post_without_a_file_says_so(fight, gm, client_for):
    response = client_for(gm).post(url(fight, ghoul(fight)), follow=True)
    assert "Choose an image file" in page_text(response)
    assert ghoul(fight).portrait == ""


def test_a_new_one_replaces_the_old_file_and_remove_deletes_it(
    fight, gm, client_for, media, django_capture_on_commit_callbacks
):
    client = client_for(gm)
    upload(client, fight, ghoul(fight), image_bytes())
    first = ghoul(fight).portrait
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, fight, ghoul(fight), image_bytes("GIF", mode="P"))
    second = ghoul(fight).portrait
    assert second != first and stored_files(media) == [second]
    page = client.get(fight.get_absolute_url()).content.decode()
    assert f'action="{url(fight, ghoul(fight), "npc_portrait_remove")}"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url(fight, ghoul(fight), "npc_portrait_remove"), follow=True)
    assert "Portrait removed." in page_text(response)
    assert ghoul(fight).portrait == "" and stored_files(media) == []


def test_every_open_order_hears_of_it(fight, gm, client_for, monkeypatch, django_capture_on_commit_callbacks):
    heard = []
    monkeypatch.setattr("campaigns.realtime.panel_changed", lambda **kwargs: heard.append(kwargs))
    with django_capture_on_commit_callbacks(execute=True):
        upload(client_for(gm), fight, ghoul(fight), image_bytes())
        client_for(gm).post(url(fight, ghoul(fight), "npc_portrait_remove"))
    assert heard == [{"campaign_id": fight.campaign_id, "panel": "encounter"}] * 2


def test_removing_the_combatant_or_deleting_the_encounter_deletes_the_file(
    fight, gm, client_for, media, django_capture_on_commit_callbacks
):
    client = client_for(gm)
    encounters.combatant_add_npc(encounter=fight, name="Ghast", cleaned_data=sample_npc("triad"))
    ghast = fight.combatants.get(name="Ghast")
    upload(client, fight, ghoul(fight), image_bytes())
    upload(client, fight, ghast, image_bytes("JPEG"))
    assert len(stored_files(media)) == 2
    fight.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        encounters.combatant_remove(encounter=fight, version=fight.version, combatant_id=ghast.pk)
    assert stored_files(media) == [ghoul(fight).portrait]
    with django_capture_on_commit_callbacks(execute=True):
        fight.delete()
    assert stored_files(media) == []


def test_a_deletion_rolled_back_keeps_the_file(
    fight, gm, client_for, media, django_capture_on_commit_callbacks
):
    upload(client_for(gm), fight, ghoul(fight), image_bytes())
    kept = ghoul(fight).portrait

    class Undone(Exception):
        pass

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Undone), transaction.atomic():
        ghoul(fight).delete()
        raise Undone
    assert ghoul(fight).portrait == kept and stored_files(media) == [kept]
