"""Limits: the run-card body is measured before it is read, the API is rate limited (a stricter scope for
run-card submission), production warns without a shared cache, and hostile XLSX uploads to the bulk import
are reported problems, never a server error nor an expanded XML entity."""

import io
import random
import zipfile

import openpyxl
import pytest
from django.core.checks.registry import registry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import User
from accounts.services import create_api_token
from config import checks
from corpus import bulk
from corpus.models import StagedImport
from corpus.validation import CorpusFileError

from .test_deploy import load_settings as load_deploy_settings
from .test_deploy import production_env, run

pytestmark = pytest.mark.django_db

SHEET = "xl/worksheets/sheet1.xml"
RUN_CARDS = "/api/v1/run-cards/"


class CountingStream(io.BytesIO):
    """A WSGI input that remembers how many bytes the application read from it."""

    bytes_read = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        self.bytes_read += len(line)
        return line


@pytest.fixture
def developer(db):
    return User.objects.create_user(email="developer@example.org", password="x")


@pytest.fixture
def token(developer) -> str:
    return create_api_token(actor=developer, name="limits test")[1]


def auth(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Token {token}"}


# ---------------------------------------------------------------- run-card body size


def test_a_declared_oversize_run_card_is_refused_without_reading_it(client, token, settings):
    settings.RUN_CARD_MAX_BYTES = 1024
    stream = CountingStream(b'{"run_id": "small"}')
    response = client.post(RUN_CARDS, content_type="application/json", CONTENT_LENGTH="5000000",
                           **{"wsgi.input": stream}, **auth(token))
    assert response.status_code == 413, response.content
    assert response.json()["detail"].startswith("the run card is 5,000,000 bytes (Content-Length)")
    assert "the limit is 1,024 bytes" in response.json()["detail"]
    assert stream.bytes_read == 0


def test_a_run_card_without_content_length_is_cut_off_at_the_limit(client, token, settings):
    """A chunked body (the server marks its input as ending with the body) is read in chunks and refused as
    soon as it crosses the limit: the rest is never read, let alone held in memory."""
    settings.RUN_CARD_MAX_BYTES = 1024
    stream = CountingStream(b"{" + b" " * 10_000_000 + b"}")
    response = client.post(RUN_CARDS, b"", content_type="application/json", CONTENT_TYPE="application/json",
                           **{"wsgi.input": stream, "wsgi.input_terminated": True}, **auth(token))
    assert "CONTENT_LENGTH" not in response.wsgi_request.META
    assert response.status_code == 413, response.content
    assert "more than the limit of 1,024 bytes" in response.json()["detail"]
    assert stream.bytes_read < 200_000


def test_a_small_run_card_without_content_length_is_read_whole(client, token, settings):
    settings.RUN_CARD_MAX_BYTES = 1024
    stream = CountingStream(b'{"run_id": 1}')
    response = client.post(RUN_CARDS, b"", content_type="application/json", CONTENT_TYPE="application/json",
                           **{"wsgi.input": stream, "wsgi.input_terminated": True}, **auth(token))
    assert response.status_code == 400  # read, parsed and judged: not a card
    assert response.json()["problems"] and stream.bytes_read == len(b'{"run_id": 1}')


# ---------------------------------------------------------------- throttling


@pytest.fixture
def rates(monkeypatch):
    """Set throttle rates for one test (DRF's throttles keep the rates dict they were imported with)."""
    def set_rates(**values: str) -> None:
        for scope, rate in values.items():
            monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)
    return set_rates


def test_run_card_submission_is_throttled_per_user_with_retry_after(client, token, rates):
    rates(run_card_submit="3/min")
    answers = [client.post(RUN_CARDS, b"{}", content_type="application/json", **auth(token)).status_code
               for _ in range(4)]
    assert answers == [400, 400, 400, 429]
    refused = client.post(RUN_CARDS, b"{}", content_type="application/json", **auth(token))
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert "available in" in refused.json()["detail"]
    # Reading is not submitting: the same user still reads run cards and the leaderboard.
    assert client.get(f"{RUN_CARDS}00000000-0000-0000-0000-000000000000/", **auth(token)).status_code == 404
    assert client.get("/api/v1/leaderboard/", **auth(token)).status_code == 200
    assert client.get(RUN_CARDS, **auth(token)).status_code == 405


