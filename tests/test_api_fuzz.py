"""API fuzzing: schemathesis generates requests from the project's own OpenAPI schema (/api/v1/schema/) and
sends them, as each kind of user, to the WSGI application in-process.

Every operation must answer without a server error, every 4xx must say what was wrong, documented responses
must match their schema, and no secret text may reach a user who is not steward staff. Hypothesis runs
derandomized with few examples per operation, so the file is reproducible and stays fast in CI; it also draws on
the constants of the project's own modules, so a change anywhere in the code can change what it generates.
"""

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.urls import Resolver404, resolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from accounts.services import create_api_token
from config.wsgi import application
from corpus.models import Entry
from leaderboard.services import submit_run_card

from .cards import body, make_card
from .conftest import SECRET_MARK, activate_held_out, corpus_bytes, entry, proven, publish

pytestmark = pytest.mark.django_db

SCHEMA = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application)
EXAMPLES_PER_OPERATION = int(os.environ.get("API_FUZZ_EXAMPLES", "20"))  # raise it for a deeper run
ROLES = ["anonymous", "developer", "outsider", "curator", "governance", "maintainer"]
STEWARD_STAFF = {"curator", "governance"}
ERROR_FIELDS = ("detail", "message", "problems")
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture(autouse=True)
def keep_test_transaction():
    """The WSGI handler closes "old" connections around each request; inside the test's transaction that
    would drop it. Django's own test client disconnects the same receivers."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(steward, other_org, governance_user, curator, outsider, maintainer) -> dict[str, Any]:
    """A public dataset with secret entries, a private one, a public and a secret run card, and one API
    token per role; `known` lists real values for path and query parameters, so that requests reach objects."""
    from corpus.services import import_corpus

    public = import_corpus(
        data=corpus_bytes([
            entry(1, "development", domain="medical"), entry(2, "diagnostic"),
            entry(3, "gold_standard", domain="medical"), entry(4, "held_out"),
        ]),
        organization=steward,
        actor=None,
    ).version
    publish(public.dataset)
    activate_held_out(public)
    private = import_corpus(
        data=corpus_bytes([entry(11, "gold_standard"), entry(12, "development")],
                                             id="private-set"),
        organization=steward,
        actor=None,
    ).version
    cards = [
        submit_run_card(
            body=body(make_card(public, list(Entry.objects.filter(version=public, segment="development")),
                                           model_slug="open")),
            actor=curator,
        ),
        submit_run_card(
            body=body(make_card(public, list(Entry.objects.filter(version=public, segment__in=[
                "gold_standard", "held_out"])), model_slug="sandboxed",
                predict=lambda e: f"output {SECRET_MARK} {e.entry_id}")),
            actor=governance_user,
        ),
    ]
    users = {"developer": user_without_role(), "outsider": outsider, "curator": curator, "governance": governance_user,
             "maintainer": maintainer}
    tokens = {role: create_api_token(
        actor=proven(user),
        name="fuzz",
        scope="secret" if role in ("curator", "governance")
                                         else "publish",
    )[1] for role, user in users.items()}
    known = {
        "id": sorted({str(pk) for pk in Entry.objects.values_list("pk", flat=True)}
                     | {str(public.pk), str(private.pk)}),
        "identifier": [public.dataset.identifier, private.dataset.identifier],
        "public_id": [str(card.public_id) for card in cards],
        "method_id": ["no-such-method"],
        "pk": ["1", "999999"],
    }
    fresh_card = make_card(public, list(Entry.objects.filter(version=public, segment="diagnostic")), model_slug="new")
    bodies = {
        "POST /api/v1/run-cards/": [fresh_card],
        "POST /api/v1/run-cards/{public_id}/gds-verification/": [{"reproduction": public_id}
                                                                 for public_id in known["public_id"]],
        "POST /api/v1/run-cards/{public_id}/disqualification/": [{"reason": "Outputs copied from the references."}],
        "POST /api/v1/disqualifications/{pk}/lift/": [{"reason": "The developer explained the run."}],
        # Public segments only: an outsider may import this into their own organization and then see it.
        "POST /api/v1/corpus-imports/": [json.loads(corpus_bytes([entry(21), entry(22, "diagnostic")],
                                                                 id="fuzz-import"))],
    }
    return {"tokens": tokens, "known": known, "query": {"org": [steward.slug, other_org.slug]}, "bodies": bodies}


def user_without_role():
    """A method developer: signed up, verified, member of no organization."""
    from accounts.models import User

    return User.objects.create_user("developer@nowhere.example", "correct horse battery staple 42")


def cases(operation, world: dict[str, Any]) -> st.SearchStrategy:
    """Valid and invalid generated cases, and valid ones with path (and `org`) parameters taken from the
    objects that exist and, for the writes, real bodies: requests that reach the code behind the checks."""
    generated = st.one_of(operation.as_strategy(GenerationMode.POSITIVE),
                          operation.as_strategy(GenerationMode.NEGATIVE))
    names = [parameter.name for parameter in operation.path_parameters]
    fixed_query = {name: values for name, values in world["query"].items()
                   if any(parameter.name == name for parameter in operation.query)}
    bodies = world["bodies"].get(operation.label)
    if not names and not fixed_query and not bodies:
        return generated
    chosen = st.fixed_dictionaries({
        "path": st.fixed_dictionaries({name: st.sampled_from(world["known"][name]) for name in names}),
        "query": st.fixed_dictionaries({name: st.sampled_from(values) for name, values in fixed_query.items()}),
        "body": st.sampled_from(bodies) if bodies else st.none(),
    })
    existing = chosen.flatmap(lambda values: operation.as_strategy(
        path_parameters=values["path"] or None, query=values["query"] or None,
        **({"body": values["body"], "media_type": "application/json"} if values["body"] is not None else {})))
    return st.one_of(existing, generated)


def routed(path: str) -> bool:
    """Whether a view answers this path (a generated `.0` id, say, matches no route's pattern)."""
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def says_what_was_wrong(payload: Any) -> bool:
    """An error body names the problem: a non-empty detail, message or problems field, or (DRF validation
    errors) every field mapped to non-empty messages."""
    if isinstance(payload, list):
        return bool(payload) and all(isinstance(item, str) and item.strip() for item in payload)
    if not isinstance(payload, dict) or not payload:
        return False
    if any(payload.get(name) for name in ERROR_FIELDS):
        return all(payload[name] for name in ERROR_FIELDS if name in payload)
    return all(says_what_was_wrong(value) if not isinstance(value, str) else bool(value.strip())
               for value in payload.values())


def operations() -> Iterator:
    for result in SCHEMA.get_all_operations():
        yield result.ok()


def test_schema_lists_every_api_operation():
    labels = {operation.label for operation in operations()}
    assert {"POST /api/v1/corpus-imports/", "GET /api/v1/entries/{id}/", "POST /api/v1/run-cards/",
            "GET /api/v1/leaderboard/", "GET /api/v1/run-cards/{public_id}/results/"} <= labels
    assert len(labels) >= 16


def check_answer(case, response, role: str) -> None:
    """The project's own rules on top of schemathesis' checks: errors explain themselves, secrets stay put."""
    where = f"{case.method} {case.formatted_path} answered {response.status_code}"
    if role not in STEWARD_STAFF:
        assert SECRET_MARK.encode() not in response.content, f"{role} saw secret text: {where}"
    if not 400 <= response.status_code < 500:
        return
    if response.status_code == 404 and not routed(case.formatted_path):
        return  # no view was reached: Django's own "Not Found" page
    try:
        payload = json.loads(response.content)
    except ValueError:
        pytest.fail(f"{where} without a JSON body: {response.content[:200]!r}")
    assert says_what_was_wrong(payload), f"{where} with {payload!r}"


@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
def test_every_operation_holds_up_as(role, world):
    headers = {} if role == "anonymous" else {"Authorization": f"Token {world['tokens'][role]}"}
    seen: dict[str, set[int]] = {}

    for operation in operations():
        statuses = seen.setdefault(operation.label, set())

        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck), print_blob=True)
        @given(case=cases(operation, world))
        def exercise(case):
            response = case.call(headers=headers)
            if response.status_code != 404 or routed(case.formatted_path):
                # Django's own "Not Found" page (a path no view answers, such as a negative id) is no API answer.
                case.validate_response(response, checks=CHECKS, headers=headers)
            statuses.add(response.status_code)  # noqa: B023 - run within this iteration
            check_answer(case, response, role)

        exercise()

    assert len(seen) >= 16
    # The fuzzing reached real objects and real refusals, not only 404s.
    answered = set().union(*seen.values())
    assert 200 in answered and answered & {400, 401, 403, 404}
    writes = [label for label in seen if label.startswith("POST ")]
    if role == "anonymous":
        assert all(401 in seen[label] and not any(200 <= code < 300 for code in seen[label]) for label in writes)
    else:  # a signed-in user publishes run cards; the fixed card was stored (201) or already was (409)
        assert seen["POST /api/v1/run-cards/"] & {201, 409}
