"""Local Contexts Traditional Knowledge (TK) and Biocultural (BC) labels and notices (docs/labels.md): the label
types the site knows, the plain-text rule of a community's label text, and the reading of a Local Contexts Hub
project (its API v2 project JSON, from an exported file or from the Hub when an API key is configured).

The label names are Local Contexts' own and are not translated here: what a reader sees is the community's own
name and text, or a translation the community wrote (never a machine translation)."""

import json
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.errors import ApplicationError, ErrorKind


class LabelCategory:
    TK = "tk"
    BC = "bc"
    NOTICE = "notice"


@dataclass(frozen=True)
class LabelType:
    """One kind of label or notice: `code` is what the site stores (`tk_secret_sacred`), `hub_type` the Hub's
    `label_type` (or `notice_type`), `restrictive` whether the site marks it restrictive unless the community
    says otherwise."""

    code: str
    category: str
    hub_type: str
    name: str
    restrictive: bool = False


def _types(category: str, prefix: str, rows: list[tuple[str, str, bool]]) -> list[LabelType]:
    return [LabelType(f"{prefix}_{hub_type}", category, hub_type, name, restrictive)
            for hub_type, name, restrictive in rows]


LABEL_TYPES: dict[str, LabelType] = {kind.code: kind for kind in [
    *_types(LabelCategory.TK, "tk", [
        ("attribution", "TK Attribution", False),
        ("clan", "TK Clan", False),
        ("family", "TK Family", False),
        ("outreach", "TK Outreach", False),
        ("non_verified", "TK Non-Verified", False),
        ("verified", "TK Verified", False),
        ("non_commercial", "TK Non-Commercial", False),
        ("commercial", "TK Commercial", False),
        ("culturally_sensitive", "TK Culturally Sensitive", False),
        ("community_voice", "TK Community Voice", False),
        ("community_use_only", "TK Community Use Only", True),
        ("seasonal", "TK Seasonal", False),
        ("women_general", "TK Women General", False),
        ("men_general", "TK Men General", False),
        ("men_restricted", "TK Men Restricted", True),
        ("women_restricted", "TK Women Restricted", True),
        ("secret_sacred", "TK Secret / Sacred", True),
        ("open_to_collaboration", "TK Open to Collaboration", False),
        ("creative", "TK Creative", False),
        ("multiple_communities", "TK Multiple Communities", False),
    ]),
    *_types(LabelCategory.BC, "bc", [
        ("provenance", "BC Provenance", False),
        ("multiple_communities", "BC Multiple Communities", False),
        ("clan", "BC Clan", False),
        ("consent_verified", "BC Consent Verified", False),
        ("consent_non_verified", "BC Consent Non-Verified", False),
        ("research", "BC Research Use", False),
        ("outreach", "BC Outreach", False),
        ("non_commercial", "BC Non-Commercial", False),
        ("open_to_collaboration", "BC Open to Collaboration", False),
    ]),
    *_types(LabelCategory.NOTICE, "notice", [
        ("attribution_incomplete", "Attribution Incomplete Notice", False),
        ("open_to_collaborate", "Open to Collaboration Notice", False),
        ("biocultural", "BC Notice", False),
        ("traditional_knowledge", "TK Notice", False),
    ]),
]}

# The Hub's list of each category in a project, and the key naming a member's type there.
HUB_LISTS = (("tk_labels", LabelCategory.TK, "label_type"), ("bc_labels", LabelCategory.BC, "label_type"),
             ("notice", LabelCategory.NOTICE, "notice_type"))

NAME_MAX_LENGTH = 200
TEXT_MAX_LENGTH = 10_000
LANGUAGE_MAX_LENGTH = 35
HUB_FILE_MAX_BYTES = 2 * 1024 * 1024
# Markup: an opening or closing tag, a comment or a declaration.
MARKUP = re.compile(r"<\s*[/!?]?\s*[A-Za-z!]")


class LabelError(ApplicationError):
    """A refused label, translation or Hub project, naming the field (or the JSON path) at fault."""


def label_type(code: str) -> LabelType:
    """The type named `code`, or a refusal naming it and the known ones."""
    found = LABEL_TYPES.get(code)
    if found is None:
        raise LabelError(_("Unknown label type “%(type)s”; expected one of: %(known)s.") % {
            "type": code, "known": ", ".join(LABEL_TYPES)}, "label_type")
    return found


