"""After a Five by Five roll the server itself tells the page what became of the doubles token
(out-of-band swaps decided from the saved sheet), so no script reads the result's text."""

import re

from django.urls import reverse

from sheets.systems.fivebyfive.models import FiveByFiveSheet

from .conftest import HTMX

TOKEN_OOB = re.compile(r'<div id="fbf-token" hx-swap-oob="innerHTML">(.*?)</div>', re.S)
SPEND_OOB = re.compile(
    r'<input type="checkbox" name="spend_token"[^>]*id="id_spend_token"[^>]*hx-swap-oob="true">'
)


def roll(client, character, **options):
    key = f"descriptor:{character.descriptors.get(name='Amateur Chef').pk}"
    data = {"shift": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def test_doubles_send_the_held_token(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fixed_dice(3, 3)
    body = roll(client_for(player), character).content.decode()
    token = TOKEN_OOB.search(body)
    # Shown, not offered for typing: the token is the dice's to give and take (only the GM edits it).
    assert token and "<bdi>held</bdi>" in token.group(1) and "Edit Doubles token" not in token.group(1)
    # Holding a token, the spend option is the player's to keep as it is.
    assert not SPEND_OOB.search(body)


def test_spending_the_token_sends_none_and_unticks_spend(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    FiveByFiveSheet.objects.filter(character=character).update(doubles_token=True)
    fixed_dice(5, 2)
    body = roll(client_for(player), character, spend_token="on").content.decode()
    token = TOKEN_OOB.search(body)
    assert token and "<bdi>none</bdi>" in token.group(1)
    spend = SPEND_OOB.search(body)
    assert spend and "checked" not in spend.group(0)


def test_a_refused_spend_leaves_the_option_for_the_player(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fixed_dice(5, 2)
    response = roll(client_for(player), character, spend_token="on")
    body = response.content.decode()
    # The message asks the player to untick it: the page must not do it behind their back.
    assert response.status_code == 422 and "untick the option" in body
    assert not SPEND_OOB.search(body) and not TOKEN_OOB.search(body)


def test_editing_the_token_away_unticks_spend(demo_character, gm, client_for):
    character = demo_character("fivebyfive")
    FiveByFiveSheet.objects.filter(character=character).update(doubles_token=True)
    character.refresh_from_db()
    # The token comes and goes with the dice; by hand, only the GM takes it away.
    response = client_for(gm).post(
        reverse("sheet_field", args=[character.pk, "doubles_token"]),
        {"value": "", "version": character.version, "spend_token": "on", "shift": 0},
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200 and SPEND_OOB.search(body)
    # The edited field is the request's own target: it is not swapped a second time out of band.
    assert not TOKEN_OOB.search(body)
    assert not FiveByFiveSheet.objects.get(character=character).doubles_token
