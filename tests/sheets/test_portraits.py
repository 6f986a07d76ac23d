"""Portraits: what an upload must be to be kept, what is kept of it, and who may see and change it."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from play import encounters
from sheets import portraits
from sheets.models import Character
from sheets.registry import combat_for
from sheets.transfer import PORTRAIT_NOTE

from .conftest import page_text


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return tmp_path / "media"


@pytest.fixture
def character(demo_character):
    return demo_character("triad")


def image_bytes(fmt="PNG", size=(40, 30), mode="RGB", **save):
    out = io.BytesIO()
    Image.new(mode, size, (200, 30, 30) if mode == "RGB" else None).save(out, fmt, **save)
    return out.getvalue()


def jpeg_with_exif():
    exif = Image.Exif()
    exif[0x010F] = "SpyCam"  # Make
    exif[0x0131] = "secret-software"  # Software
    exif[0x8825] = {2: (51.0, 30.0, 0.0), 1: "N"}  # GPS latitude
    return image_bytes("JPEG", size=(1200, 800), exif=exif.tobytes(), comment=b"hidden note")


def upload(client, character, data, name="me.png", follow=True):
    return client.post(
        reverse("portrait", args=[character.pk]),
        {"portrait": SimpleUploadedFile(name, data, content_type="image/png")},
        follow=follow,
    )


def stored_files(media):
    folder = media / "portraits"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_jpeg_is_shrunk_and_stored_without_its_metadata(character, player, client_for, media):
    response = upload(client_for(player), character, jpeg_with_exif(), name="../../etc/passwd.jpg")
    assert "Portrait saved." in page_text(response)
    character.refresh_from_db()
    assert character.portrait and "passwd" not in character.portrait
    assert stored_files(media) == [character.portrait]
    raw = (media / "portraits" / character.portrait).read_bytes()
    assert b"SpyCam" not in raw and b"secret-software" not in raw and b"hidden note" not in raw
    with Image.open(io.BytesIO(raw)) as stored:
        assert stored.format == "WEBP"
        assert max(stored.size) == 512 and stored.size == (512, 341)
        assert not stored.getexif() and "exif" not in stored.info and "icc_profile" not in stored.info


@pytest.mark.parametrize(
    "fmt, mode",
    [("PNG", "RGBA"), ("WEBP", "RGB"), ("GIF", "P")],
)
def test_each_accepted_format_is_stored_as_webp(character, player, client_for, media, fmt, mode):
    upload(client_for(player), character, image_bytes(fmt, mode=mode))
    character.refresh_from_db()
    with Image.open(media / "portraits" / character.portrait) as stored:
        assert stored.format == "WEBP" and stored.size == (40, 30)


def bomb_png(side):
    # A small file whose header claims side x side pixels: never decoded. Past MAX_PIXELS Pillow warns,
    # past twice that it refuses on its own: both are refused with the same words.
    out = io.BytesIO()
    Image.new("1", (side, side)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    "data, name, message",
    [
        (b"just some text, not a picture", "notes.png", "not an image this app can read"),
        (b"GIF89a" + b"\0" * 50, "broken.gif", "not an image this app can read"),
        (image_bytes("BMP"), "old.bmp", "must be a PNG, JPEG, WebP or GIF"),
        (image_bytes("TIFF"), "scan.tiff", "must be a PNG, JPEG, WebP or GIF"),
        (b"\x89PNG" + b"\0" * (2 * 1024 * 1024), "huge.png", "a portrait may be at most 2 MB"),
        (bomb_png(5500), "bomb.png", "too many pixels to open safely"),
        (bomb_png(20000), "bomb.png", "too many pixels to open safely"),
    ],
    ids=["text", "truncated", "bmp", "tiff", "too-big", "bomb", "big-bomb"],
)
def test_a_bad_upload_is_refused_with_a_message_and_changes_nothing(
    character, player, client_for, media, data, name, message
):
    client = client_for(player)
    upload(client, character, image_bytes())
    character.refresh_from_db()
    before = character.portrait
    response = upload(client, character, data, name=name)
    assert response.status_code == 200
    text = page_text(response)
    assert "Portrait not changed:" in text and message in text
    character.refresh_from_db()
    assert character.portrait == before
    assert stored_files(media) == [before]


def test_a_post_without_a_file_says_so(character, player, client_for):
    response = client_for(player).post(reverse("portrait", args=[character.pk]), follow=True)
    assert "Choose an image file" in page_text(response)
    character.refresh_from_db()
    assert character.portrait == ""


def test_a_new_portrait_replaces_the_old_file_and_remove_deletes_it(
    character, gm, client_for, media, django_capture_on_commit_callbacks
):
    client = client_for(gm)  # the GM may change it too
    upload(client, character, image_bytes())
    first = Character.objects.get(pk=character.pk).portrait
    # The old file goes once the new name is committed.
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, character, image_bytes("JPEG"))
    second = Character.objects.get(pk=character.pk).portrait
    assert second != first and stored_files(media) == [second]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("portrait_remove", args=[character.pk]), follow=True)
    assert "Portrait removed." in page_text(response)
    assert Character.objects.get(pk=character.pk).portrait == "" and stored_files(media) == []


@pytest.mark.parametrize("who, status", [("other_player", 403), ("outsider", 404)])
def test_only_the_player_and_the_gm_change_it(
    character, client_for, other_player, outsider, media, who, status
):
    user = {"other_player": other_player, "outsider": outsider}[who]
    response = client_for(user).post(
        reverse("portrait", args=[character.pk]),
        {"portrait": SimpleUploadedFile("x.png", image_bytes(), content_type="image/png")},
    )
    assert response.status_code == status
    assert client_for(user).post(reverse("portrait_remove", args=[character.pk])).status_code == status
    assert Character.objects.get(pk=character.pk).portrait == "" and stored_files(media) == []


def test_the_image_is_served_to_the_table_only(
    character, player, other_player, outsider, gm, client_for, make_campaign, make_user
):
    upload(client_for(player), character, image_bytes())
    url = reverse("portrait", args=[character.pk])
    for user in (player, other_player, gm):
        response = client_for(user).get(url)
        assert response.status_code == 200 and response["Content-Type"] == "image/webp"
        assert b"".join(response.streaming_content).startswith(b"RIFF")
    assert client_for(outsider).get(url).status_code == 404
    # A GM and players of another campaign are outsiders here too.
    stranger = make_user("stranger")
    make_campaign("triad", players=[stranger], name="Another table")
    assert client_for(stranger).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 302  # to the log-in page


def test_no_portrait_is_a_404_and_an_npcs_is_the_gms(character, player, gm, client_for):
    assert client_for(player).get(reverse("portrait", args=[character.pk])).status_code == 404
    npc = Character.objects.create(campaign=character.campaign, owner=gm, name="Shade", is_npc=True)
    upload(client_for(gm), npc, image_bytes(), follow=False)  # a bare row: it has no sheet to draw
    url = reverse("portrait", args=[npc.pk])
    assert client_for(gm).get(url).status_code == 200
    assert client_for(player).get(url).status_code == 404


def test_the_sheet_shows_the_portrait_or_the_initial_badge(character, player, other_player, client_for):
    page = client_for(other_player).get(reverse("sheet", args=[character.pk])).content.decode()
    assert 'class="avatar avatar-lg avatar-badge' in page and f'aria-label="{character.name}"' in page
    assert "portrait-file" not in page  # another player's sheet: no upload form
    upload(client_for(player), character, image_bytes())
    character.refresh_from_db()
    page = client_for(other_player).get(reverse("sheet", args=[character.pk])).content.decode()
    assert f'src="{reverse("portrait", args=[character.pk])}?v={character.portrait}"' in page
    assert "portrait-file" in client_for(player).get(reverse("sheet", args=[character.pk])).content.decode()


def test_the_export_notes_whether_there_is_a_portrait(character, player, client_for):
    client = client_for(player)
    export = reverse("sheet_export", args=[character.pk])
    assert json.loads(client.get(export).content)["portrait"] is None
    upload(client, character, image_bytes())
    assert json.loads(client.get(export).content)["portrait"] == PORTRAIT_NOTE


def test_processing_never_reads_past_the_cap():
    class Liar(io.BytesIO):
        size = 10  # claims to be small

    with pytest.raises(portraits.PortraitError, match="over 2 MB"):
        portraits.clean_image(Liar(b"\0" * (portraits.MAX_BYTES + 10)))


def test_the_encounter_order_shows_the_portrait_or_the_badge(character, player, gm, client_for):
    upload(client_for(player), character, image_bytes())
    character.refresh_from_db()
    combat = combat_for(character.campaign)
    npc = combat.npc_form_class(combat.sample_npc())
    assert npc.is_valid(), npc.errors
    encounter = encounters.encounter_create(campaign=character.campaign, name="Crypt")
    encounters.combatant_add_character(encounter=encounter, character=character)
    encounters.combatant_add_npc(encounter=encounter, name="Ghoul", cleaned_data=npc.cleaned_data)
    image = f'src="{reverse("portrait", args=[character.pk])}?v={character.portrait}" alt="{character.name}"'
    for page in (
        client_for(player).get(reverse("encounter_panel", args=[character.campaign_id])),
        client_for(gm).get(reverse("encounter", args=[character.campaign_id, encounter.pk])),
    ):
        html = page.content.decode()
        assert image in html
        assert 'role="img" aria-label="Ghoul"><span aria-hidden="true">G</span>' in html


def test_an_npc_sheets_portrait_in_the_order_is_the_gms_alone(character, player, gm, client_for):
    """An NPC's sheet is the GM's alone (sheets.selectors.character_for_viewer), and so is its portrait:
    the players' order shows its badge, and no address of the picture reaches them."""
    Character.objects.filter(pk=character.pk).update(is_npc=True, portrait="abc123.webp")
    encounter = encounters.encounter_create(campaign=character.campaign, name="Crypt")
    encounters.combatant_add_character(encounter=encounter, character=Character.objects.get(pk=character.pk))
    address = reverse("portrait", args=[character.pk])
    gm_order = client_for(gm).get(reverse("encounter", args=[character.campaign_id, encounter.pk]))
    assert f'src="{address}?v=abc123.webp"' in gm_order.content.decode()
    panel = client_for(player).get(reverse("encounter_panel", args=[character.campaign_id]))
    players = panel.content.decode()
    assert address not in players and "abc123" not in players
    badge = f'avatar-badge avatar-c{str(character.pk)[-1]}" role="img" aria-label="{character.name}"'
    assert badge in players
