"""Method cards and `method.json` dependency manifests (MI): class derivation and validation messages."""

import copy

import pytest

from common.problems import FieldProblem
from leaderboard.methods import (
    DEPENDENCY_CLASSES,
    METHOD_CLASSES,
    check_card_against_manifest,
    dependency_class_of,
    derive_method_class,
    validate_manifest,
    validate_method_card,
)

# The manifest of MI's own example, verbatim: it must validate as A2.
MI_EXAMPLE = {
    "name": "FST-Gated Coached Translation v8",
    "method_id": "fst-gated-v8",
    "class": "pipeline",
    "entry_point": "pipeline:PipelineMethod",
    "supported_pairs": ["eng>crk"],
    "dependency_class": "A2",
    "dependencies": [
        {"id": "giellalt-lang-crk-fst", "kind": "software", "license": "AGPL-3.0-or-later", "access": "mirrored",
         "source": "https://github.com/giellalt/lang-crk", "pin": "sha256:3f1a…", "redistributable": True,
         "transferable": True},
        {"id": "llm-inference", "kind": "model", "license": "proprietary", "access": "gateway",
         "source": "openrouter:google/gemini-2.5-flash", "substitutable": True, "redistributable": False,
         "transferable": False,
         "notes": "Any compatible chat-completions endpoint works; the model slug is configuration."},
        {"id": "crk-dictionary-api", "kind": "service", "license": "none", "access": "external-api",
         "source": "https://itwewina.altlab.app/", "substitutable": False, "redistributable": False,
         "transferable": False,
         "notes": "Dictionary content has no public license; runtime lookups only."},
    ],
}

MI_CARD = {
    "method_id": "fst-gated-v8",
    "name": "FST-Gated Coached Translation v8",
    "class": "pipeline",
    "description": "LLM translation with morphological validation. Failed words are retried with FST feedback.",
    "author": "Curtis Forbes",
    "tools_used": ["HFST morphological analyzer", "Wolvengrey dictionary"],
    "open_source": False,
    "dependency_class": "A2",
    "supported_pairs": ["eng>crk"],
}


def dep(dep_id: str = "d", access: str = "bundled", license: str = "MIT", **fields) -> dict:
    """A complete, valid dependency; `fields` override or add (None removes a field)."""
    base = {"id": dep_id, "kind": "data", "license": license, "access": access, "source": "https://example.org/d",
            "redistributable": True, "transferable": True}
    if access == "mirrored":
        base["pin"] = "v1.2.3"
    if access in ("gateway", "external-api"):
        base["substitutable"] = True
    base.update(fields)
    return {name: value for name, value in base.items() if value is not None}


def manifest(declared: str, *dependencies: dict) -> dict:
    return {"dependency_class": declared, "dependencies": list(dependencies)}


def paths(problems) -> list[str]:
    return [problem.path for problem in problems]


def message_at(problems, path: str) -> str:
    found = [problem.message for problem in problems if problem.path == path]
    assert len(found) == 1, f"expected one problem at {path}, got {problems}"
    return found[0]


# ---------------------------------------------------------------- derivation, one dependency