def plain_text(value: Any, field: str, *, label: str, limit: int, required: bool = True) -> str:
    """`value` as the plain text of a label: stripped, within `limit`, and without markup, which is refused rather
    than removed: pages show a community's text exactly as written, escaped, so a tag would show as a tag."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise LabelError(_("%(label)s must be text.") % {"label": label}, field)
    value = value.strip()
    if required and not value:
        raise LabelError(_("%(label)s is empty; write it as the community wrote it.") % {"label": label}, field)
    if len(value) > limit:
        raise LabelError(ngettext("%(label)s has %(count)s character; at most %(limit)s are kept.",
                                  "%(label)s has %(count)s characters; at most %(limit)s are kept.", len(value)) % {
            "label": label, "count": len(value), "limit": limit}, field)
    if "\x00" in value:
        raise LabelError(_("%(label)s holds a NUL character, which cannot be stored.") % {"label": label}, field)
    tag = MARKUP.search(value)
    if tag is not None:
        shown = value[tag.start():value.find(">", tag.start()) + 1 or tag.end() + 10]
        raise LabelError(_(
            "%(label)s holds markup (%(tag)s): label text is plain text, shown exactly as written, so tags would be "
            "shown as they are. Write it without HTML or XML tags.") % {"label": label, "tag": shown[:40]}, field)
    return value


@dataclass
class HubTranslation:
    language: str
    language_name: str
    name: str
    text: str


@dataclass
class HubLabel:
    label_type: str
    hub_id: str
    name: str
    text: str
    language: str
    language_name: str
    community: str
    path: str = ""
    translations: list[HubTranslation] = field(default_factory=list)


@dataclass
class HubProject:
    unique_id: str
    title: str
    project_page: str
    labels: list[HubLabel]


def _member(data: dict, key: str, path: str, *, required: bool = True, kind: type = str) -> Any:
    value = data.get(key)
    if value is None and not required:
        return kind()
    if not isinstance(value, kind):
        expected = _("text") if kind is str else _("a list") if kind is list else _("an object")
        found = _("nothing") if value is None else type(value).__name__
        where = f"{path}.{key}" if path else key
        raise LabelError(_("%(path)s: expected %(expected)s, found %(found)s.") % {
            "path": where, "expected": expected, "found": found}, where)
    return value


def _text(data: dict, keys: tuple[str, ...], path: str, limit: int, *, required: bool = True) -> str:
    """The first of `keys` present in `data` (the Hub writes `label_text`, older exports `default_text`), as plain
    text, a refusal naming the JSON path."""
    key = next((key for key in keys if data.get(key) is not None), keys[0])
    where = f"{path}.{key}" if path else key
    try:
        return plain_text(data.get(key), where, label=where, limit=limit, required=required)
    except LabelError as error:
        raise LabelError(error.message, where) from None


def _label(data: Any, category: str, type_key: str, path: str) -> HubLabel:
    if not isinstance(data, dict):
        raise LabelError(_("%(path)s: expected an object, found %(found)s.") % {
            "path": path, "found": type(data).__name__}, path)
    hub_type = _member(data, type_key, path)
    code = f"{category}_{hub_type}"
    if code not in LABEL_TYPES:
        known = ", ".join(kind.hub_type for kind in LABEL_TYPES.values() if kind.category == category)
        raise LabelError(_("%(path)s: unknown label type “%(type)s”; expected one of: %(known)s.") % {
            "path": f"{path}.{type_key}", "type": hub_type, "known": known}, f"{path}.{type_key}")
    community = data.get("community")
    community_name = community.get("name") if isinstance(community, dict) else None
    translations = []
    for index, item in enumerate(_member(data, "translations", path, required=False, kind=list)):
        where = f"{path}.translations[{index}]"
        if not isinstance(item, dict):
            raise LabelError(_("%(path)s: expected an object, found %(found)s.") % {
                "path": where, "found": type(item).__name__}, where)
        translations.append(HubTranslation(
            language=_text(item, ("language_tag",), where, LANGUAGE_MAX_LENGTH),
            language_name=_text(item, ("language",), where, 100, required=False),
            name=_text(item, ("translated_name",), where, NAME_MAX_LENGTH, required=False),
            text=_text(item, ("translated_text",), where, TEXT_MAX_LENGTH)))
    return HubLabel(
        label_type=code,
        hub_id=_text(data, ("unique_id",), path, 100, required=False),
        name=_text(data, ("name",), path, NAME_MAX_LENGTH, required=False) or LABEL_TYPES[code].name,
        text=_text(data, ("label_text", "default_text"), path, TEXT_MAX_LENGTH),
        language=_text(data, ("language_tag",), path, LANGUAGE_MAX_LENGTH, required=False),
        language_name=_text(data, ("language",), path, 100, required=False),
        community=plain_text(community_name, f"{path}.community.name", label=f"{path}.community.name", limit=300,
                             required=False),
        path=path, translations=translations)


def read_hub_project(data: bytes) -> HubProject:
    """A Local Contexts Hub project (API v2 `GET /projects/<unique_id>/`, or that answer saved to a file; the
    answer wrapped in `{"data": [project]}` too) with its TK labels, BC labels and notices. Every refusal names the
    JSON path at fault (`tk_labels[2].label_type`); nothing is read from the network."""
    if len(data) > HUB_FILE_MAX_BYTES:
        raise LabelError(_("The Hub project file has %(size)s bytes; at most %(limit)s are read.") % {
            "size": len(data), "limit": HUB_FILE_MAX_BYTES}, "file", kind=ErrorKind.TOO_LARGE)
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise LabelError(_("The Hub project file is not UTF-8 text."), "file") from None
    except json.JSONDecodeError as error:
        raise LabelError(_("The Hub project file is not JSON: %(problem)s at line %(line)s, column %(column)s.") % {
            "problem": error.msg, "line": error.lineno, "column": error.colno}, "file") from None
    if isinstance(document, dict) and isinstance(document.get("data"), list) and "unique_id" not in document:
        if len(document["data"]) != 1:
            raise LabelError(ngettext("data: expected exactly one project, found %(count)s.",
                                      "data: expected exactly one project, found %(count)s.",
                                      len(document["data"])) % {"count": len(document["data"])}, "data")
        document = document["data"][0]
        root = "data[0]"
    else:
        root = ""
    if not isinstance(document, dict):
        raise LabelError(_("%(path)s: expected a Local Contexts Hub project object, found %(found)s.") % {
            "path": root or "(root)", "found": type(document).__name__}, root or "file")

    def at(key: str) -> str:
        return f"{root}.{key}" if root else key

    unique_id = _text(document, ("unique_id",), root, 100)
    labels: list[HubLabel] = []
    for key, category, type_key in HUB_LISTS:
        value = document.get(key)
        if value is None:
            continue
        if isinstance(value, dict) and category == LabelCategory.NOTICE:  # a project's notice may be one object
            value = [value]
        if not isinstance(value, list):
            raise LabelError(_("%(path)s: expected a list, found %(found)s.") % {
                "path": at(key), "found": type(value).__name__}, at(key))
        labels += [_label(item, category, type_key, f"{at(key)}[{index}]") for index, item in enumerate(value)]
    first_of: dict[str, str] = {}
    for label in labels:
        if label.label_type in first_of:
            raise LabelError(_("%(path)s: the project lists %(type)s again (first at %(first)s); a dataset holds one "
                               "label of each type.") % {"path": label.path, "type": LABEL_TYPES[label.label_type].name,
                                                         "first": first_of[label.label_type]}, label.path)
        first_of[label.label_type] = label.path
    return HubProject(
        unique_id=unique_id,
        title=_text(document, ("title",), root, 300, required=False),
        project_page=_text(document, ("project_page",), root, 500, required=False),
        labels=labels)


class HubUnavailable(ApplicationError):
    """The Hub could not be read (no key, network, HTTP error): the cached labels stay as they are."""

    default_kind = ErrorKind.CONFLICT


def hub_configured() -> bool:
    return bool(getattr(settings, "LOCAL_CONTEXTS_API_KEY", ""))


def fetch_hub_project(unique_id: str) -> bytes:
    """The project's JSON from the Hub API v2, read with the configured API key (the one network call of labels)."""
    if not hub_configured():
        raise HubUnavailable(_("No Local Contexts Hub API key is configured."), "project")
    url = settings.LOCAL_CONTEXTS_API_URL.rstrip("/") + "/projects/" + urllib.parse.quote(unique_id, safe="") + "/"
    request = urllib.request.Request(url, headers={"X-Api-Key": settings.LOCAL_CONTEXTS_API_KEY,
                                                   "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:  # noqa: S310 (the configured https URL)
            return response.read(HUB_FILE_MAX_BYTES + 1)
    except OSError as error:
        raise HubUnavailable(_("The Local Contexts Hub could not be read: %(problem)s") % {"problem": error},
                             "project") from error
