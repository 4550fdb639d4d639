"""The upstream harness's own CLI (`mt-eval`, PyPI mt-eval-harness 0.4.0, a test dependency) driven against a live
server of this site, as a harness user drives it with only MT_EVAL_SUPABASE_URL and a token: upstream's corpus shape
imported (its segment names mapped by the curator), its public download run with the harness's built-in lexicon
engine (no model, no network), published scores-only, completed with its per-entry rows, published again by a
second account with the same built-in method, and read back with the harness's own headers. Each command runs in a
subprocess with a HOME of its own and every address but this server's unreachable."""

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from accounts.models import User
from accounts.services import create_api_token
from corpus.models import DatasetVersion
from leaderboard import ranking, verification
from leaderboard.models import Method, RunCard

from .conftest import publish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

MT_EVAL = Path(sys.executable).with_name("mt-eval")
HARNESS_KEY = "sb_publishable_bV6CFNFnzxhQI0wlBx2J0A_5Vm5gFBp"
WORDS = [("hello", "tânisi"), ("dog", "atim"), ("dogs", "atimwak"), ("water", "nipiy"), ("bear", "maskwa"),
         ("duck", "sîsîp"), ("rabbit", "wâpos"), ("wolf", "mahihkan"), ("I see", "niwâpamâw"), ("the", "")]
SENTENCES = [
    ("hello", "tânisi"), ("dog", "atim"), ("dogs", "atimwak"), ("water", "nipiy"), ("bear", "maskwa"),
    ("duck", "sîsîp"), ("rabbit", "wâpos"), ("wolf", "mahihkan"), ("I see the dog", "niwâpamâw atim"),
    ("I see the bear", "niwâpamâw maskwa"), ("I see the wolf", "niwâpamâw mahihkan"),
    ("I see the duck", "niwâpamâw sîsîp"), ("the dogs drink water", "atimwak minihkwêwak nipiy"),
    ("the bear eats", "maskwa mîcisow"), ("the rabbit runs", "wâpos pimipahtâw"), ("hello, wolf", "tânisi, mahihkan"),
]


def upstream_corpus() -> list[dict]:
    """A bare list as upstream's example corpus writes it: its own segment names, no envelope."""
    segments = ("basic", "intermediate", "advanced")
    return [{"id": index + 1, "source": source, "reference": reference, "segment": segments[index % 3],
             "difficulty": 1 + index % 3} for index, (source, reference) in enumerate(SENTENCES)]


@pytest.fixture
def site(live_server, settings, steward, curator, client) -> DatasetVersion:
    """The upstream corpus imported through the API, its segment names mapped (advanced entries kept secret)."""
    settings.HARNESS_RATES = {scope: "1000/min" for scope in settings.HARNESS_RATES}
    client.force_login(curator)
    answer = client.post(
        "/api/v1/corpus-imports/?org=steward&dataset_id=upstream-example&dataset_version=1.0&source_language=en"
        "&target_language=crk&created=2026-05-01&license=CC-BY-4.0"
        "&segment_map=basic=development,intermediate=diagnostic,advanced=held_out",
        json.dumps(upstream_corpus(), ensure_ascii=False).encode(), content_type="application/json")
    assert answer.status_code == 201, answer.json()
    version = DatasetVersion.objects.get(pk=answer.json()["version"]["id"])
    publish(version.dataset)
    return version