def test_the_run_card_scope_counts_each_user_separately(client, token, rates):
    rates(run_card_submit="1/min")
    other = create_api_token(actor=User.objects.create_user(email="other@example.org"), name="other")[1]
    assert client.post(RUN_CARDS, b"{}", content_type="application/json", **auth(token)).status_code == 400
    assert client.post(RUN_CARDS, b"{}", content_type="application/json", **auth(token)).status_code == 429
    assert client.post(RUN_CARDS, b"{}", content_type="application/json", **auth(other)).status_code == 400


def test_anonymous_requests_are_throttled(client, rates):
    rates(anon="2/min")
    answers = [client.get("/api/v1/datasets/").status_code for _ in range(3)]
    assert answers == [200, 200, 429]
    assert int(client.get("/api/v1/datasets/")["Retry-After"]) > 0


def test_signed_in_requests_are_throttled(client, token, rates):
    rates(user="2/min")
    answers = [client.get("/api/v1/datasets/", **auth(token)).status_code for _ in range(3)]
    assert answers == [200, 200, 429]


def test_anonymous_requests_count_against_the_anonymous_rate_only(client, rates):
    rates(anon="3/min", user="1/min")
    answers = [client.get("/api/v1/datasets/").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]


def load_settings(monkeypatch, **env: str) -> dict:
    for name in ("API_THROTTLE_ANON", "API_THROTTLE_USER", "API_THROTTLE_RUN_CARD_SUBMIT"):
        monkeypatch.delenv(name, raising=False)
    return load_deploy_settings(monkeypatch, **env)


def test_throttle_rates_come_from_the_environment(monkeypatch):
    defaults = load_settings(monkeypatch)["REST_FRAMEWORK"]
    assert defaults["DEFAULT_THROTTLE_CLASSES"] == ["rest_framework.throttling.AnonRateThrottle",
                                                   "common.limits.SignedInRateThrottle"]
    assert set(defaults["DEFAULT_THROTTLE_RATES"]) == {"anon", "user", "run_card_submit"}
    assert defaults["NUM_PROXIES"] is None
    configured = load_settings(monkeypatch, API_THROTTLE_ANON="7/min", API_THROTTLE_USER="70/min",
                               API_THROTTLE_RUN_CARD_SUBMIT="2/hour")["REST_FRAMEWORK"]
    assert configured["DEFAULT_THROTTLE_RATES"] == {"anon": "7/min", "user": "70/min", "run_card_submit": "2/hour"}
    production = load_settings(monkeypatch, DJANGO_ENV="production", SECRET_KEY="x" * 50, TRUSTED_PROXY_COUNT="2")
    assert production["REST_FRAMEWORK"]["NUM_PROXIES"] == 2  # anonymous clients counted by address, not the proxy's


def test_production_without_a_shared_cache_is_warned_about(settings):
    settings.PRODUCTION, settings.REDIS_CACHE_URL = True, ""
    warnings = checks.shared_cache_in_production(None)
    assert [w.id for w in warnings] == ["champollion.W001"]
    assert "REDIS_CACHE_URL" in warnings[0].msg
    settings.REDIS_CACHE_URL = "redis://127.0.0.1:6379/1"
    assert checks.shared_cache_in_production(None) == []
    settings.PRODUCTION, settings.REDIS_CACHE_URL = False, ""
    assert checks.shared_cache_in_production(None) == []
    assert checks.shared_cache_in_production in registry.get_checks()


@pytest.mark.slow  # a Python process of its own loads every app in production mode (1.5 s)
def test_deploy_check_fails_in_production_without_redis_cache_url():
    """What `make check-deploy` would say without REDIS_CACHE_URL (test_deploy.py passes it one)."""
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env())
    assert result.returncode != 0
    assert "champollion.W001" in result.stderr + result.stdout


# ---------------------------------------------------------------- hostile XLSX in the bulk import


def xlsx_bytes(rows) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "source", "reference"])
    for row in rows:
        sheet.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def rewrite_member(data: bytes, name: str, edit) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info.filename)
            target.writestr(info.filename, edit(content) if info.filename == name else content)
    return out.getvalue()


LAUGHS = "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
BILLION_LAUGHS_DTD = f'<!DOCTYPE worksheet [<!ENTITY lol0 "lol">{LAUGHS}]>'
INJECTING_DTD = '<!DOCTYPE worksheet [<!ENTITY injected "INJECTEDTEXT">]>'


