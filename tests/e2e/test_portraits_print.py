"""A portrait uploaded from the sheet and seen on it and in the feed; a quick NPC's uploaded by the GM and
seen in the turn order; no portrait asked for that is not there; every system's sheet printed."""

import io
import re

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import expect

from campaigns.services import feed_entry_create
from rules.dice import Outcome
from sheets.demo import load_demo_characters
from sheets.registry import game_systems

from .conftest import SIGNAL_TIMEOUT_MS
from .session import crypt_fight, expect_live, logged_in_page, shoot, table_url
from .test_accessibility import audit

pytestmark = pytest.mark.e2e

A_LINE = {"dice": [], "outcome": Outcome.NONE.value, "outcome_label": "", "total": None, "changes": []}


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def png(colour=(30, 120, 200), size=(900, 600)):
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def ghoul_png():
    """A pale face with dark eyes on green: a picture, not a flat colour a badge could be mistaken for."""
    image = Image.new("RGB", (600, 600), (60, 110, 50))
    draw = ImageDraw.Draw(image)
    draw.ellipse((120, 80, 480, 520), fill=(205, 215, 190))
    for left in (190, 330):
        draw.ellipse((left, 220, left + 80, 300), fill=(20, 20, 20))
    draw.rectangle((230, 400, 370, 430), fill=(90, 20, 20))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def loaded(locator) -> bool:
    """Whether the image loads: once it has, or when its own load or error event comes (visible is not
    loaded: on a busy machine the bytes can still be on their way)."""
    return locator.evaluate(
        """(img, patience) => img.complete ? img.naturalWidth > 0 : new Promise(done => {
            img.addEventListener("load", () => done(img.naturalWidth > 0), { once: true });
            img.addEventListener("error", () => done(false), { once: true });
            setTimeout(() => done(false), patience);  // never came: a failure, not a hang
        })""",
        SIGNAL_TIMEOUT_MS,
    )


def test_a_portrait_uploaded_on_the_sheet_shows_there_and_in_the_feed(
    new_page, make_campaign, player, other_player
):
    campaign = make_campaign("triad", players=[player, other_player], name="Castle Night")
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    theirs = campaign.characters.get(owner=other_player)

    page = logged_in_page(new_page, player, mine.get_absolute_url())
    badge = page.locator(".sheet-header .avatar-badge")
    expect(badge).to_have_text(mine.name[0].upper())
    page.locator("#portrait-file").set_input_files(
        files=[{"name": "me.png", "mimeType": "image/png", "buffer": png()}]
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_text("Portrait saved.")).to_be_visible()
    portrait = page.get_by_role("img", name=mine.name, exact=True).and_(page.locator("img.avatar-lg"))
    expect(portrait).to_be_visible()
    assert loaded(portrait)
    shoot(page, "portrait-sheet", top=True)
    phone = logged_in_page(new_page, other_player, mine.get_absolute_url(), phone=True)
    expect(phone.locator("img.avatar-lg")).to_be_visible()
    assert loaded(phone.locator("img.avatar-lg"))
    shoot(phone, "portrait-sheet-phone", top=True)

    # One line about each character: the portrait beside the one that has it, the initial beside the other.
    for character in (mine, theirs):
        feed_entry_create(campaign=campaign, author=character.owner, character=character,
                          label=f"{character.name} looks around", result=A_LINE)
    page.goto(table_url(campaign))
    entry = page.locator(".feed-entry", has_text=f"{mine.name} looks around")
    with_portrait = entry.locator("img[data-portrait]")
    expect(with_portrait).to_be_visible()
    assert loaded(with_portrait)
    other = page.locator(".feed-entry", has_text=f"{theirs.name} looks around")
    expect(other.locator(".avatar-badge")).to_contain_text(theirs.name[0].upper())
    expect(other.locator("img[data-portrait]")).to_be_hidden()  # none to load: no broken image
    shoot(page, "portrait-feed", top=True)

    # Removed: the badge again.
    page.goto(mine.get_absolute_url())
    page.get_by_role("button", name="Remove the portrait").click()
    expect(page.get_by_text("Portrait removed.")).to_be_visible()
    expect(page.locator(".sheet-header .avatar-badge")).to_be_visible()