@pytest.mark.parametrize(("dependency", "expected"), [
    # bundled: S only with redistribution and transfer
    (dep(access="bundled", license="MIT"), "S"),
    (dep(access="bundled", license="Apache-2.0", redistributable=None, transferable=None), "S"),  # licence table
    (dep(access="bundled", license="GPL-3.0-or-later", redistributable=None, transferable=None), "S"),  # copyleft
    (dep(access="bundled", license="mit", redistributable=None, transferable=None), "S"),  # SPDX is case-insensitive
    (dep(access="bundled", license="proprietary"), "S"),  # rights declared (own or granted)
    (dep(access="bundled", license="none"), "X"),  # all rights reserved, whatever is declared
    (dep(access="bundled", license="NONE", redistributable=False, transferable=False), "X"),
    (dep(access="bundled", license="proprietary", redistributable=False, transferable=False), "X"),
    (dep(access="bundled", license="proprietary", redistributable=None, transferable=None), "X"),
    (dep(access="bundled", license="CC-BY-NC-4.0", redistributable=None, transferable=None), "X"),  # not open
    (dep(access="bundled", license="MIT", redistributable=False), "X"),  # the declaration wins
    (dep(access="bundled", license="MIT", transferable=False), "X"),  # undefined in MI → more restrictive
    # mirrored: O with an open licence allowing redistribution, copyleft included
    (dep(access="mirrored", license="AGPL-3.0-or-later"), "O"),
    (dep(access="mirrored", license="CC-BY-SA-4.0", redistributable=None, transferable=None), "O"),
    (dep(access="mirrored", license="none"), "X"),
    (dep(access="mirrored", license="proprietary", redistributable=False, transferable=False), "X"),
    (dep(access="mirrored", license="LicenseRef-unknown", redistributable=None, transferable=None), "X"),
    (dep(access="mirrored", license="MIT", transferable=False), "X"),  # undefined in MI → more restrictive
    (dep(access="mirrored", license="proprietary"), "O"),  # rights declared: not X, and never S when mirrored
    # gateway: A1 only when substitutable
    (dep(access="gateway", license="proprietary", substitutable=True, redistributable=False, transferable=False), "A1"),
    (dep(access="gateway", license="proprietary", substitutable=False), "A2"),
    (dep(access="gateway", substitutable=None), "A2"),  # not declared → more restrictive
    # external-api: always A2
    (dep(access="external-api", substitutable=True), "A2"),
    (dep(access="external-api", license="none", substitutable=None, redistributable=False, transferable=False), "A2"),
])
def test_dependency_class_of(dependency, expected):
    assert dependency_class_of(dependency) == expected


@pytest.mark.parametrize("dependency", [["bundled"], "bundled", None, {"access": "cloud"}, {}])
def test_dependency_class_of_refuses_what_it_cannot_classify(dependency):
    with pytest.raises(ValueError):
        dependency_class_of(dependency)


# ---------------------------------------------------------------- derivation, whole method


@pytest.mark.parametrize(("dependencies", "expected"), [
    ([], ("S", None)),
    ([dep("a")], ("S", "a")),
    ([dep("a"), dep("b", "mirrored")], ("O", "b")),
    ([dep("a", "mirrored"), dep("b", "gateway"), dep("c")], ("A1", "b")),
    ([dep("a", "gateway"), dep("b", "external-api"), dep("c", "mirrored")], ("A2", "b")),
    ([dep("a", "external-api"), dep("b", "bundled", "none"), dep("c", "gateway")], ("X", "b")),
    ([dep("first", "gateway"), dep("second", "gateway")], ("A1", "first")),  # a tie names the first
    ([dep("a", "gateway", substitutable=False), dep("b", "external-api")], ("A2", "a")),
])
def test_derive_method_class_is_the_most_restrictive(dependencies, expected):
    assert derive_method_class(dependencies) == expected


def test_dependency_classes_are_ordered_least_to_most_restrictive():
    assert DEPENDENCY_CLASSES == ("S", "O", "A1", "A2", "X")


# ---------------------------------------------------------------- manifests


def test_mi_example_manifest_is_valid_a2():
    assert validate_manifest(MI_EXAMPLE) == ("A2", [])


def test_empty_dependencies_with_s_is_a_positive_declaration():
    assert validate_manifest({"dependency_class": "S", "dependencies": []}) == ("S", [])


@pytest.mark.parametrize(("candidate", "declared", "message"), [
    (manifest("S", dep("fst", "mirrored"), dep("gpt-gateway", "gateway")), "S",
     'declared class "S" but dependency "gpt-gateway" (gateway, substitutable) makes it A1'),
    (manifest("A1", dep("dict-api", "external-api")), "A1",
     'declared class "A1" but dependency "dict-api" (external-api) makes it A2'),
    (manifest("O", dep("scraped", "bundled", "none", redistributable=False, transferable=False)), "O",
     'declared class "O" but dependency "scraped" (bundled, license "none": all rights reserved) makes it X'),
    (manifest("S", dep("nc-corpus", "mirrored", "CC-BY-NC-4.0", redistributable=False, transferable=False)), "S",
     'declared class "S" but dependency "nc-corpus" (mirrored, license "CC-BY-NC-4.0", '
     "neither redistributable nor transferable) makes it X"),
    (manifest("A2", dep("fst", "mirrored", "AGPL-3.0-or-later")), "A2",
     'declared class "A2" but no dependency is A2: the most restrictive, dependency "fst" '
     '(mirrored, license "AGPL-3.0-or-later", redistributable and transferable), makes it O'),
    (manifest("O"), "O", 'declared class "O" but "dependencies" is empty, which makes it S'),
])
def test_declared_class_differing_from_the_derived_one_names_the_dependency(candidate, declared, message):
    derived, problems = validate_manifest(candidate)
    assert derived == derive_method_class(candidate["dependencies"])[0]
    assert [(p.path, p.message) for p in problems] == [("method.dependency_class", message)]


