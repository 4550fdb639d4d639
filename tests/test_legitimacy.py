"""Legitimacy of the leaderboard (benchmark specification §9.2, §9.3): disqualification of a card by its steward's
governance staff or a maintainer, of a method by maintainers; held_out entries scorable only once activated."""

import pytest

from corpus.models import Entry
from leaderboard.models import Disqualification, Method, RunCard
from leaderboard.services import LeaderboardError, RunCardRejected, disqualify, submit_run_card
from organizations.models import AuditEvent

from .cards import body, make_card, seal
from .conftest import activate_held_out, entry, member, published_version

pytestmark = pytest.mark.django_db

STANDARD = "standard/1"
METHOD = {"method_id": "lexicon-plus", "name": "Lexicon plus", "class": "pipeline", "description": "A lexicon.",
          "author": "A developer", "tools_used": [], "open_source": True, "dependency_class": "S",
          "supported_pairs": ["eng>crk"]}


@pytest.fixture
def version(steward):
    entries = ([entry(n, "development") for n in range(1, 9)] + [entry(n, "gold_standard") for n in range(9, 12)]
               + [entry(n, "held_out") for n in range(12, 15)])
    return published_version(steward, entries)


def public(version):
    return list(Entry.objects.filter(version=version, segment="development").order_by("position"))


def submit(version, user, slug, **options) -> RunCard:
    return submit_run_card(body=body(make_card(version, public(version), model_slug=slug, scoring_standard=STANDARD,
                                               **options)), actor=user)


def ranked_models(client, **params) -> list[str]:
    return [row["model"] for row in client.get("/api/v1/leaderboard/", {"ranking": "open", **params}).json()["results"]]


def install_read(client) -> list[dict]:
    answer = client.get("/supabase/rest/v1/run_cards", {"select": "model_slug,trust"})
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_the_steward_disqualifies_a_card_which_leaves_every_ranking_and_stays_readable(
        client, version, speaker, governance_user):
    cheat = submit(version, speaker, "cheat")
    submit(version, speaker, "honest", predict=lambda e: e.reference + " x")
    assert ranked_models(client) == ["cheat-2026", "honest-2026"]

    client.force_login(governance_user)
    page = client.get(f"/leaderboard/cards/{cheat.public_id}/").content.decode()
    assert "Disqualify this run card" in page
    answer = client.post(f"/leaderboard/cards/{cheat.public_id}/disqualify/",
                         {"reason": "Its outputs were copied from the development references."})
    assert answer.status_code == 302
    client.logout()

    assert ranked_models(client) == ["honest-2026"]
    assert "cheat-2026" not in client.get("/leaderboard/").content.decode()
    card_page = client.get(f"/leaderboard/cards/{cheat.public_id}/").content.decode()
    assert "Disqualified run card" in card_page and "copied from the development references" in card_page
    assert "Disqualify this run card" not in card_page
    assert install_read(client) == [{"model_slug": "honest", "trust": "verified"},
                                    {"model_slug": "cheat", "trust": "disqualified"}]
    event = AuditEvent.objects.get(action="run_card.disqualified")
    assert event.organization == version.dataset.organization and event.details["target"] == "run_card"
    assert event.details["run_id"] == cheat.run_id


def test_lifting_brings_it_back_with_its_reason_on_record(client, version, speaker, governance_user):
    card = submit(version, speaker, "cheat")
    found = disqualify(actor=governance_user, run_card=card, reason="Suspicious outputs.")
    client.force_login(governance_user)
    empty = client.post(f"/leaderboard/disqualifications/{found.pk}/lift/", {"reason": "  "}, follow=True)
    assert "Write the reason" in empty.content.decode()
    assert Disqualification.objects.get().lifted_at is None
    client.post(f"/leaderboard/disqualifications/{found.pk}/lift/", {"reason": "The developer explained the run."})
    client.logout()
    assert ranked_models(client) == ["cheat-2026"]
    found.refresh_from_db()
    assert found.lift_reason == "The developer explained the run." and found.lifted_by == governance_user
    assert AuditEvent.objects.filter(action="run_card.disqualification_lifted").count() == 1


def test_only_the_stewards_governance_staff_and_maintainers_disqualify_a_card(client, version, speaker, curator,
                                                                               outsider, other_org, maintainer):
    card = submit(version, speaker, "cheat")
    elsewhere = member("gov@other.example", other_org, "governance")
    for user in (speaker, curator, outsider, elsewhere):
        client.force_login(user)
        assert "Disqualify this run card" not in client.get(f"/leaderboard/cards/{card.public_id}/").content.decode()
        assert client.post(f"/leaderboard/cards/{card.public_id}/disqualify/", {"reason": "no"}).status_code == 404
        answer = client.post(f"/api/v1/run-cards/{card.public_id}/disqualification/", {"reason": "no"},
                             content_type="application/json")
        assert answer.status_code == 403
    assert not Disqualification.objects.exists()
    client.force_login(maintainer)
    answer = client.post(f"/api/v1/run-cards/{card.public_id}/disqualification/", {"reason": "Reproduction failed."},
                         content_type="application/json")
    assert answer.status_code == 201 and answer.json()["target"] == "run_card"
    again = client.post(f"/api/v1/run-cards/{card.public_id}/disqualification/", {"reason": "Twice."},
                        content_type="application/json")
    assert again.status_code == 409
    assert Disqualification.objects.count() == 1


