"""A character's portrait: an uploaded image checked, re-encoded, kept under MEDIA_ROOT, seen at its table.

An upload is trusted for nothing: its size is checked before it is decoded, Pillow must recognise it as one
of the formats below, its pixel count is checked from the header before any pixel is decoded (a small file
can claim a huge image: a decompression bomb), and only its pixels survive. They are pasted into a fresh
image, shrunk to at most ``MAX_SIDE`` and written as a new WebP, so EXIF (a phone's GPS position), comments,
colour profiles and anything hidden in the file are left behind. The stored name is random; the uploader's
file name is never used. The files are served by :func:`portrait` to those who may see the sheet
(``selectors.character_for_viewer``), never as public static files.

Changing it is the write policy's ``OWN`` kind, like the name: the player and the GM.
"""

from __future__ import annotations

import io
import secrets
import warnings
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
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


def _store(data: bytes) -> str:
    name = f"{secrets.token_hex(16)}.webp"
    folder().mkdir(parents=True, exist_ok=True)
    temporary = folder() / f".{name}.part"
    temporary.write_bytes(data)
    temporary.replace(folder() / name)
    return name


def _discard(name: str) -> None:
    if name:
        (folder() / name).unlink(missing_ok=True)


def _set(character: Character, name: str) -> None:
    """Point the character at ``name`` (or none); the old file goes once that is committed."""
    old = character.portrait
    with transaction.atomic():
        Character.objects.filter(pk=character.pk).update(portrait=name)
        # Open pages of the sheet fetch it again; no value travels (history.recorded does the same).
        realtime.sheet_changed(
            campaign_id=character.campaign_id, character_id=character.pk, gm_only=character.is_npc
        )
        transaction.on_commit(lambda: _discard(old))


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
        return _upload(request, character_id)
    character = selectors.character_for_viewer(request.user, character_id)
    path = folder() / character.portrait if character.portrait else None
    if path is None or not path.is_file():
        raise Http404("No portrait.")
    response = FileResponse(path.open("rb"), content_type="image/webp")
    response["Content-Disposition"] = "inline"
    return response


def _upload(request, character_id: int):
    character = _editable(request, character_id)
    upload = request.FILES.get("portrait")
    if upload is None:
        messages.error(request, "Choose an image file to upload as the portrait.")
        return redirect(character)
    try:
        data = clean_image(upload)
    except PortraitError as refused:
        messages.error(request, f"Portrait not changed: {refused}")
        return redirect(character)
    name = _store(data)
    try:
        _set(character, name)
    except BaseException:
        _discard(name)
        raise
    messages.success(request, "Portrait saved.")
    return redirect(character)


@require_POST
def portrait_remove(request, character_id: int):
    character = _editable(request, character_id)
    if character.portrait:
        _set(character, "")
        messages.success(request, "Portrait removed.")
    return redirect(character)
