"""The encounter page's live refresh is one request: the controls, with the action log out of band.

Every click at the table makes each GM page showing the encounter refresh it; two panels fetched apart
cost two renders of the same context (docs/performance.md, the full table's requests per click)."""

import re

from .test_encounter_fivebyfive import fight, start_with_mara_first  # noqa: F401 - the fixture

LIVE_PANEL = re.compile(r'data-live-panel="encounter"')


def test_the_page_has_one_encounter_panel_to_refresh_and_the_log_is_not_one(fight, gm, client_for):  # noqa: F811
    encounter, *_ = fight
    page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert len(LIVE_PANEL.findall(page)) == 1
    assert 'id="encounter-controls" data-live-panel="encounter"' in page
    log = page[page.index('id="encounter-log"') - 60 :]
    assert "data-live-panel" not in log.split(">", 1)[0] and "hx-swap-oob" not in log.split(">", 1)[0]


def test_the_refresh_answers_the_controls_and_the_log_out_of_band(fight, gm, client_for):  # noqa: F811
    encounter, *_ = fight
    start_with_mara_first(encounter, gm)
    body = client_for(gm).get(encounter.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    assert body.lstrip().startswith('<div class="row g-4 mt-1" id="encounter-controls"')
    assert 'id="encounter-log" hx-swap-oob="true"' in body
    # The log carries what the start wrote (the initiative line), not an empty shell.
    log = body[body.index('id="encounter-log"') :]
    assert "Nothing rolled yet" not in log and 'class="feed-entry' in log
    assert "<html" not in body and "<body" not in body