def test_bad_disqualifications_are_refused_naming_the_field(version, speaker, governance_user):
    card = submit(version, speaker, "cheat")
    for reason, message in (("", "Write the reason"), ("   ", "Write the reason"), ("x" * 2001, "at most 2000"),
                            ("a\x00b", "cannot be stored")):
        with pytest.raises(LeaderboardError, match=message) as refused:
            disqualify(actor=governance_user, run_card=card, reason=reason)
        assert refused.value.field == "reason"
    with pytest.raises(LeaderboardError) as refused:
        disqualify(actor=governance_user, reason="Both.")
    assert refused.value.field == "target"
    assert not Disqualification.objects.exists() and not AuditEvent.objects.filter(
        action="run_card.disqualified").exists()


def test_a_maintainer_disqualifies_a_method_and_every_card_of_it_leaves(client, version, speaker, governance_user,
                                                                       maintainer):
    submit(version, speaker, "one", method_card=METHOD)
    submit(version, speaker, "two", method_card=METHOD, predict=lambda e: e.reference + " x")
    submit(version, speaker, "other")
    method = Method.objects.get(method_id="lexicon-plus")
    client.force_login(governance_user)
    refused = client.post("/api/v1/methods/lexicon-plus/disqualification/", {"reason": "no"},
                          content_type="application/json")
    assert refused.status_code == 403
    assert "Disqualify this method" not in client.get("/methods/lexicon-plus/").content.decode()
    client.force_login(maintainer)
    assert "Disqualify this method" in client.get("/methods/lexicon-plus/").content.decode()
    client.post("/leaderboard/methods/lexicon-plus/disqualify/", {"reason": "Trained on the gold standard."})
    assert Disqualification.objects.get().method == method
    client.logout()
    assert ranked_models(client) == ["other-2026"]
    assert "Disqualified method" in client.get("/methods/lexicon-plus/").content.decode()
    event = AuditEvent.objects.get(action="run_card.disqualified")
    assert event.organization is None and event.details["method_id"] == "lexicon-plus"


def test_held_out_entries_are_unknown_until_governance_activates_the_segment(version, governance_user):
    held_out = list(Entry.objects.filter(version=version, segment="held_out").order_by("position"))
    card = make_card(version, held_out, scoring_standard=STANDARD)
    with pytest.raises(RunCardRejected) as refused:
        submit_run_card(body=body(card), actor=governance_user)
    assert [str(problem) for problem in refused.value.problems] == [
        f"results[{index}].entry_id: no entry '{row.entry_id}' in test-en-crk 1.0" for index, row in
        enumerate(held_out)]
    activate_held_out(version)
    assert submit_run_card(body=body(card), actor=governance_user).status == "ready"


def declared(version, user, declaration) -> RunCard:
    card = make_card(version, public(version), scoring_standard=STANDARD, model_slug="declared")
    card["development_data"] = declaration
    return submit_run_card(body=body(seal(card)), actor=user)


def test_a_card_declares_which_development_entries_its_method_used(client, version, speaker):
    stored = declared(version, speaker, {"used": True, "uses": ["few-shot"], "entries": [1, "2"],
                                         "notes": "Two examples in the prompt."})
    assert stored.development_data == {"used": True, "uses": ["few-shot"], "entries": ["1", "2"],
                                       "notes": "Two examples in the prompt."}
    [row] = client.get("/api/v1/leaderboard/", {"ranking": "open"}).json()["results"]
    assert row["development_data"]["uses"] == ["few-shot"]
    assert "used development entries: few-shot" in client.get("/leaderboard/").content.decode()
    page = client.get(f"/leaderboard/cards/{stored.public_id}/").content.decode()
    assert "yes, for few-shot" in page and "Two examples in the prompt." in page
    other = submit(version, speaker, "silent")
    assert other.development_data is None
    assert "not declared" in client.get(f"/leaderboard/cards/{other.public_id}/").content.decode()


@pytest.mark.parametrize(("declaration", "path", "fragment"), [
    ({"used": "yes"}, "development_data.used", "expected true or false"),
    ({"used": True, "entries": "all"}, "development_data.uses", "one or more of"),
    ({"used": True, "uses": ["memorised"], "entries": "all"}, "development_data.uses[0]", "expected one of"),
    ({"used": True, "uses": ["retrieval"]}, "development_data.entries", "\"all\" or a list"),
    ({"used": True, "uses": ["retrieval"], "entries": ["1", 1]}, "development_data.entries[1]", "duplicate"),
    ({"used": False, "uses": ["retrieval"]}, "development_data.uses", "must be absent"),
    ({"used": True, "uses": ["retrieval"], "entries": ["9"]}, "development_data.entries[0]",
     "no development or diagnostic entry '9'"),  # a gold_standard entry is named like a missing one
    ({"used": True, "uses": ["retrieval"], "entries": ["404"]}, "development_data.entries[0]",
     "no development or diagnostic entry '404'"),
    ([], "development_data", "expected an object"),
])
def test_a_bad_declaration_is_refused_naming_its_path(version, speaker, declaration, path, fragment):
    with pytest.raises(RunCardRejected) as refused:
        declared(version, speaker, declaration)
    assert [problem.path for problem in refused.value.problems] == [path]
    assert fragment in refused.value.problems[0].message
    assert not RunCard.objects.exists()