def harness_env(home: Path, server: str, **extra: str) -> dict[str, str]:
    """The environment of a harness user: a HOME of their own, this site as their Supabase, nothing else reachable."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MT_EVAL_", "CHAMPOLLION_"))}
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), MT_EVAL_SUPABASE_URL=f"{server}/supabase", PYTHONIOENCODING="utf-8",
               HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1,localhost",
               HF_HUB_OFFLINE="1", **extra)
    return env


def mt_eval(env: dict[str, str], cwd: Path, *args: str) -> str:
    """Run the harness's CLI; its output (stdout and stderr together) once it succeeded."""
    done = subprocess.run([str(MT_EVAL), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return output


def install_read(server: str, query: str) -> list[dict]:
    """GET run_cards with the harness's own headers (its public key as apikey and Bearer token)."""
    request = urllib.request.Request(f"{server}/supabase/rest/v1/run_cards?{query}",
                                     headers={"apikey": HARNESS_KEY, "Authorization": f"Bearer {HARNESS_KEY}"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=30) as answer:
        return json.loads(answer.read())


def run_lexicon(env: dict[str, str], folder: Path, server: str, version: DatasetVersion, words) -> Path:
    """Download the version's public file from the site, run the built-in lexicon engine on it: its report."""
    folder.mkdir()
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
            f"{server}/datasets/versions/{version.pk}/export.json?public=1", timeout=30) as answer:
        (folder / "corpus.json").write_bytes(answer.read())
    (folder / "words.tsv").write_text("".join(f"{s}\t{t}\n" for s, t in words if t), encoding="utf-8")
    mt_eval(env, folder, "run", "--non-interactive", "--corpus", "corpus.json", "--method", "lexicon", "-m",
            "words.tsv", "-o", "out", "-y")
    [report] = (folder / "out").glob("*_report.json")
    return report


def test_a_harness_user_runs_publishes_completes_and_reads_back(site, live_server, tmp_path):
    server = live_server.url
    developer = User.objects.create_user("developer@example.org")
    key = create_api_token(actor=developer)[1]
    env = harness_env(tmp_path / "home", server, MT_EVAL_REFRESH_TOKEN=key)

    report = run_lexicon(env, tmp_path / "first", server, site, WORDS)
    claimed = json.loads(report.read_text(encoding="utf-8"))["overall"]["corpus_chrf"]

    # A default publication: the scores only, listed unverified, under a pseudonym — never the e-mail address.
    published = mt_eval(env, report.parent.parent, "publish", str(report), "--yes")
    assert "Published to leaderboard" in published and developer.email not in published
    assert f"Authenticated as {developer.public_label}" in published
    card = RunCard.objects.get()
    assert card.status == "unverified" and card.method.method_id == "lexicon"
    [row] = install_read(server, "select=id,submitter,trust,unverified,chrf_plus_plus,language_pair")
    assert row == {"id": str(card.public_id), "submitter": developer.public_label, "trust": "unverified",
                   "unverified": True, "chrf_plus_plus": claimed, "language_pair": "eng>crk"}

    # Read as anyone, the run is published: the harness says so and sends nothing.
    again = mt_eval(env, report.parent.parent, "publish", str(report), "--yes", "--publish-entries")
    assert "already on the leaderboard" in again and RunCard.objects.get().status == "unverified"

    # With the account's token as the harness's key too, its own unverified card is completed with its rows.
    env["MT_EVAL_SUPABASE_ANON_KEY"] = key
    completed = mt_eval(env, report.parent.parent, "publish", str(report), "--yes", "--publish-entries")
    assert "entries published" in completed
    card = RunCard.objects.get()
    assert card.status == "ready" and card.discrepancies == [] and not card.primary_recomputed
    assert card.leaderboard_chrf_plus_plus == claimed and card.result_count == 11  # the public entries
    [row] = install_read(server, f"id=eq.{card.public_id}&select=id,submitter,submitted_at,trust")
    assert row["trust"] == "verified"
    [row] = install_read(server, "select=fingerprint_hash,chrf_ci_lower,chrf_ci_upper,run_card")
    own = json.loads(card.raw)
    assert row["fingerprint_hash"] == own["fingerprint"]["hash"] and own["fingerprint"]["version"] == 2
    interval = own["scores"]["confidence_intervals"]["corpus_chrf"]
    assert (row["chrf_ci_lower"], row["chrf_ci_upper"]) == (interval["ci_lower"], interval["ci_upper"])
    # The interval this site computes when it recomputes one is the harness's own, for the same outputs.
    scored = [{"expected": result.entry.reference, "predicted": result.predicted, "error": result.error}
              for result in card.results.select_related("entry").order_by("position")]
    rows = ranking.statistics_matrix(verification.entry_statistics(scored))[0]
    assert ranking.chrf_interval(rows) == (interval["ci_lower"], interval["ci_upper"])

    # A second account publishes a run of the same built-in engine, with a dictionary of its own.
    other = User.objects.create_user("second@example.org")
    other_key = create_api_token(actor=other)[1]
    other_env = harness_env(tmp_path / "other-home", server, MT_EVAL_REFRESH_TOKEN=other_key,
                            MT_EVAL_SUPABASE_ANON_KEY=other_key)
    other_report = run_lexicon(other_env, tmp_path / "second", server, site, WORDS[:5])
    shared = mt_eval(other_env, other_report.parent.parent, "publish", str(other_report), "--yes",
                     "--publish-entries")
    assert "belongs to another submitter" not in shared and "entries published" in shared
    assert RunCard.objects.filter(status="ready", method=Method.objects.get(method_id="lexicon")).count() == 2

    # The queue runner's coverage read, with the harness's headers and operators.
    covered = install_read(server, "select=dataset_id,model_slug,condition&trust=neq.disqualified&limit=1000"
                                   "&offset=0&order=id.asc")
    assert {(row["dataset_id"], row["model_slug"]) for row in covered} == {("upstream-example", "lexicon")}
    assert len(covered) == 2
    everything = json.dumps(install_read(server, "select=*"), ensure_ascii=False)
    assert developer.email not in everything and other.email not in everything