@pytest.mark.parametrize(("dependency", "field", "fragment"), [
    (dep(access="mirrored", pin=None), "pin", 'required when access is "mirrored"'),
    (dep(access="gateway", substitutable=None), "substitutable", 'required when access is "gateway"'),
    (dep(id=None), "id", "required field is missing"),
    (dep(kind=None), "kind", "required field is missing; expected one of: data, model, software, service"),
    (dep(license=None), "license", "required field is missing"),
    (dep(access=None), "access", "required field is missing; expected one of: bundled, mirrored, gateway, "
                                 "external-api"),
    (dep(source=None), "source", "required field is missing"),
    (dep(redistributable=None), "redistributable", "required field is missing; expected true or false"),
    (dep(transferable=None), "transferable", "required field is missing; expected true or false"),
])
def test_missing_dependency_fields(dependency, field, fragment):
    _, problems = validate_manifest(manifest("S", dependency))
    assert fragment in message_at(problems, f"method.dependencies[0].{field}")


def test_external_api_must_declare_substitutable():
    derived, problems = validate_manifest(manifest("A2", dep(access="external-api", substitutable=None)))
    assert 'required when access is "external-api"' in message_at(problems, "method.dependencies[0].substitutable")


@pytest.mark.parametrize(("dependency", "field", "message"), [
    (dep(access="cloud"), "access",
     'unknown access "cloud"; expected one of: bundled, mirrored, gateway, external-api'),
    (dep(access="Bundled"), "access",
     'unknown access "Bundled" (did you mean "bundled"?); expected one of: bundled, mirrored, gateway, external-api'),
    (dep(kind="weights"), "kind", 'unknown kind "weights"; expected one of: data, model, software, service'),
    (dep(id=7), "id", "expected a string, found the number 7"),
    (dep(id=""), "id", "expected a non-empty string, found an empty one"),
    (dep(license=["MIT"]), "license", "expected a string, found a list"),
    (dep(access=1), "access", "expected a string, one of: bundled, mirrored, gateway, external-api; "
                              "found the number 1"),
    (dep(source="github.com/x"), "source",
     'expected a canonical URL or a "provider:slug" identifier, found "github.com/x"'),
    (dep(access="mirrored", pin=12), "pin", "expected a string, found the number 12"),
    (dep(access="gateway", substitutable="yes"), "substitutable", 'expected true or false, found the string "yes"'),
    (dep(redistributable=1), "redistributable", "expected true or false, found the number 1"),
    (dep(transferable=None), "transferable", "required field is missing; expected true or false"),
    (dep(notes={"a": 1}), "notes", "expected a string, found an object"),
    (dep(license="none", redistributable=True, transferable=False), "redistributable",
     'is true, but license "none" means all rights reserved; if the rights holders granted the right, name that '
     'grant as the license (e.g. "proprietary" or a LicenseRef- id)'),
])
def test_wrong_dependency_values(dependency, field, message):
    _, problems = validate_manifest(manifest("S", dependency))
    assert message_at(problems, f"method.dependencies[0].{field}") == message


@pytest.mark.parametrize(("candidate", "path", "message"), [
    ({"dependencies": []}, "method.dependency_class",
     "required field is missing; expected one of: S, O, A1, A2, X"),
    ({"dependency_class": "B", "dependencies": []}, "method.dependency_class",
     'unknown dependency class "B"; expected one of: S, O, A1, A2, X'),
    ({"dependency_class": "a1", "dependencies": []}, "method.dependency_class",
     'unknown dependency class "a1" (did you mean "A1"?); expected one of: S, O, A1, A2, X'),
    ({"dependency_class": "S"}, "method.dependencies",
     "required field is missing; expected a list, [] for a method without external dependencies"),
    ({"dependency_class": "S", "dependencies": {"id": "x"}}, "method.dependencies",
     "expected a list of dependency objects, found an object"),
    ({"dependency_class": "S", "dependencies": [], "class": "llm"}, "method.class",
     'unknown method class "llm"; expected one of: raw-llm, coached-llm, pipeline, custom-plugin, api, human'),
    ({"dependency_class": "S", "dependencies": [], "method_id": "FST Gated"}, "method.method_id",
     'expected kebab-case (lowercase letters, digits and hyphens, not starting with a hyphen), found "FST Gated"'),
    ({"dependency_class": "S", "dependencies": [], "supported_pairs": "eng>crk"}, "method.supported_pairs",
     'expected a list of strings, found the string "eng>crk"'),
])
def test_manifest_level_problems(candidate, path, message):
    _, problems = validate_manifest(candidate)
    assert message_at(problems, path) == message