def with_dtd(dtd: str, reference: str = "", encoding: str = "utf-8"):
    """Put `dtd` after the XML declaration (if any) and replace the data cell "plain source" with `reference`."""
    def edit(content: bytes) -> bytes:
        text = content.decode("utf-8")
        declaration_end = text.index("?>") + 2 if text.startswith("<?xml") else 0
        text = text[:declaration_end] + dtd + text[declaration_end:]
        if reference:
            text = text.replace("<t>plain source</t>", f"<t>{reference}</t>")
        if encoding != "utf-8":
            text = text.replace('encoding="UTF-8"', f'encoding="{encoding.upper()}"').replace(
                "encoding='UTF-8'", f"encoding='{encoding.upper()}'")
        return text.encode(encoding)
    return edit


def hostile_files() -> list:
    workbook = xlsx_bytes([[90, "plain source", "reference"]])
    not_xlsx = io.BytesIO()
    with zipfile.ZipFile(not_xlsx, "w") as archive:
        archive.writestr("notes.txt", "a zip archive, but not a workbook")
    return [
        pytest.param(random.Random(7).randbytes(5000), "not an XLSX workbook", id="random-bytes"),
        pytest.param(b"PK\x03\x04" + random.Random(8).randbytes(5000), "does not unzip", id="random-after-zip-magic"),
        pytest.param(not_xlsx.getvalue(), "a zip archive but not an XLSX workbook", id="zip-not-xlsx"),
        pytest.param(workbook[: len(workbook) // 2], "does not unzip", id="truncated"),
        pytest.param(workbook[:-30], "does not unzip", id="truncated-end"),
        pytest.param(rewrite_member(workbook, SHEET, lambda content: content[:-40]), "cannot be read",
                     id="broken-worksheet-xml"),
        pytest.param(rewrite_member(workbook, SHEET, with_dtd(BILLION_LAUGHS_DTD, "&lol9;")),
                     "DOCTYPE", id="billion-laughs"),
        pytest.param(rewrite_member(workbook, SHEET, with_dtd(INJECTING_DTD, "&injected;")),
                     "DOCTYPE", id="entity-in-worksheet"),
        pytest.param(rewrite_member(workbook, SHEET, with_dtd(INJECTING_DTD, "&injected;", encoding="utf-16")),
                     "DOCTYPE", id="entity-in-utf16-worksheet"),
        pytest.param(rewrite_member(workbook, "xl/workbook.xml", with_dtd(INJECTING_DTD)),
                     "DOCTYPE", id="dtd-in-workbook"),
        pytest.param(rewrite_member(workbook, "[Content_Types].xml", with_dtd(INJECTING_DTD)),
                     "DOCTYPE", id="dtd-in-content-types"),
    ]


@pytest.mark.parametrize(("data", "expected"), hostile_files())
def test_hostile_xlsx_is_a_reported_problem_naming_the_file(client, curator, public_version, data, expected):
    client.force_login(curator)
    response = client.post(reverse("corpus:bulk_import", args=[public_version.pk]),
                           {"file": SimpleUploadedFile("hostile-upload.xlsx", data), "format": "xlsx"})
    assert response.status_code == 400
    shown = [str(problem) for problem in response.context["file_problems"]]
    assert any(expected in message for message in shown), shown
    assert any(".xlsx" in message for message in shown), "the message says what was expected"
    page = response.content.decode()
    assert "hostile-upload.xlsx cannot be imported" in page
    assert "INJECTEDTEXT" not in page and "lollol" not in page
    assert not StagedImport.objects.exists()


@pytest.mark.parametrize(("data", "expected"), hostile_files())
def test_hostile_xlsx_is_refused_by_the_service_too(public_version, data, expected):
    with pytest.raises(CorpusFileError) as caught:
        bulk.preview_bulk_import(public_version, data, "xlsx")
    assert expected in str(caught.value.problems[0])


def test_the_dtd_check_leaves_a_real_workbook_alone(public_version):
    preview = bulk.preview_bulk_import(public_version, xlsx_bytes([[90, "source", "reference"]]), "xlsx")
    assert preview.is_valid and preview.counts["new"] == 1


def test_damaged_workbooks_never_raise_anything_but_a_reported_problem(public_version):
    """Bytes of a real workbook flipped at random: read, or refused with a problem; never an exception."""
    workbook = xlsx_bytes([[90, "plain source", "reference"]])
    generator = random.Random(11)
    outcomes = set()
    for _ in range(300):
        damaged = bytearray(workbook)
        for _ in range(generator.randint(1, 8)):
            damaged[generator.randrange(len(damaged))] = generator.randrange(256)
        try:
            bulk.preview_bulk_import(public_version, bytes(damaged), "xlsx")
            outcomes.add("read")
        except CorpusFileError:
            outcomes.add("refused")
    assert "refused" in outcomes
