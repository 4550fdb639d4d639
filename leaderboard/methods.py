"""Method cards and dependency manifests (`method.json`) of the shared method interface (MI).

The dependency class (S < O < A1 < A2 < X) decides whether a method can run in the default-deny
sandbox and whether it may win a prize and be transferred to a language community, so the site
derives it from the manifest itself instead of trusting the declared value (MI: "a declared
class that differs from the derived one is a validation error"). Pure functions: of Django they use
only translation, so that every problem (a `FieldProblem` with a JSON path, all of them reported at
once) is written in the language of the request being served, as a package's problems are
(submissions.packages). Each message is a whole sentence with named placeholders; a value from the
input in it is JSON-quoted and cut to MAX_ECHO characters. See docs/methods.md for the rules and the messages.
"""

import json
import re
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from common.problems import FieldProblem
from common.text import refusal_of_hidden_or_directional

METHOD_CLASSES = ("raw-llm", "coached-llm", "pipeline", "custom-plugin", "api", "human")
# Ordered from least to most restrictive: a method's class is the maximum over its dependencies.
DEPENDENCY_CLASSES = ("S", "O", "A1", "A2", "X")
DEPENDENCY_KINDS = ("data", "model", "software", "service")
DEPENDENCY_ACCESSES = ("bundled", "mirrored", "gateway", "external-api")

NO_LICENCE = "none"  # MI: no public licence, treated as all rights reserved.
# Open licences, permissive and copyleft (MI: "open licence allowing redistribution, copyleft
# included"), by SPDX id, compared case-insensitively as SPDX prescribes. Only consulted when a
# dependency does not declare `redistributable` / `transferable` itself. NonCommercial and
# NoDerivatives licences, deprecated ids and compound expressions are deliberately absent: they
# count as "not known to allow", so the dependency must declare the booleans.
OPEN_LICENCES = frozenset(licence.lower() for licence in (
    # permissive
    "0BSD", "MIT", "MIT-0", "ISC", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "Zlib", "BSL-1.0",
    "Unlicense", "CC0-1.0", "CC-BY-3.0", "CC-BY-4.0", "PDDL-1.0", "ODC-By-1.0", "Python-2.0", "OFL-1.1",
    # copyleft
    "MPL-2.0", "EPL-2.0", "EUPL-1.2", "LGPL-2.1-only", "LGPL-2.1-or-later", "LGPL-3.0-only",
    "LGPL-3.0-or-later", "GPL-2.0-only", "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later",
    "AGPL-3.0-only", "AGPL-3.0-or-later", "CC-BY-SA-3.0", "CC-BY-SA-4.0", "ODbL-1.0",
))

# The harness's own rule for a method id (mt_eval_harness.config.validate_method_card).
METHOD_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# The engines built into the upstream harness (mt_eval_harness.methods.registry, 0.4.0): their method ids and their
# registry names. Everyone runs and publishes them; nobody owns them (docs/methods.md, "Who may publish a method").
BUILT_IN_METHOD_IDS = frozenset((
    "lexicon", "local-model", "apertium", "libretranslate", "google-translate-v2", "google-translate", "deepl-v2",
    "deepl", "microsoft-translator-v3", "microsoft-translator", "amazon-translate-v1", "amazon-translate", "tilde-mt",
    "tilde", "translated-lara", "translated",
))
MAX_ECHO = 60  # never repeat more than this many characters of a submitted string


def _clip(text: str) -> str:
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + "…"


def _quote(text: str) -> str:
    return json.dumps(_clip(text), ensure_ascii=False)


def _found(value: Any) -> str:
    """What was submitted, described briefly enough to put in a message, in the reader's language (JSON's literals
    and a type's name stay as they are written)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _("the string %(text)s") % {"text": _quote(value)}
    if isinstance(value, (int, float)):
        return _("the number %(number)s") % {"number": _clip(repr(value))}
    if isinstance(value, dict):
        return _("an object")
    if isinstance(value, list):
        return _("a list")
    return type(value).__name__


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _choices(allowed: tuple[str, ...]) -> str:
    """The allowed values, as written in JSON, for a message's "one of: %(choices)s"."""
    return ", ".join(allowed)