def test_the_gm_gives_a_quick_npc_a_portrait_and_the_table_sees_it_in_the_order(
    new_page, make_campaign, gm, player, other_player, outsider
):
    campaign = make_campaign("triad", players=[player, other_player], name="Castle Night")
    encounter = crypt_fight(campaign, [player, other_player])
    table = logged_in_page(new_page, player, table_url(campaign))
    expect_live(table)
    in_order = table.locator("#encounter-panel [data-combatant=Ghoul]")
    expect(in_order.locator(".avatar-badge")).to_have_text("G")

    page = logged_in_page(new_page, gm, encounter.get_absolute_url())
    page.get_by_label("Portrait image for Ghoul").set_input_files(
        files=[{"name": "ghoul.png", "mimeType": "image/png", "buffer": ghoul_png()}]
    )
    page.get_by_role("button", name="Upload a portrait for Ghoul").click()
    expect(page.get_by_text("Portrait saved.")).to_be_visible()
    portrait = page.locator(".encounter-order [data-combatant=Ghoul]").get_by_role("img", name="Ghoul")
    expect(portrait).to_have_js_property("naturalWidth", 512)
    shoot(page, "npc-portrait", top=True)
    assert audit(page, encounter.get_absolute_url()) == []  # axe, ids, CSP: the controls as drawn now

    # The player's open table hears of it and draws it in the order, in place of the initial.
    seen = in_order.locator("img.avatar")
    expect(seen).to_have_js_property("naturalWidth", 512)
    expect(in_order.locator(".avatar-badge")).to_have_count(0)
    address = seen.get_attribute("src")
    outsiders = logged_in_page(new_page, outsider, "/dashboard/")
    assert outsiders.request.get(address).status == 404
    assert table.request.get(address).status == 200

    # A file that is no image: the page says why and the portrait stays.
    page.get_by_label("Portrait image for Ghoul").set_input_files(
        files=[{"name": "ghoul.png", "mimeType": "image/png", "buffer": b"not a picture at all"}]
    )
    page.get_by_role("button", name="Upload a portrait for Ghoul").click()
    refused = "Portrait not changed: That file is not an image this app can read"
    expect(page.get_by_text(refused)).to_be_visible()
    expect(portrait).to_have_attribute("src", address)

    # Removed by the GM: the initial again, at the table too.
    page.get_by_role("button", name="Remove Ghoul's portrait").click()
    expect(page.get_by_text("Portrait removed.")).to_be_visible()
    expect(page.locator(".encounter-order [data-combatant=Ghoul] .avatar-badge")).to_have_text("G")
    expect(in_order.locator(".avatar-badge")).to_have_text("G")


def test_the_feed_asks_only_for_the_portraits_there_are(new_page, make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player], name="Castle Night")
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    theirs = campaign.characters.get(owner=other_player)
    page = logged_in_page(new_page, player, mine.get_absolute_url())
    page.locator("#portrait-file").set_input_files(
        files=[{"name": "me.png", "mimeType": "image/png", "buffer": png()}]
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_text("Portrait saved.")).to_be_visible()
    for character in (theirs, mine, theirs, theirs):
        feed_entry_create(campaign=campaign, author=character.owner, character=character,
                          label=f"{character.name} looks around", result=A_LINE)

    asked = []
    watcher = logged_in_page(new_page, other_player, "/dashboard/")
    watcher.on("request", lambda request: asked.append(request.url) if "/portrait/" in request.url else None)
    watcher.goto(table_url(campaign))
    expect_live(watcher)
    # And one more line made live from the dice box, as the character with no portrait.
    watcher.locator("#id_character").select_option(label=theirs.name)
    watcher.locator("#id_notation").fill("1d6")
    watcher.locator("#dice-box").get_by_role("button", name="Roll").click()
    expect(watcher.locator("#feed .feed-entry").first).to_contain_text("1d6")
    expect(watcher.locator("#feed .feed-entry").first.locator(".avatar-badge")).to_have_text(theirs.name[0])
    expect(watcher.locator(".feed-entry", has_text=f"{theirs.name} looks around")).to_have_count(3)
    with_portrait = watcher.locator(".feed-entry", has_text=f"{mine.name} looks around").locator("img")
    expect(with_portrait).to_have_js_property("naturalWidth", 512)
    assert asked and all(f"/characters/{mine.pk}/portrait/?v=" in url for url in asked), asked


def page_count(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))


@pytest.mark.parametrize("system", [config.label for config in game_systems()])
def test_every_systems_sheet_prints_on_one_or_two_pages(
    new_page, make_campaign, player, other_player, system
):
    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    character = campaign.characters.get(owner=player)
    page = logged_in_page(new_page, player, character.get_absolute_url())

    # The button prints the page (the browser's dialog stubbed: headless has none to show).
    page.evaluate("window.print = () => { document.body.dataset.printed = 'yes'; }")
    page.get_by_role("button", name="Print").click()
    expect(page.locator("body")).to_have_attribute("data-printed", "yes")

    # Values the screen shows: the name, the sheet's own values and the roll buttons with their odds.
    values = [character.name]
    values += page.locator(".sheet-body .editable-value, main .editable-value").all_inner_texts()[:6]
    values += page.locator(".roll-button .roll-label").all_inner_texts()[:4]
    values = [value.strip() for value in values if value.strip()]
    assert len(values) >= 5, values

    page.emulate_media(media="print")
    page.set_viewport_size({"width": 794, "height": 1123})  # an A4 page's width, as page.pdf lays it out
    shoot(page, f"print-{system}")
    for hidden in ("nav", "button[data-print]", "#roll-options-panel", "#roll-result", ".portrait-edit"):
        for element in page.locator(hidden).all():
            expect(element).to_be_hidden()
    text = page.locator("body").inner_text()  # what is rendered: hidden parts have no text here
    for value in values:
        assert value in text, f"{value!r} is not on the printed sheet"
    colours = page.evaluate(
        "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
    )
    assert colours == ["rgb(255, 255, 255)", "rgb(0, 0, 0)"]

    pdf = page.pdf(format="A4", print_background=False)
    assert pdf.startswith(b"%PDF")
    assert 1 <= page_count(pdf) <= 2, f"{page_count(pdf)} pages"