def test_duplicate_dependency_ids():
    derived, problems = validate_manifest(manifest("O", dep("fst"), dep("other"), dep("fst", "mirrored")))
    assert derived == "O"
    assert [(p.path, p.message) for p in problems] == [
        ("method.dependencies[2].id", 'duplicate id "fst": dependencies[0] already declares it'),
    ]


@pytest.mark.parametrize("entry", [["x"], "bundled", None, 3])
def test_non_object_dependency_makes_the_class_underivable(entry):
    derived, problems = validate_manifest(manifest("S", dep("a"), entry))
    assert derived is None
    assert paths(problems) == ["method.dependencies[1]"]
    assert problems[0].message.startswith("expected an object (one dependency), found ")


@pytest.mark.parametrize(("broken", "still_derivable"), [
    (dep(access="cloud"), False),
    (dep(access="gateway", substitutable=None), False),
    (dep(license=None), False),
    (dep(access="mirrored", pin=None), True),  # the pin does not decide the class
    (dep(kind="weights"), True),
])
def test_derived_class_is_none_only_when_a_rule_lacks_its_input(broken, still_derivable):
    derived, problems = validate_manifest(manifest("S", broken))
    assert problems
    assert (derived is not None) is still_derivable


def test_all_problems_are_reported_at_once_with_json_paths():
    candidate = {"dependency_class": "Q", "dependencies": [
        dep("a"),
        {"id": "b", "kind": "data", "access": "mirrored", "source": "https://x.org", "license": "MIT"},
        {"id": "c", "kind": "model", "access": "gateway", "source": "openrouter:x/y", "license": "proprietary",
         "redistributable": False, "transferable": False},
    ]}
    derived, problems = validate_manifest(candidate)
    assert derived is None
    assert paths(problems) == [
        "method.dependency_class",
        "method.dependencies[1].pin",
        "method.dependencies[1].redistributable",
        "method.dependencies[1].transferable",
        "method.dependencies[2].substitutable",
    ]


@pytest.mark.parametrize(("value", "described"), [
    ([MI_EXAMPLE], "a list"),
    ("method.json", 'the string "method.json"'),
    (None, "null"),
    (42, "the number 42"),
])
def test_manifest_that_is_not_an_object(value, described):
    assert validate_manifest(value, path="plugin") == (None, [
        FieldProblem("plugin", f"expected a JSON object (a method.json manifest), found {described}"),
    ])


def test_long_submitted_strings_are_not_echoed_in_full():
    long_value = "z" * 500
    candidate = {"dependency_class": long_value, "dependencies": [dep(long_value, access=long_value)]}
    _, problems = validate_manifest(candidate)
    assert len(problems) == 2
    for problem in problems:
        assert "z" * 61 not in problem.message
        assert len(problem.message) < 250
    assert validate_method_card("y" * 500)[0].message.count("y") == 60


def test_a_custom_path_prefixes_every_problem():
    _, problems = validate_manifest(manifest("S", dep(access="mirrored", pin=None)), path="run.method")
    assert paths(problems) == ["run.method.dependencies[0].pin", "run.method.dependency_class"]


def test_the_manifest_is_not_modified():
    before = copy.deepcopy(MI_EXAMPLE)
    validate_manifest(MI_EXAMPLE)
    assert MI_EXAMPLE == before


# ---------------------------------------------------------------- method cards


def test_mi_example_card_is_valid():
    assert validate_method_card(MI_CARD) == []


def test_harness_wizard_card_is_valid():
    """The upstream `mt-eval publish` wizard writes only these fields (plus `paradigm`)."""
    card = {"name": "CRK Coached v8.2", "method_id": "crk-coached-v8-2", "class": "coached-llm",
            "paradigm": "llm", "author": "anonymous"}
    assert validate_method_card(card) == []