def _unknown_choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    """The refusal of a string that is none of `allowed` for the field `name`, with the value it was probably meant
    to be when only the case (or spaces around it) differs. One whole sentence per field, so that a translation can
    name each field as its language does."""
    folded = value.strip().lower()
    suggestion = next((choice for choice in allowed if choice.lower() == folded), None)
    values = {"value": _quote(value), "suggestion": suggestion, "choices": _choices(allowed)}
    if name == "kind":
        message = (_('unknown kind %(value)s (did you mean "%(suggestion)s"?); expected one of: %(choices)s')
                   if suggestion else _("unknown kind %(value)s; expected one of: %(choices)s"))
    elif name == "access":
        message = (_('unknown access %(value)s (did you mean "%(suggestion)s"?); expected one of: %(choices)s')
                   if suggestion else _("unknown access %(value)s; expected one of: %(choices)s"))
    elif name == "class":
        message = (_('unknown method class %(value)s (did you mean "%(suggestion)s"?); expected one of: '
                     "%(choices)s")
                   if suggestion else _("unknown method class %(value)s; expected one of: %(choices)s"))
    else:
        message = (_('unknown dependency class %(value)s (did you mean "%(suggestion)s"?); expected one of: '
                     "%(choices)s")
                   if suggestion else _("unknown dependency class %(value)s; expected one of: %(choices)s"))
    return message % values


def _licence_key(dependency: dict) -> str | None:
    licence = dependency.get("license")
    return licence.strip().lower() if isinstance(licence, str) else None


def _licence_allows(dependency: dict, declaration: str) -> bool:
    """Whether the licence allows what `declaration` ("redistributable" or "transferable") names.

    `none` never allows anything (all rights reserved); otherwise an explicit boolean wins, and
    without one only a licence in OPEN_LICENCES allows it.
    """
    licence = _licence_key(dependency)
    if licence == NO_LICENCE:
        return False
    declared = dependency.get(declaration)
    if isinstance(declared, bool):
        return declared
    return licence in OPEN_LICENCES


def _held_reason(access: str, dependency: dict) -> str:
    """Why a bundled or mirrored dependency has its class: its access, its licence and the rights that gives."""
    licence = dependency.get("license")
    shown = _quote(licence) if isinstance(licence, str) else pgettext("licence", "not declared")
    values = {"access": access, "licence": shown}
    if _licence_key(dependency) == NO_LICENCE:
        return _("%(access)s, license %(licence)s: all rights reserved") % values
    redistributable = _licence_allows(dependency, "redistributable")
    transferable = _licence_allows(dependency, "transferable")
    if redistributable and transferable:
        return _("%(access)s, license %(licence)s, redistributable and transferable") % values
    if redistributable:
        return _("%(access)s, license %(licence)s, redistributable but not transferable") % values
    if transferable:
        return _("%(access)s, license %(licence)s, transferable but not redistributable") % values
    return _("%(access)s, license %(licence)s, neither redistributable nor transferable") % values


def _classify(dependency: Any) -> tuple[str, str]:
    """(class, why): the contributed class and the short reason quoted in messages."""
    if not isinstance(dependency, dict):
        raise ValueError(_("a dependency is a JSON object, found %(found)s") % {"found": _found(dependency)})
    access = dependency.get("access")
    if access in ("bundled", "mirrored"):
        allowed = _licence_allows(dependency, "redistributable") and _licence_allows(dependency, "transferable")
        held = {"bundled": "S", "mirrored": "O"}[access]
        return (held if allowed else "X"), _held_reason(access, dependency)
    if access == "gateway":
        substitutable = dependency.get("substitutable")
        if substitutable is True:
            return "A1", _("gateway, substitutable")
        return "A2", _("gateway, not substitutable") if substitutable is False else _("gateway, substitutable not "
                                                                                        "declared")
    if access == "external-api":
        return "A2", "external-api"
    raise ValueError(_("unknown access %(found)s; expected one of: %(choices)s")
                     % {"found": _found(access), "choices": _choices(DEPENDENCY_ACCESSES)})


def dependency_class_of(dependency: dict) -> str:
    """The class one `method.json` dependency contributes (MI, "Class derivation").

    - `bundled` and the licence allows redistribution and transfer → S; otherwise → X.
    - `mirrored` and the licence allows redistribution and transfer → O; otherwise → X, because a
      mirrored artifact is vendored into the submission, which is bundling it without the rights.
    - `gateway` with `substitutable: true` → A1; with `false` (or not declared) → A2.
    - `external-api` → A2, whatever `substitutable` says.

    "The licence allows redistribution" (and likewise transfer): licence `none` never does (MI:
    all rights reserved); otherwise an explicit `redistributable` (`transferable`) boolean decides;
    without one, only an open licence in OPEN_LICENCES does — `proprietary`, unknown ids and
    compound expressions do not. Combinations MI leaves undefined go to the more restrictive
    class: bundled or mirrored and redistributable but not transferable → X; a missing
    `substitutable` on a gateway → A2. A mirrored artifact under a non-open licence whose
    redistribution and transfer the submitter declares (rights granted) → O, not X: X is defined as
    content without those rights, and S is never possible for something fetched from outside.

    Raises ValueError for a non-object or an unknown `access`; `validate_manifest` reports those.
    """
    return _classify(dependency)[0]


