"""A character's portrait: an uploaded image checked, re-encoded, kept under MEDIA_ROOT, seen at its table.

An upload is trusted for nothing: its size is checked before it is decoded, Pillow must recognise it as one
of the formats below, its pixel count is checked from the header before any pixel is decoded (a small file
can claim a huge image: a decompression bomb), and only its pixels survive. They are pasted into a fresh
image, shrunk to at most ``MAX_SIDE`` and written as a new WebP, so EXIF (a phone's GPS position), comments,
colour profiles and anything hidden in the file are left behind. The stored name is random; the uploader's
file name is never used. The files are served by :func:`portrait` to those who may see the sheet
(``selectors.character_for_viewer``), never as public static files.

Changing it is the write policy's ``OWN`` kind, like the name: the player and the GM.

A quick NPC in an encounter (``play.models.Combatant`` without a character) has a portrait too; play's views
(``play/portraits.py``) take, keep, swap and serve it with the helpers here (:func:`upload_to`,
:func:`remove_from`, :func:`image_response`, :func:`discard`), so every portrait is checked the same way.
"""

from __future__ import annotations

import io
import secrets
import warnings
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.http import FileResponse, Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_http_methods, require_POST
from PIL import Image, ImageOps, UnidentifiedImageError

from campaigns import realtime

from . import policy, selectors
from .models import Character

MAX_BYTES = 2 * 1024 * 1024
MAX_SIDE = 512
# A 24-megapixel photo: under 100 MB decoded even as a PNG with alpha (a JPEG decodes at 1/8 scale).
MAX_PIXELS = 24_000_000
FORMATS = {"PNG", "JPEG", "WEBP", "GIF"}
# Image.open checks a file's claimed size from its header before decoding: past this it warns (turned into
# an error below), past twice this it refuses on its own (DecompressionBombError).
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

LABEL = "The portrait"


class PortraitError(ValueError):
    """An upload refused, with the sentence the page shows."""


def folder() -> Path:
    return Path(settings.MEDIA_ROOT) / "portraits"


def clean_image(upload) -> bytes:
    """The upload's pixels as a fresh WebP no larger than MAX_SIDE, or PortraitError saying why not."""
    if upload.size > MAX_BYTES:
        megabytes = upload.size / 1024 / 1024
        raise PortraitError(f"That file is {megabytes:.1f} MB: a portrait may be at most 2 MB.")
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:  # the size claimed was not the size sent
        raise PortraitError("That file is over 2 MB: a portrait may be at most 2 MB.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                if image.format not in FORMATS:
                    raise PortraitError("A portrait must be a PNG, JPEG, WebP or GIF image.")
                image.seek(0)  # a GIF's first frame
                image.draft("RGB", (MAX_SIDE, MAX_SIDE))  # a JPEG decodes straight at a smaller scale
                image = ImageOps.exif_transpose(image)  # keep the way up the camera recorded, then drop EXIF
                image.thumbnail((MAX_SIDE, MAX_SIDE))
                has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
                pixels = image.convert("RGBA" if has_alpha else "RGB")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as bomb:
        raise PortraitError("That image claims too many pixels to open safely.") from bomb
    except PortraitError:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as error:
        unreadable = "That file is not an image this app can read (PNG, JPEG, WebP or GIF)."
        raise PortraitError(unreadable) from error
    fresh = Image.new(pixels.mode, pixels.size)
    fresh.paste(pixels)
    out = io.BytesIO()
    fresh.save(out, "WEBP", quality=85, method=4)
    return out.getvalue()


def store(data: bytes) -> str:
    """Keep ``data`` (from :func:`clean_image`) under a new random name, which it returns."""
    name = f"{secrets.token_hex(16)}.webp"
    folder().mkdir(parents=True, exist_ok=True)
    temporary = folder() / f".{name}.part"
    temporary.write_bytes(data)
    temporary.replace(folder() / name)
    return name


def discard(name: str) -> None:
    if name:
        (folder() / name).unlink(missing_ok=True)


def swap(row, name: str, *, also: Callable[[], None]) -> None:
    """Point ``row`` (a model with a ``portrait`` column) at the stored ``name`` ("" for none) in one
    transaction with ``also`` (who hears of it). The file it pointed at goes once that is committed, and
    ``name`` if it is not; the old name is read under the row's lock, so two uploads at once leave no file."""
    rows = type(row).objects.filter(pk=row.pk)
    try:
        with transaction.atomic():
            old = rows.select_for_update().values_list("portrait", flat=True).first()
            if old is None:
                raise Http404("It is gone.")
            rows.update(portrait=name)
            also()
            transaction.on_commit(lambda: discard(old))
    except BaseException:
        discard(name)
        raise
    row.portrait = name


def image_response(name: str) -> FileResponse:
    """The stored portrait ``name``, for a view that has checked who may see it; 404 when there is none."""
    path = folder() / name if name else None
    if path is None or not path.is_file():
        raise Http404("No portrait.")
    response = FileResponse(path.open("rb"), content_type="image/webp")
    response["Content-Disposition"] = "inline"
    return response


def upload_to(request, row, *, also: Callable[[], None], back):
    """The form's upload checked, re-encoded and made ``row``'s portrait (:func:`swap`), then back to
    ``back`` (a model or a URL) with a message saying what happened. A refused file changes nothing."""
    upload = request.FILES.get("portrait")
    if upload is None:
        messages.error(request, "Choose an image file to upload as the portrait.")
        return redirect(back)
    try:
        data = clean_image(upload)
    except PortraitError as refused:
        messages.error(request, f"Portrait not changed: {refused}")
        return redirect(back)
    swap(row, store(data), also=also)
    messages.success(request, "Portrait saved.")
    return redirect(back)


def remove_from(request, row, *, also: Callable[[], None], back):
    """``row`` left with no portrait (its file goes once that is committed), then back to ``back``."""
    if row.portrait:
        swap(row, "", also=also)
        messages.success(request, "Portrait removed.")
    return redirect(back)


def feed_portrait() -> Subquery:
    """The query side of ``Character.table_portrait``, for a feed entry's plain ``character_id``: a subquery
    in the feed's own query (``campaigns.hooks.register_feed_portrait``), so no query per entry."""
    shared = Character.objects.filter(pk=OuterRef("character_id"), is_npc=False)
    return Subquery(shared.values("portrait")[:1])


def _sheet_changed(character: Character) -> Callable[[], None]:
    # Open pages of the sheet fetch it again; no value travels (history.recorded does the same).
    return lambda: realtime.sheet_changed(
        campaign_id=character.campaign_id, character_id=character.pk, gm_only=character.is_npc
    )


def _editable(request, character_id: int) -> Character:
    character = selectors.character_for_editor(request.user, character_id)
    verdict = policy.may_change(request.user, character, policy.Kind.OWN, LABEL)
    if not verdict:
        raise PermissionDenied(verdict.reason)
    return character


@require_http_methods(["GET", "HEAD", "POST"])
def portrait(request, character_id: int):
    """GET: the image, to whoever sits at the table (404 to anyone else, and when there is none).
    POST: a new one from the sheet's form."""
    if request.method == "POST":
        character = _editable(request, character_id)
        return upload_to(request, character, also=_sheet_changed(character), back=character)
    return image_response(selectors.character_for_viewer(request.user, character_id).portrait)


@require_POST
def portrait_remove(request, character_id: int):
    character = _editable(request, character_id)
    return remove_from(request, character, also=_sheet_changed(character), back=character)
