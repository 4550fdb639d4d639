"""How every corpus download is labelled: a safe file name, and never stored by shared caches."""

import re

from .responses import private


def as_download(response, stem: str, extension: str):
    """Mark `response` as an attachment named after `stem` (unsafe characters replaced) that no proxy
    may cache: a steward's download can hold secret entries."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "download"
    response["Content-Disposition"] = f'attachment; filename="{name}.{extension}"'
    return private(response)
