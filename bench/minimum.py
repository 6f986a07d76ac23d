"""Bench only: the floor's protocol work done through Django's whole stack and nothing of the app's.

``install()`` adds ``bench/minimum/<campaign id>/`` to the project's URLs (before the first request):
a view behind every middleware (the session and its user read, CSRF checked, the security and CSP
headers) that draws once from ``secrets``, broadcasts the sample entry to the table the way a roll's
entry is broadcast (collected after the commit, sent from the event loop) and answers with a body of
the dice-box answer's size. bench/table.py times it beside the floor; bench/profile_roll.py profiles
it. What it costs is what the framework costs before the app does anything.
"""

import json
import os
import secrets

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST

SAMPLE_HTML = os.environ.get("SAMPLE_HTML", "x" * 1400)
ANSWER = b"x" * int(os.environ.get("RESPONSE_SIZE", "3200"))
_seqs: dict[int, int] = {}


@require_POST
@login_required
def minimum_roll(request, campaign_id):
    from campaigns import realtime

    seq = _seqs[campaign_id] = _seqs.get(campaign_id, 0) + 1
    face = secrets.randbelow(20) + 1
    frame = json.dumps({"type": "entry", "seq": seq, "face": face, "html": SAMPLE_HTML})
    event = {
        "type": "feed.entry",
        "seq": seq,
        "visibility": "public",
        "author_id": 0,
        "character_id": None,
        "frames": {"full": frame},
    }
    realtime._send_on_commit(campaign_id, lambda: event)
    return HttpResponse(ANSWER)


def install() -> None:
    import config.urls

    config.urls.urlpatterns.append(path("bench/minimum/<int:campaign_id>/", minimum_roll))