def _most_restrictive(dependencies: list) -> tuple[str, int | None, str | None]:
    """(class, index of the deciding dependency, its reason); the first one wins a tie."""
    result: tuple[str, int | None, str | None] = ("S", None, None)
    for index, dependency in enumerate(dependencies):
        contributed, why = _classify(dependency)
        if result[1] is None or DEPENDENCY_CLASSES.index(contributed) > DEPENDENCY_CLASSES.index(result[0]):
            result = (contributed, index, why)
    return result


def derive_method_class(manifest_dependencies: list[dict]) -> tuple[str, str | None]:
    """The method's dependency class — the most restrictive of its dependencies — and the id of
    the dependency that decides it (the first one when several tie; None when it has no string id).

    `[]` gives `("S", None)`: with a declared S it is the positive "no external dependencies"
    declaration of MI. Raises ValueError like `dependency_class_of`.
    """
    derived, index, _ = _most_restrictive(manifest_dependencies)
    if index is None:
        return derived, None
    dependency_id = manifest_dependencies[index].get("id")
    return derived, dependency_id if isinstance(dependency_id, str) else None


def _check_string(block: dict, name: str, path: str, problems: list[FieldProblem], *, required: bool,
                  non_empty: bool = True) -> bool:
    """Whether `block[name]` is a usable string; null counts as absent."""
    value = block.get(name)
    if value is None:
        if required:
            problems.append(FieldProblem(_join(path, name), _("required field is missing; expected a string")))
        return False
    if not isinstance(value, str):
        problems.append(FieldProblem(_join(path, name), _("expected a string, found %(found)s")
                                     % {"found": _found(value)}))
        return False
    if non_empty and not value.strip():
        problems.append(FieldProblem(_join(path, name), _("expected a non-empty string, found an empty one")))
        return False
    return True


def _check_label(block: dict, name: str, path: str, problems: list[FieldProblem], *, required: bool) -> None:
    """A string shown inside the site's sentences (the method's name, its author): no invisible or
    direction-changing character, which could hide part of it or reverse the words around it."""
    if _check_string(block, name, path, problems, required=required, non_empty=required):
        refusal = refusal_of_hidden_or_directional(block[name])
        if refusal:
            problems.append(FieldProblem(_join(path, name), refusal))


def _check_bool(block: dict, name: str, path: str, problems: list[FieldProblem], *, required: bool) -> None:
    value = block.get(name)
    if value is None:
        if required:
            problems.append(FieldProblem(_join(path, name), _("required field is missing; expected true or false")))
    elif not isinstance(value, bool):
        problems.append(FieldProblem(_join(path, name), _("expected true or false, found %(found)s")
                                     % {"found": _found(value)}))


def _check_choice(block: dict, name: str, allowed: tuple[str, ...], path: str, problems: list[FieldProblem], *,
                  required: bool) -> str | None:
    """The value when it is one of `allowed`; otherwise None, with the problem recorded."""
    value = block.get(name)
    where = _join(path, name)
    if value is None:
        if required:
            problems.append(FieldProblem(where, _("required field is missing; expected one of: %(choices)s")
                                         % {"choices": _choices(allowed)}))
        return None
    if not isinstance(value, str):
        problems.append(FieldProblem(where, _("expected a string, one of: %(choices)s; found %(found)s")
                                     % {"choices": _choices(allowed), "found": _found(value)}))
        return None
    if value not in allowed:
        problems.append(FieldProblem(where, _unknown_choice(name, value, allowed)))
        return None
    return value


def _check_string_list(block: dict, name: str, path: str, problems: list[FieldProblem]) -> None:
    value = block.get(name)
    if value is None:
        return
    if not isinstance(value, list):
        problems.append(FieldProblem(_join(path, name), _("expected a list of strings, found %(found)s")
                                     % {"found": _found(value)}))
        return
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            problems.append(FieldProblem(f"{_join(path, name)}[{index}]",
                                         _("expected a non-empty string, found %(found)s")
                                         % {"found": _found(item)}))


