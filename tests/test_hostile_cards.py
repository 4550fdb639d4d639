"""Hostile run cards, sent as an attacker with a publish token would send them: repeated member names (which JSON
readers read differently), secret text in disguise (compatibility forms, invisible characters, look-alike letters,
cut across fields, a long piece of it, encoded), and bodies built to cost a worker memory (millions of tiny values,
huge strings, more rows than the version holds entries, a million problems). Each is refused with the JSON path at
fault and nothing is stored; a card stored before repeated names were refused no longer breaks the install read."""

import base64
import html
import json
import tracemalloc
import unicodedata
import urllib.parse

import pytest

from accounts.services import create_api_token
from common.problems import MAX_LISTED_PROBLEMS
from corpus.models import DatasetVersion, Entry
from corpus.selectors import version_hash
from leaderboard.card_json import COUNT_CHUNK, HEAD_MAX_BYTES, METHOD_CONFIG_MAX_BYTES, STRING_MAX_BYTES
from leaderboard.leaks import MIN_SHARED_TEXT, SecretTextIndex, skeleton
from leaderboard.models import RunCard
from leaderboard.services import RunCardRejected, submit_run_card
from submissions.models import HarnessIntake, HarnessIntakeEntry

from .cards import body, make_card, seal
from .conftest import entry, published_version, shared_fixture
from .harness_fixtures import card_row, entry_batches, harness_card

pytestmark = pytest.mark.django_db
URL = "/api/v1/run-cards/"
HARNESS = "/supabase/rest/v1"
GOLD_TEXT = "niwâpamâw atim ekwa minôs"
# A long secret reference whose first part is also a public entry's text (the version publishes that sentence).
PUBLIC_PART = "the elders gathered by the river to share the stories of the first snowfall"
SECRET_TAIL = (" and the children listened until the fire burned down to embers and the stars came out over the "
               "frozen lake near the old trading post")
LONG_GOLD = PUBLIC_PART + SECRET_TAIL


@shared_fixture
def version(steward):
    entries = [entry(n, "development", domain="medical") for n in range(1, 6)]
    entries += [{"id": 6, "source": "the story", "reference": PUBLIC_PART, "segment": "development"},
                {"id": 100, "source": "I see the dog and the cat", "reference": GOLD_TEXT, "segment": "gold_standard"},
                {"id": 101, "source": "tell the story of the winter", "reference": LONG_GOLD,
                 "segment": "gold_standard"}]
    return published_version(steward, entries)


def development(version):
    return list(Entry.objects.filter(version=version, segment="development").order_by("position")[:5])


def pinned(card, user):
    named = card["dataset"]
    version = DatasetVersion.objects.get(dataset__identifier=named["id"], version=named["version"])
    card["dataset"]["sha256"] = version_hash(user, version).value
    return seal(card)


def post(client, user, data: bytes):
    client.force_login(user)
    return client.post(URL, data, content_type="application/json")


def refused(response, status, *paths):
    assert response.status_code == status, response.content[:500]
    payload = response.json()
    assert [problem["path"] for problem in payload["problems"]] == list(paths), payload
    text = json.dumps(payload, ensure_ascii=False)
    assert skeleton(GOLD_TEXT) not in skeleton(text) and skeleton(SECRET_TAIL[:60]) not in skeleton(text)
    assert RunCard.objects.count() == 0 and not HarnessIntake.objects.exists()
    return payload


def with_repeated(text: str, member: str, first: str, second: str) -> str:
    """`text` (a card as body() writes it) with the object `member` opening on a name given twice."""
    opening = f'"{member}": {{'
    at = text.index(opening) + len(opening)
    comma = "" if text[at:].lstrip().startswith("}") else ", "
    return f'{text[:at]}"p": {json.dumps(first)}, "p": {json.dumps(second)}{comma}{text[at:]}'


# --- repeated member names -----------------------------------------------------------------------------------

