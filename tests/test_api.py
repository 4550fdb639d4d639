"""REST API: schema, corpus import for curators, listings with bounded queries."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpus.models import DatasetVersion, Entry

from .conftest import SECRET_MARK, corpus_bytes, entry

pytestmark = pytest.mark.django_db


def test_openapi_schema_and_docs_page(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    document = json.loads(schema.content)
    for path in ("/api/v1/datasets/", "/api/v1/dataset-versions/{id}/export/", "/api/v1/entries/{id}/",
                 "/api/v1/corpus-imports/", "/api/v1/dataset-versions/{id}/entries/"):
        assert path in document["paths"], path
    assert "TokenAuth" in json.dumps(document["components"]["securitySchemes"]) or "tokenAuth" in json.dumps(
        document["components"]["securitySchemes"])
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content and b"cdn" not in docs.content.lower()


def test_curator_imports_through_the_api_with_a_token(client, curator, steward):
    from accounts.services import create_api_token

    _, key = create_api_token(actor=curator, scope="secret")
    auth = {"HTTP_AUTHORIZATION": f"Token {key}"}
    body = corpus_bytes([entry(1), entry(2, "gold_standard")])
    created = client.post("/api/v1/corpus-imports/?org=steward", body, content_type="application/json", **auth)
    assert created.status_code == 201, created.content
    assert created.json()["version"]["entry_count"] == 2 and created.json()["created"] is True
    again = client.post("/api/v1/corpus-imports/?org=steward", body, content_type="application/json", **auth)
    assert again.status_code == 200 and again.json()["created"] is False


def test_api_import_reports_every_problem_and_stores_nothing(client, curator, steward):
    client.force_login(curator)
    body = corpus_bytes([entry(1, difficulty=6), entry(1, domain="astrology")])
    response = client.post("/api/v1/corpus-imports/?org=steward", body, content_type="application/json")
    assert response.status_code == 400
    payload = response.json()
    assert payload["total"] == 3 and "nothing was stored" in payload["detail"]
    fields = sorted((p["entry_index"], p["field"]) for p in payload["problems"])
    assert fields == [(0, "difficulty"), (1, "domain"), (1, "id")]
    assert Entry.objects.count() == 0


def test_api_import_multipart_and_malformed_json(client, curator, steward):
    client.force_login(curator)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("c.json", corpus_bytes([entry(1)]), content_type="application/json")
    assert client.post("/api/v1/corpus-imports/?org=steward", {"file": upload}).status_code == 201
    broken = client.post("/api/v1/corpus-imports/?org=steward", b'{"dataset": [', content_type="application/json")
    assert broken.status_code == 400
    assert broken.json()["problems"][0]["line"] == 1 and "invalid JSON" in broken.json()["problems"][0]["text"]
    missing = client.post("/api/v1/corpus-imports/?org=steward", {"other": "x"})
    assert missing.status_code == 400 and "file" in missing.json()


def test_api_import_size_limit(client, curator, steward, settings):
    settings.CORPUS_MAX_UPLOAD_BYTES = 50
    client.force_login(curator)
    response = client.post("/api/v1/corpus-imports/?org=steward", corpus_bytes([entry(1)]),
                           content_type="application/json")
    assert response.status_code == 413 and "the limit is 50 bytes" in response.json()["detail"]
    upload = client.post("/api/v1/corpus-imports/?org=steward",
                         {"file": SimpleUploadedFile("c.json", corpus_bytes([entry(1)]))})
    assert upload.status_code == 413 and "the corpus file is" in upload.json()["detail"]
    settings.CORPUS_MAX_UPLOAD_BYTES = 10_000
    huge = client.post("/api/v1/corpus-imports/?org=steward", {"file": SimpleUploadedFile("c.json", b"x")},
                       CONTENT_LENGTH=str(10_000 + 64 * 1024 + 1))
    assert huge.status_code == 413 and "(Content-Length)" in huge.json()["detail"]
    assert not DatasetVersion.objects.exists()


def test_api_import_permissions(client, steward, speaker, outsider):
    body = corpus_bytes([entry(1)])
    assert client.post("/api/v1/corpus-imports/?org=steward", body, content_type="application/json").status_code == 401
    client.force_login(speaker)
    assert client.post("/api/v1/corpus-imports/?org=steward", body, content_type="application/json").status_code == 403
    client.force_login(outsider)
    assert client.post("/api/v1/corpus-imports/?org=steward", body, content_type="application/json").status_code == 403
    unknown = client.post("/api/v1/corpus-imports/?org=nope", body, content_type="application/json")
    assert unknown.status_code == 404 and "Unknown organization 'nope'" in unknown.json()["detail"]
    assert DatasetVersion.objects.count() == 0


def test_export_endpoint_filters_segments_and_rejects_unknown(client, public_version):
    url = f"/api/v1/dataset-versions/{public_version.pk}/export/"
    exported = json.loads(b"".join(client.get(url, {"segment": "diagnostic"}).streaming_content))
    assert [e["segment"] for e in exported["entries"]] == ["diagnostic"]
    everything = b"".join(client.get(url).streaming_content)
    assert SECRET_MARK.encode() not in everything and len(json.loads(everything)["entries"]) == 2
    bad = client.get(url, {"segment": "secret"})
    assert bad.status_code == 400 and "unknown segment" in bad.json()["segment"]


def test_entry_filters_validate_their_input(client, public_version):
    url = f"/api/v1/dataset-versions/{public_version.pk}/entries/"
    assert client.get(url, {"difficulty": "hard"}).status_code == 400
    assert client.get(url, {"segment": "diagnostic"}).json()["count"] == 1


@pytest.mark.parametrize("size", [5, 60])
def test_listing_queries_do_not_grow_with_data(client, steward, curator, django_assert_max_num_queries, size):
    from corpus.services import import_corpus

    from .conftest import publish

    for index in range(3):
        version = import_corpus(
            data=corpus_bytes([entry(n, "gold_standard" if n % 2 else "development")
                                                  for n in range(size)], id=f"set-{index}"),
            organization=steward,
            actor=None,
        ).version
        publish(version.dataset)
    client.force_login(curator)
    for url in ("/api/v1/entries/", "/api/v1/datasets/", "/api/v1/dataset-versions/",
                f"/api/v1/dataset-versions/{version.pk}/entries/"):
        # Constant whatever the size; includes auditing the secret entries shown (lock, last hash, insert).
        with django_assert_max_num_queries(12):
            assert client.get(url).status_code == 200


@pytest.mark.parametrize("versions", [2, 12])
def test_version_listing_queries_do_not_grow_for_a_role_holder_without_the_second_factor(
        client, steward, curator, django_assert_max_num_queries, versions):
    """A curator whose session did not give the code: every keyed-hash row is denied the real hash by the
    permission module, from the request's remembered memberships, not one query per row."""
    from corpus.services import import_corpus

    from .conftest import password_only_login, publish

    for index in range(versions):
        version = import_corpus(data=corpus_bytes([entry(1, "gold_standard"), entry(2)], id=f"keyed-{index}"),
                                organization=steward, actor=None).version
        publish(version.dataset)
    password_only_login(client, curator)
    with django_assert_max_num_queries(10):
        response = client.get("/api/v1/dataset-versions/")
    assert response.status_code == 200 and response.json()["count"] == versions


def test_openapi_schema_validates_without_warnings(tmp_path):
    from django.core.management import call_command

    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    text = target.read_text()
    for path in ("/api/v1/run-cards/:", "/api/v1/leaderboard/:", "/api/v1/leaderboard/{public_id}/method-config/:"):
        assert path in text