@pytest.mark.parametrize("method_class", METHOD_CLASSES)
def test_every_method_class_is_accepted(method_class):
    assert validate_method_card({**MI_CARD, "class": method_class}) == []


@pytest.mark.parametrize(("changes", "path", "message"), [
    ({"class": "fine-tuned"}, "method_card.class",
     'unknown method class "fine-tuned"; expected one of: raw-llm, coached-llm, pipeline, custom-plugin, api, human'),
    ({"class": None}, "method_card.class",
     "required field is missing; expected one of: raw-llm, coached-llm, pipeline, custom-plugin, api, human"),
    ({"class": ["pipeline"]}, "method_card.class",
     "expected a string, one of: raw-llm, coached-llm, pipeline, custom-plugin, api, human; found a list"),
    ({"method_id": None}, "method_card.method_id", "required field is missing; expected a string"),
    ({"method_id": "-x"}, "method_card.method_id",
     'expected kebab-case (lowercase letters, digits and hyphens, not starting with a hyphen), found "-x"'),
    ({"name": None}, "method_card.name", "required field is missing; expected a string"),
    ({"name": "  "}, "method_card.name", "expected a non-empty string, found an empty one"),
    ({"description": 5}, "method_card.description", "expected a string, found the number 5"),
    ({"author": False}, "method_card.author", "expected a string, found false"),
    ({"tools_used": "HFST"}, "method_card.tools_used", 'expected a list of strings, found the string "HFST"'),
    ({"tools_used": ["HFST", 3]}, "method_card.tools_used[1]", "expected a non-empty string, found the number 3"),
    ({"supported_pairs": [""]}, "method_card.supported_pairs[0]", 'expected a non-empty string, found the string ""'),
    ({"open_source": "yes"}, "method_card.open_source", 'expected true or false, found the string "yes"'),
    ({"dependency_class": "Z"}, "method_card.dependency_class",
     'unknown dependency class "Z"; expected one of: S, O, A1, A2, X'),
])
def test_method_card_problems(changes, path, message):
    card = {name: value for name, value in {**MI_CARD, **changes}.items() if value is not None}
    assert [(p.path, p.message) for p in validate_method_card(card)] == [(path, message)]


def test_optional_card_fields_may_be_absent_or_null():
    card = {"method_id": "m", "name": "M", "class": "human", "description": None, "tools_used": None,
            "open_source": None, "dependency_class": None, "supported_pairs": None, "author": None}
    assert validate_method_card(card) == []


@pytest.mark.parametrize(("value", "described"), [
    ([MI_CARD], "a list"), ("card", 'the string "card"'), (None, "null"), (True, "true"),
])
def test_method_card_that_is_not_an_object(value, described):
    problems = validate_method_card(value)
    assert [(p.path, p.message) for p in problems] == [
        ("method_card", f"expected a JSON object (a method card), found {described}"),
    ]


@pytest.mark.parametrize(("card", "derived", "expected"), [
    (MI_CARD, "A2", []),
    ({**MI_CARD, "dependency_class": "S"}, "A1",
     [("method_card.dependency_class",
       'method card declares dependency class "S" but the method.json dependencies make it A1')]),
    ({**MI_CARD, "dependency_class": "X"}, "O",
     [("method_card.dependency_class",
       'method card declares dependency class "X" but the method.json dependencies make it O')]),
    ({key: value for key, value in MI_CARD.items() if key != "dependency_class"}, "A2", []),
    ({**MI_CARD, "dependency_class": "bogus"}, "A2", []),  # validate_method_card reports it
    (MI_CARD, None, []),  # no usable manifest
    ("not a card", "S", []),
])
def test_check_card_against_manifest(card, derived, expected):
    assert [(p.path, p.message) for p in check_card_against_manifest(card, derived)] == expected


def test_card_and_manifest_together():
    derived, problems = validate_manifest(MI_EXAMPLE)
    assert problems == []
    assert check_card_against_manifest({**MI_CARD, "dependency_class": "A1"}, derived, path="run.method_card") == [
        FieldProblem(
            "run.method_card.dependency_class",
            'method card declares dependency class "A1" but the method.json dependencies make it A2'),
    ]