def test_a_repeated_member_name_cannot_hide_a_secret_behind_the_value_json_loads_keeps(client, version, speaker):
    text = body(pinned(make_card(version, development(version)), speaker)).decode()
    payload = refused(post(client, speaker, with_repeated(text, "method_config", GOLD_TEXT, "benign").encode()),
                      400, "method_config.p")
    assert "named 2 times in one object" in payload["problems"][0]["message"]


def test_repeated_names_are_refused_anywhere_in_a_card_each_at_its_path(client, version, speaker):
    card = make_card(version, development(version))
    card["results"][2]["plugin_metrics"] = {"fst": {}}
    text = body(pinned(card, speaker)).decode()
    text = text.replace('"run_id": ', '"notes": "a", "notes": "x", "run_id": ', 1)
    text = with_repeated(text, "fst", "one", "two")
    refused(post(client, speaker, text.encode()), 400, "notes", "results[2].plugin_metrics.fst.p")


def test_repeated_names_are_refused_in_a_card_sent_with_its_entries_beside_it(client, version, speaker):
    card, rows = harness_card(version, development(version))
    text = json.dumps({"run_card": card, "entries": rows}, ensure_ascii=False)
    text = with_repeated(text, "method_config", GOLD_TEXT, "x")
    named = f'"entry_id": "{rows[1]["entry_id"]}"'
    text = text.replace(named, f'{named}, "x": 1, "x": 2', 1)
    refused(post(client, speaker, text.encode()), 400, "run_card.method_config.p", "entries[1].x")


@shared_fixture
def token(speaker):
    return create_api_token(actor=speaker)[1]


