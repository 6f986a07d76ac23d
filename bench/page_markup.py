"""Reading a page's HTML as static/js/table.js reads it, for bench/open_page.py's pages: its live panels, an
element by id, a form's values, and what a fragment shows once per-render tokens are set aside. The
refresh debounce and the parts of a sheet a merge keeps are read from table.js itself, so the bench
follows the page's script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from servers import ROOT

TABLE_JS = ROOT / "static" / "js" / "table.js"


def _table_js(pattern: str, default):
    found = re.search(pattern, TABLE_JS.read_text(), re.S)
    return found.group(1) if found else default


# The page's own debounce for a panel's refresh, and the parts of a sheet a merge never replaces.
DEBOUNCE = int(_table_js(r"var REFRESH_GATHER_MS = (\d+);", 250)) / 1000
KEEP = re.findall(r'"([\w-]+)"', _table_js(r"var KEEP = \[(.*?)\];", '"sheet-version"'))

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_LIVE = re.compile(r"<(\w+)\b[^>]*\bdata-live-panel=\"([^\"]+)\"[^>]*>")
_TOKENS = re.compile(
    r'(<input\b[^>]*\bname="(?:csrfmiddlewaretoken|idempotency_key|key)"[^>]*?\bvalue=")[^"]*(")'
)
_OOB = re.compile(r'\s+hx-swap-oob="[^"]*"')


def attr(tag: str, name: str) -> str | None:
    found = re.search(rf'\b{name}(?:="([^"]*)")?(?=[\s>/])', tag)
    return None if found is None else (found.group(1) or "")


def element_at(html: str, start: int) -> str:
    """The element whose start tag begins at ``start``, to its matching end tag (same-name nesting)."""
    opening = re.match(r"<(\w+)\b[^>]*>", html[start:])
    name = opening.group(1)
    if name.lower() in VOID:
        return opening.group(0)  # an input, an img: no end tag
    depth, tags = 0, re.compile(rf"<(/?){name}\b[^>]*>", re.I)
    for match in tags.finditer(html, start):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return html[start : match.end()]
    return html[start:]


def element_by_id(html: str, element_id: str) -> str | None:
    found = re.search(rf'<\w+\b[^>]*\bid="{re.escape(element_id)}"', html)
    return None if found is None else element_at(html, found.start())


def value_by_id(html: str, element_id: str) -> str | None:
    """The value of the element with this id (a hidden input), None where the page has no such element."""
    found = element_by_id(html, element_id)
    return None if found is None else attr(found, "value")


def shown(fragment: str, *, merged: bool = False) -> str:
    """What a fragment shows, for comparing two renders: tokens and OOB markers out; for a merged
    sheet, the parts table.js keeps as they were (their ids only)."""
    text = _OOB.sub("", _TOKENS.sub(r"\1\2", fragment))
    if merged:
        for element_id in KEEP:
            part = element_by_id(text, element_id)
            if part:
                text = text.replace(part, f"<kept {element_id}>")
    return text


def shows_entries(fragment: str, cursors: list[str]) -> bool:
    """Whether the fragment holds a line for each of these entries (``data-entry``: table.js showsEntries)."""
    return all(f'data-entry="{cursor}"' in fragment for cursor in cursors)


def inner(fragment: str) -> str:
    """An element's content, without its own start and end tags."""
    return fragment[fragment.find(">") + 1 : fragment.rfind("<")].strip()


@dataclass
class Panel:
    name: str
    url: str
    merge: bool
    html: str
    element_id: str | None
    shows: str = ""  # data-shows: the digest of what it shows, where the page has one
    merge_started: float = -1.0  # a merged panel: when its newest fetch started (table.js mergeStartedAt)


def live_panels(html: str) -> list[Panel]:
    panels = []
    for match in _LIVE.finditer(html):
        tag = match.group(0)
        url = attr(tag, "data-refresh-url")
        if url is None:
            continue
        panels.append(
            Panel(
                name=match.group(2).replace("&quot;", '"'),
                url=url.replace("&amp;", "&"),
                merge=attr(tag, "data-live-merge") is not None,
                html=element_at(html, match.start()),
                element_id=attr(tag, "id"),
                shows=attr(tag, "data-shows") or "",
            )
        )
    return panels


def form_fields(form_html: str) -> dict:
    """The values a form sends as it stands (inputs, checked boxes, each select's chosen option)."""
    fields = {}
    for tag in re.findall(r"<input\b[^>]*>", form_html):
        name = attr(tag, "name")
        kind = attr(tag, "type") or "text"
        if (
            not name
            or kind in ("submit", "button")
            or (kind in ("checkbox", "radio") and attr(tag, "checked") is None)
        ):
            continue
        fields.setdefault(name, attr(tag, "value") or ("on" if kind == "checkbox" else ""))
    for select in re.finditer(r"<select\b[^>]*>(.*?)</select>", form_html, re.S):
        name = attr(select.group(0).split(">", 1)[0] + ">", "name")
        options = re.findall(r"<option\b[^>]*>", select.group(1))
        chosen = next(
            (o for o in options if attr(o, "selected") is not None), options[0] if options else None
        )
        if name and chosen is not None:
            fields[name] = attr(chosen, "value") or ""
    return fields