def _check_method_id(block: dict, path: str, problems: list[FieldProblem], *, required: bool) -> None:
    valid_string = _check_string(block, "method_id", path, problems, required=required)
    if valid_string and not METHOD_ID.match(block["method_id"]):
        problems.append(FieldProblem(_join(path, "method_id"),
                                     _("expected kebab-case (lowercase letters, digits and hyphens, not "
                                       "starting with a hyphen), found %(found)s")
                                     % {"found": _quote(block["method_id"])}))


def _validate_dependency(dependency: Any, index: int, path: str, seen: dict[str, int],
                         problems: list[FieldProblem]) -> bool:
    """Record the problems of dependency number `index`; True when its class can be derived from it."""
    if not isinstance(dependency, dict):
        problems.append(FieldProblem(path, _("expected an object (one dependency), found %(found)s")
                                     % {"found": _found(dependency)}))
        return False
    if _check_string(dependency, "id", path, problems, required=True):
        dependency_id = dependency["id"]
        if dependency_id in seen:
            problems.append(FieldProblem(_join(path, "id"), _("duplicate id %(id)s: dependencies[%(index)s] "
                                                              "already declares it")
                                         % {"id": _quote(dependency_id), "index": seen[dependency_id]}))
        else:
            seen[dependency_id] = index
    _check_choice(dependency, "kind", DEPENDENCY_KINDS, path, problems, required=True)
    has_licence = _check_string(dependency, "license", path, problems, required=True)
    access = _check_choice(dependency, "access", DEPENDENCY_ACCESSES, path, problems, required=True)
    if _check_string(dependency, "source", path, problems, required=True) and ":" not in dependency["source"]:
        problems.append(FieldProblem(_join(path, "source"), _('expected a canonical URL or a "provider:slug" '
                                                              "identifier, found %(found)s")
                                     % {"found": _quote(dependency["source"])}))
    if access == "mirrored" and dependency.get("pin") is None:
        problems.append(FieldProblem(_join(path, "pin"), _('required when access is "mirrored": the version, '
                                                           "commit or content hash that pins the exact artifact")))
    else:
        _check_string(dependency, "pin", path, problems, required=False)
    # Required for external-api too (MI's field table and the leaderboard issue), although it cannot
    # change that class: the declaration tells governance whether another provider could serve it.
    if access in ("gateway", "external-api") and dependency.get("substitutable") is None:
        problems.append(FieldProblem(_join(path, "substitutable"),
                                     _('required when access is "%(access)s": true if any compatible endpoint '
                                       "can serve this dependency, false if not") % {"access": access}))
    else:
        _check_bool(dependency, "substitutable", path, problems, required=False)
    for declaration in ("redistributable", "transferable"):  # MI's field table marks both required (✅)
        _check_bool(dependency, declaration, path, problems, required=True)
        if dependency.get(declaration) is True and _licence_key(dependency) == NO_LICENCE:
            problems.append(FieldProblem(_join(path, declaration),
                                         _('is true, but license "none" means all rights reserved; if the '
                                           "rights holders granted the right, name that grant as the license "
                                           '(e.g. "proprietary" or a LicenseRef- id)')))
    _check_string(dependency, "notes", path, problems, required=False, non_empty=False)
    if access in ("bundled", "mirrored"):
        return has_licence
    if access == "gateway":
        return isinstance(dependency.get("substitutable"), bool)
    return access == "external-api"


def _dependency_name(dependencies: list, index: int, path: str) -> str:
    """The deciding dependency as a message names it after the word "dependency": its id, JSON-quoted, or its path
    when it has no usable id."""
    dependency_id = dependencies[index].get("id")
    if isinstance(dependency_id, str) and dependency_id.strip():
        return _quote(dependency_id)
    return f"{_join(path, 'dependencies')}[{index}]"