def harness_post(client, path, raw: bytes, key):
    return client.post(f"{HARNESS}/{path}", raw, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {key}")


def test_the_harness_refuses_repeated_names_in_its_card_its_columns_and_its_entry_rows(client, version, token):
    card, rows = harness_card(version, development(version))
    row = card_row(card)
    text = with_repeated(json.dumps(row, ensure_ascii=False), "method_config", GOLD_TEXT, "x")
    answer = harness_post(client, "run_cards", text.encode(), token)
    assert answer.status_code == 400 and answer.json()["code"] == "PGRST102"
    assert "run_card.method_config.p: this member is named 2 times" in answer.json()["message"]
    columns = json.dumps(row).replace('"submitter": ', '"submitter": "someone else", "submitter": ', 1)
    assert harness_post(client, "run_cards", columns.encode(), token).status_code == 400
    assert not HarnessIntake.objects.exists()

    assert harness_post(client, "run_cards", json.dumps(row).encode(), token).status_code == 201
    batch = json.dumps(entry_batches(row["id"], rows)[0]).replace('"predicted": ', '"predicted": "a", "predicted": ', 1)
    answer = harness_post(client, "run_card_entries", batch.encode(), token)
    assert answer.status_code == 400 and "[0].predicted" in answer.json()["message"]
    assert not HarnessIntakeEntry.objects.exists()


def test_a_card_stored_with_repeated_names_before_they_were_refused_is_served_as_it_was_scanned(
        client, version, speaker):
    """Its text as stored names members twice: the install read answers (it broke on it) and, like the method-config
    download, serves the value json.loads read — the one the secret-text scan checked — never the other."""
    card = pinned(make_card(version, development(version)), speaker)
    assert post(client, speaker, body(card)).status_code == 201
    stored = RunCard.objects.get()
    raw = with_repeated(stored.raw.replace('"run_id": ', '"notes": "a", "notes": "x", "run_id": ', 1),
                        "method_config", GOLD_TEXT, "benign")
    config = f'{{"p": {json.dumps(GOLD_TEXT)}, "p": "benign", {stored.method_config[1:]}'
    RunCard.objects.filter(pk=stored.pk).update(raw=raw, method_config=config)

    listed = client.get(f"{HARNESS}/run_cards?select=*")
    assert listed.status_code == 200, listed.content[:300]
    served = listed.json()[0]["run_card"]
    assert served["notes"] == "x" and served["method_config"]["p"] == "benign"
    assert GOLD_TEXT not in listed.content.decode()
    download = client.get(f"/api/v1/leaderboard/{stored.public_id}/method-config/")
    assert download.status_code == 200 and json.loads(download.content)["p"] == "benign"
    assert GOLD_TEXT not in download.content.decode()


# --- secret text in disguise ---------------------------------------------------------------------------------

def fullwidth(text):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def mathematical(text):
    return "".join(chr(0x1D41A + ord(c) - ord("a")) if "a" <= c <= "z" else c for c in text)


def cyrillic(text):
    return text.translate(str.maketrans("aeopcxi", "аеорсхі"))


def greek_capitals(text):
    return text.upper().translate(str.maketrans("ABEHIKMNOPTXYZ", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖ"))


def percent(text):
    return urllib.parse.quote(text, safe="")


DISGUISES = {
    "full-width": fullwidth,
    "mathematical letters": mathematical,
    "zero-width spaces": lambda text: "\u200b".join(text),
    "soft hyphens and joiners": lambda text: "\u00ad\u2060".join(text.split(" ")).replace("w", "w\u200d"),
    "variation selectors and tags": lambda text: "\ufe0f".join(text) + "\U000e0041",
    "cyrillic look-alikes": cyrillic,
    "greek capitals": greek_capitals,
    "combining marks": lambda text: "".join(c + "\u0301\u0332" for c in unicodedata.normalize("NFD", text)),
    "punctuation between letters": lambda text: ".".join(text),
    "spelt out": lambda text: " ".join(text.replace(" ", "")),
    "base64": lambda text: base64.b64encode(text.encode()).decode(),
    "base64 of several lines": lambda text: base64.b64encode(f"first line\n{text}\r\n\tlast".encode()).decode(),
    "urlsafe base64 without padding": lambda text: base64.urlsafe_b64encode(text.encode()).decode().rstrip("="),
    "hexadecimal": lambda text: text.encode().hex(),
    "percent-encoded": percent,
    "html references": lambda text: "".join(f"&#{ord(c)};" for c in text),
    "\\u escapes": lambda text: "".join(f"\\u{ord(c):04x}" for c in text),
    "base64 of percent-encoding": lambda text: base64.b64encode(percent(text).encode()).decode(),
}


@pytest.mark.parametrize("disguise", list(DISGUISES.values()), ids=list(DISGUISES))
def test_a_disguised_secret_is_still_found(client, version, governance_user, disguise):
    card = make_card(version, development(version))
    card["method_config"]["coachingPrompt"] = f"Use this: {disguise(GOLD_TEXT)}"
    assert GOLD_TEXT not in card["method_config"]["coachingPrompt"]
    refused(post(client, governance_user, body(pinned(card, governance_user))), 400, "method_config.coachingPrompt")


def test_a_secret_cut_across_two_neighbouring_fields_is_found_at_both(client, version, governance_user):
    card = make_card(version, development(version))
    card["method_config"]["exampleStart"] = "remember: " + GOLD_TEXT[:11]
    card["method_config"]["exampleEnd"] = GOLD_TEXT[11:] + " (end)"
    refused(post(client, governance_user, body(pinned(card, governance_user))), 400,
            "method_config.exampleStart", "method_config.exampleEnd")


@pytest.mark.parametrize("start", [len(PUBLIC_PART) + 1, 100])
def test_a_long_piece_of_a_secret_is_found(client, version, speaker, start):
    piece = LONG_GOLD[start:start + 80]
    assert len(skeleton(piece).replace(" ", "")) >= MIN_SHARED_TEXT
    card = make_card(version, development(version))
    card["method_config"]["notes"] = f"as they say, {piece.upper()} — a saying"
    refused(post(client, speaker, body(pinned(card, speaker))), 400, "method_config.notes")


@pytest.mark.parametrize("quoted", [
    PUBLIC_PART,  # a public entry's text, which the secret quotes
    PUBLIC_PART + SECRET_TAIL[:6],  # and a word the card happens to add to it
    SECRET_TAIL[20:50],  # a piece shorter than MIN_SHARED_TEXT letters
    "the children listened and the fire burned down",  # ordinary words the secret also uses
], ids=["public part", "public part and a word", "short piece", "ordinary words"])
def test_what_the_public_entries_explain_and_short_pieces_are_no_leak(client, version, speaker, quoted):
    card = make_card(version, development(version))
    card["method_config"]["notes"] = quoted
    answer = post(client, speaker, body(pinned(card, speaker)))
    assert answer.status_code == 201, answer.content


def test_public_part_and_a_long_secret_continuation_is_a_leak(client, version, speaker):
    card = make_card(version, development(version))
    card["method_config"]["notes"] = PUBLIC_PART + SECRET_TAIL[:60]
    refused(post(client, speaker, body(pinned(card, speaker))), 400, "method_config.notes")


def test_outputs_on_secret_entries_are_looked_for_whole_not_by_pieces():
    output = "I am sorry, but I cannot translate this sentence into the requested language right now."
    index = SecretTextIndex([], outputs=[output])
    assert index.found_in(f"model said: {output.lower()}")
    assert not index.found_in(output[:70])
    assert SecretTextIndex([output]).found_in(output[:70]), "the same text as an entry's is looked for by pieces"


def test_the_refusal_of_a_disguised_secret_is_audited_with_its_paths_only(client, version, speaker):
    card = make_card(version, development(version))
    card["condition"] = base64.b64encode(GOLD_TEXT.encode()).decode()
    refused(post(client, speaker, body(pinned(card, speaker))), 400, "condition")
    from organizations.models import AuditEvent

    [event] = AuditEvent.objects.filter(action="run_card.secret_text_refused")
    assert event.details["paths"] == ["condition"]


# --- memory: bounded before anything is built ----------------------------------------------------------------

def peak_of(operation) -> tuple[object, int]:
    tracemalloc.start()
    try:
        try:
            result: object = operation()
        except RunCardRejected as error:
            result = error
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


HOSTILE_BODIES = {
    "empty arrays": lambda n: b"[" + b"[]," * n + b"[]]",
    "empty objects in results": lambda n: b'{"results": [' + b"{}," * n + b"{}]}",
    "one-member rows": lambda n: b'{"results": [' + b",".join(b'{"entry_id": "%d"}' % i for i in range(n)) + b"]}",
    "escaped quotes": lambda n: b'{"run_id": "\\"\\\\", "results": [' + b"[]," * n + b"[]]}",
}


@pytest.mark.parametrize("shape", list(HOSTILE_BODIES), ids=list(HOSTILE_BODIES))
def test_a_body_of_too_many_values_is_refused_before_they_are_built(speaker, settings, shape):
    """At the default limit (a million values): counted a chunk at a time, the body held once more at most."""
    data = HOSTILE_BODIES[shape](settings.RUN_CARD_MAX_VALUES)
    error, peak = peak_of(lambda: submit_run_card(body=data, actor=speaker))
    assert isinstance(error, RunCardRejected) and error.http_status == 413
    assert "JSON values" in error.problems[0].message and "the limit is 1,000,000" in error.problems[0].message
    assert peak < len(data) + 8 * COUNT_CHUNK, (peak, len(data))
    assert not RunCard.objects.exists()


def test_a_string_longer_than_a_megabyte_is_refused_before_it_is_decoded(speaker):
    """Decoded, one emoji makes every character of a string four bytes: such a string is refused from its bytes."""
    card = {"run_id": "x", "results": [{"entry_id": "1", "notes": "😀" + "a" * STRING_MAX_BYTES}]}
    data = json.dumps(card, ensure_ascii=False).encode()
    opening = data.index("😀".encode()) - 1
    error, peak = peak_of(lambda: submit_run_card(body=data, actor=speaker))
    assert isinstance(error, RunCardRejected) and error.http_status == 413
    assert error.problems[0].message == (f"holds a string of {STRING_MAX_BYTES + 6:,} bytes of JSON at byte offset "
                                         f"{opening:,}; a string may hold {STRING_MAX_BYTES:,}")
    assert peak < len(data) + 8 * COUNT_CHUNK, (peak, len(data))


def test_commas_and_brackets_inside_strings_are_not_values(speaker, settings):
    settings.RUN_CARD_MAX_VALUES = 100
    data = json.dumps({"run_id": ",[{" * 1000, "notes": ["a,b", "\\\",{["]}).encode()
    error, _ = peak_of(lambda: submit_run_card(body=data, actor=speaker))
    assert isinstance(error, RunCardRejected) and error.http_status == 400, error.problems[:3]


def test_within_the_value_limit_a_worker_holds_under_ten_times_the_largest_card(speaker, settings, version):
    """The limits scaled down together (bytes and values in the default ratio, 1 MiB and 31,250 values): the worst
    shapes a body may take within them stay under ten times the largest card a body may be."""
    settings.RUN_CARD_MAX_BYTES = 1 << 20
    settings.RUN_CARD_MAX_VALUES = 31_250
    for data in (HOSTILE_BODIES["one-member rows"](15_000), HOSTILE_BODIES["empty objects in results"](15_000)):
        assert len(data) <= settings.RUN_CARD_MAX_BYTES
        error, peak = peak_of(lambda data=data: submit_run_card(body=data, actor=speaker))
        assert isinstance(error, RunCardRejected) and error.http_status == 400
        assert len(error.problems) <= MAX_LISTED_PROBLEMS + 1
        assert peak < 10 * settings.RUN_CARD_MAX_BYTES, peak


def test_more_rows_than_the_version_holds_entries_are_refused_at_once(client, version, speaker):
    card = make_card(version, development(version))
    card["results"] += [{"entry_id": f"x{n}"} for n in range(5000)]
    card["dataset"]["entry_count"] = len(card["results"])
    payload = refused(post(client, speaker, body(pinned(card, speaker))), 400, "results")
    assert payload["problems"][0]["message"] == (f"holds 5,005 rows; {version.dataset.identifier} {version.version} "
                                                  f"holds 8 entries, and a card scores each at most once")


def test_a_refusal_lists_a_few_hundred_problems_and_counts_the_rest(client, version, speaker):
    card = make_card(version, development(version))
    card["results"] = [{"entry_id": str(n), "exact_match": "yes", "chrf_score": -1} for n in range(1000)]
    card["dataset"]["entry_count"] = 1000
    payload = post(client, speaker, body(pinned(card, speaker))).json()
    problems = payload["problems"]
    assert len(problems) == MAX_LISTED_PROBLEMS + 1
    assert problems[0]["path"] == "results[0].exact_match"
    assert problems[-1] == {"path": "", "message": f"and {2000 - MAX_LISTED_PROBLEMS:,} more problems, not listed "
                                                   f"(at most {MAX_LISTED_PROBLEMS} are); correct these and send it "
                                                   "again"}


def test_method_config_and_the_card_outside_its_results_have_a_size(client, version, speaker):
    card = make_card(version, development(version))
    card["method_config"]["coachingPrompt"] = "x" * METHOD_CONFIG_MAX_BYTES
    payload = refused(post(client, speaker, body(pinned(card, speaker))), 413, "method_config")
    assert f"the limit is {METHOD_CONFIG_MAX_BYTES:,}" in payload["problems"][0]["message"]

    card = make_card(version, development(version))
    card["notes"] = "y" * (HEAD_MAX_BYTES + 1)
    refused(post(client, speaker, body(pinned(card, speaker))), 413, "notes")

    card = make_card(version, development(version))
    card["notes"], card["more_notes"] = "y" * (HEAD_MAX_BYTES // 2), "z" * (HEAD_MAX_BYTES // 2)
    payload = refused(post(client, speaker, body(pinned(card, speaker))), 413, "")
    assert "the largest members: notes" in payload["problems"][0]["message"]


def test_the_harness_bounds_its_rows_and_batches(client, version, token, settings):
    card, rows = harness_card(version, development(version))
    row = card_row(card)
    row["notes"] = "n" * HEAD_MAX_BYTES
    answer = harness_post(client, "run_cards", json.dumps(row).encode(), token)
    assert answer.status_code == 413 and "its columns but run_card" in answer.json()["message"]
    del row["notes"]
    assert harness_post(client, "run_cards", json.dumps(row).encode(), token).status_code == 201

    too_many = [{**rows[0], "run_card_id": row["id"], "entry_id": str(n)} for n in range(6)]
    answer = harness_post(client, "run_card_entries", json.dumps(too_many).encode(), token)
    assert answer.status_code == 409 and "this batch alone holds 6 different entry rows" in answer.json()["message"]
    many_cards = [{**rows[0], "run_card_id": f"00000000-0000-4000-8000-{n:012d}"} for n in range(101)]
    answer = harness_post(client, "run_card_entries", json.dumps(many_cards).encode(), token)
    assert answer.status_code == 400 and "rows for 101 run cards in one batch" in answer.json()["message"]
    bad = [{"run_card_id": row["id"], "entry_id": None} for _ in range(30)]
    answer = harness_post(client, "run_card_entries", json.dumps(bad).encode(), token)
    assert answer.status_code == 400 and answer.json()["message"].startswith("run_card_entries: 30 of 30 rows")
    assert answer.json()["details"].count("row ") == 20
    settings.RUN_CARD_MAX_VALUES = 1000
    answer = harness_post(client, "run_card_entries", b"[" + b"{}," * 2000 + b"{}]", token)
    assert answer.status_code == 413 and answer.json()["code"] == "PGRST413"
    assert not HarnessIntakeEntry.objects.exists()


def test_html_escaped_text_is_read_decoded():
    assert SecretTextIndex([GOLD_TEXT]).found_in(html.escape(GOLD_TEXT).replace("â", "&acirc;"))


# --- labels that would hide part of themselves or turn the page's own words around ---------------------------------

@pytest.mark.parametrize("field, character", [("model_slug", "\u202e"), ("condition", "\u2067"), ("model_id", "\u200b"),
                                              ("run_id", "\x85"), ("model_slug", "\U000e0041"), ("condition", "\u00ad"),
                                              ("model_id", "\u3164")])
def test_a_label_with_an_invisible_or_direction_changing_character_is_refused_at_its_path(
        client, version, speaker, field, character):
    """A right-to-left override in a model's name would show the rest of the card's heading reversed."""
    card = make_card(version, development(version))
    card[field] = f"benign{character}ledom"
    payload = refused(post(client, speaker, body(pinned(card, speaker))), 400, field)
    assert f"U+{ord(character):04X}" in payload["problems"][0]["message"]


def test_a_method_cards_name_or_author_that_turns_the_page_around_is_refused(client, version, speaker):
    method_card = {"method_id": "crk-coached", "name": "Coached\u202e", "author": "\u2066Someone",
                   "class": "coached-llm", "dependency_class": "S"}
    card = make_card(version, development(version), method_card=method_card,
                     manifest={"dependency_class": "S", "dependencies": []})
    payload = refused(post(client, speaker, body(pinned(card, speaker))), 400, "method_card.name",
                      "method_card.author")
    assert "U+202E" in payload["problems"][0]["message"] and "U+2066" in payload["problems"][1]["message"]


def test_a_cards_method_heads_its_page_isolated_from_the_sentence_after_it(client, version, speaker):
    response = post(client, speaker, body(pinned(make_card(version, development(version)), speaker)))
    assert response.status_code == 201, response.content[:300]
    page = client.get(f"/leaderboard/cards/{RunCard.objects.get().public_id}/").content.decode()
    assert "<h1><bdi>" in page