def validate_manifest(manifest: Any, path: str = "method") -> tuple[str | None, list[FieldProblem]]:
    """Validate a `method.json` dependency manifest and derive its dependency class.

    Returns the derived class — None when `dependencies` is missing or any dependency lacks what
    its rule needs (an object, a known `access`, a `license` for bundled/mirrored, a boolean
    `substitutable` for gateway) — and every problem at once. A declared `dependency_class` that
    differs from the derived one is a problem naming the dependency that decides the class.
    Other method.json fields (`name`, `method_id`, `class`, `entry_point`, `supported_pairs`) are
    type-checked when present; unknown extra fields are accepted.
    """
    if not isinstance(manifest, dict):
        return None, [FieldProblem(path, _("expected a JSON object (a method.json manifest), found %(found)s")
                                   % {"found": _found(manifest)})]
    problems: list[FieldProblem] = []
    for name in ("name", "entry_point"):
        _check_string(manifest, name, path, problems, required=False)
    _check_method_id(manifest, path, problems, required=False)
    _check_choice(manifest, "class", METHOD_CLASSES, path, problems, required=False)
    _check_string_list(manifest, "supported_pairs", path, problems)
    declared = _check_choice(manifest, "dependency_class", DEPENDENCY_CLASSES, path, problems, required=True)

    dependencies = manifest.get("dependencies")
    if not isinstance(dependencies, list):
        problems.append(FieldProblem(_join(path, "dependencies"),
                                     _("required field is missing; expected a list, [] for a method without "
                                       "external dependencies") if dependencies is None
                                     else _("expected a list of dependency objects, found %(found)s")
                                     % {"found": _found(dependencies)}))
        return None, problems
    seen: dict[str, int] = {}
    usable = [_validate_dependency(dependency, index, f"{_join(path, 'dependencies')}[{index}]", seen, problems)
              for index, dependency in enumerate(dependencies)]
    if not all(usable):
        return None, problems

    derived, index, why = _most_restrictive(dependencies)
    if declared is not None and declared != derived:
        values = {"declared": declared, "derived": derived, "why": why,
                  "dependency": _dependency_name(dependencies, index, path) if index is not None else ""}
        if index is None:
            message = _('declared class "%(declared)s" but "dependencies" is empty, which makes it S')
        elif DEPENDENCY_CLASSES.index(declared) < DEPENDENCY_CLASSES.index(derived):
            message = _('declared class "%(declared)s" but dependency %(dependency)s (%(why)s) makes it %(derived)s')
        else:
            message = _('declared class "%(declared)s" but no dependency is %(declared)s: the most restrictive, '
                        "dependency %(dependency)s (%(why)s), makes it %(derived)s")
        problems.append(FieldProblem(_join(path, "dependency_class"), message % values))
    return derived, problems


def validate_method_card(card: Any, path: str = "method_card") -> list[FieldProblem]:
    """Validate a method card — what a method is, without the proprietary how.

    Required: `method_id` (kebab-case), `name`, `class` (one of METHOD_CLASSES). Optional, checked
    when present and not null: `description`, `author` (strings), `tools_used`, `supported_pairs`
    (lists of non-empty strings), `open_source` (boolean), `dependency_class` (one of
    DEPENDENCY_CLASSES). MI's example shows all nine fields but does not say which are required;
    the three required ones are those the upstream harness requires, so its wizard-made cards pass.
    Unknown extra fields (e.g. the harness's `paradigm`) are accepted.
    """
    if not isinstance(card, dict):
        return [FieldProblem(path, _("expected a JSON object (a method card), found %(found)s")
                             % {"found": _found(card)})]
    problems: list[FieldProblem] = []
    _check_method_id(card, path, problems, required=True)
    _check_label(card, "name", path, problems, required=True)
    _check_choice(card, "class", METHOD_CLASSES, path, problems, required=True)
    _check_string(card, "description", path, problems, required=False, non_empty=False)
    _check_label(card, "author", path, problems, required=False)
    for name in ("tools_used", "supported_pairs"):
        _check_string_list(card, name, path, problems)
    _check_bool(card, "open_source", path, problems, required=False)
    _check_choice(card, "dependency_class", DEPENDENCY_CLASSES, path, problems, required=False)
    return problems


def check_card_against_manifest(card: Any, derived_class: str | None, path: str = "method_card") -> list[FieldProblem]:
    """A problem when the card's valid `dependency_class` disagrees with the manifest's derived class.

    Nothing to compare — no card object, no derived class, a card without a (valid) dependency
    class — gives no problem; `validate_method_card` reports an invalid one.
    """
    if not isinstance(card, dict) or derived_class is None:
        return []
    declared = card.get("dependency_class")
    if declared not in DEPENDENCY_CLASSES or declared == derived_class:
        return []
    return [FieldProblem(_join(path, "dependency_class"),
                         _('method card declares dependency class "%(declared)s" but the method.json '
                           "dependencies make it %(derived)s") % {"declared": declared, "derived": derived_class})]
