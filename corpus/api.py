"""REST API for corpora; every entry read goes through corpus.selectors."""

from django.conf import settings
from django.db.models import Prefetch
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import parsers, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from common.downloads import as_download
from common.limits import PayloadTooLarge, read_capped_body
from organizations.models import Organization
from organizations.permissions import Permitted

from . import selectors, services
from .forms import EntryFilterForm
from .models import CulturalLabel, DatasetVersion, Segment
from .serializers import (
    DatasetSerializer,
    DatasetVersionSerializer,
    EntrySerializer,
    ImportErrorSerializer,
    ImportResultSerializer,
)
from .validation import SEGMENT_MAP, SUPPLIED_FIELDS, CorpusFileError, Problem

# Each dataset's labels with what their documents show (corpus.label_selectors.label_document).
LABELS_PREFETCH = Prefetch("cultural_labels", queryset=CulturalLabel.objects.select_related(
    "dataset", "version", "project").prefetch_related("translations").order_by("label_type", "pk"))

# What a multipart body may carry besides the file itself: its boundaries, headers and the supplied fields.
MULTIPART_OVERHEAD_BYTES = 64 * 1024


class Withdrawn(APIException):
    """410 Gone: the community withdrew its consent; the resource was public and is kept, not deleted."""

    status_code = status.HTTP_410_GONE
    default_code = "withdrawn"
    default_detail = "Withdrawn by its community."


WithdrawnSerializer = inline_serializer("Withdrawn", {"detail": serializers.CharField(
    help_text="Which dataset its community withdrew, and which consent it revoked.")})
WITHDRAWN_RESPONSE = {410: WithdrawnSerializer}


class GoneWhenWithdrawn:
    """A detail lookup that visibility refuses answers 410 with the withdrawal message when the community
    withdrew the (published) dataset, and a plain 404 otherwise (private datasets stay unrevealed)."""

    def withdrawal(self) -> selectors.Withdrawal | None:
        """The `corpus.selectors` withdrawal of what the request asked for."""
        raise NotImplementedError

    def get_object(self):
        try:
            return super().get_object()
        except Http404:
            try:
                withdrawn = self.withdrawal()
            except (TypeError, ValueError):  # a malformed key: nothing to find
                withdrawn = None
            if withdrawn is None:
                raise
            raise Withdrawn(withdrawn.message) from None


@extend_schema_view(retrieve=extend_schema(responses={200: DatasetSerializer, **WITHDRAWN_RESPONSE}))
class DatasetViewSet(GoneWhenWithdrawn, viewsets.ReadOnlyModelViewSet):
    """Datasets you may see: public ones, and those your organization stewards."""

    serializer_class = DatasetSerializer
    lookup_field = "identifier"
    lookup_value_regex = r"[A-Za-z0-9][A-Za-z0-9._-]*"

    def get_queryset(self):
        return selectors.visible_datasets(self.request.user).prefetch_related(
            Prefetch("versions", queryset=DatasetVersion.objects.order_by("imported_at")), LABELS_PREFETCH)

    def withdrawal(self) -> selectors.Withdrawal | None:
        return selectors.withdrawal_matching(identifier=self.kwargs["identifier"])


ENTRY_FILTERS = [
    OpenApiParameter("segment", enum=Segment.values),
    OpenApiParameter("difficulty", int),
    OpenApiParameter("domain", str),
    OpenApiParameter("register", str),
    OpenApiParameter("provenance", str),
    OpenApiParameter("q", str, description=(
        "Text search in source, reference or notes (diacritics and case optional), or an exact id.")),
]


@extend_schema_view(retrieve=extend_schema(responses={200: DatasetVersionSerializer, **WITHDRAWN_RESPONSE}))
class DatasetVersionViewSet(GoneWhenWithdrawn, viewsets.ReadOnlyModelViewSet):
    serializer_class = DatasetVersionSerializer

    def get_queryset(self):
        return selectors.visible_versions(self.request.user).order_by(
            "dataset__identifier", "imported_at").prefetch_related(Prefetch(
                "dataset__cultural_labels", queryset=LABELS_PREFETCH.queryset))

    def withdrawal(self) -> selectors.Withdrawal | None:
        return selectors.withdrawal_matching(versions__pk=self.kwargs["pk"])

    @extend_schema(
        parameters=[OpenApiParameter("segment", enum=Segment.values, many=True)],
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **WITHDRAWN_RESPONSE},
        description="The corpus file of this version, with only the entries you may see.",
    )
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None, format=None):
        version = self.get_object()
        segments = request.query_params.getlist("segment")
        unknown = [s for s in segments if s not in Segment.values]
        if unknown:
            raise ValidationError({"segment": f"unknown segment(s) {unknown}; expected: {', '.join(Segment.values)}"})
        response = StreamingHttpResponse(
            selectors.shown_export_chunks(request.user, version, segments or None, where=request.path),
            content_type="application/json",
        )
        return as_download(response, f"{version.dataset.identifier}-{version.version}", "json")

    @extend_schema(
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **WITHDRAWN_RESPONSE},
        description=("The public download of this version: its development and diagnostic entries only, the same "
                     "bytes for everyone and every time; their SHA-256 is the version's `public_download_sha256`."),
    )
    @action(detail=True, methods=["get"])
    def public(self, request, pk=None, format=None):
        version = self.get_object()
        response = StreamingHttpResponse(selectors.public_download_chunks(request.user, version),
                                         content_type="application/json")
        return as_download(response, f"{version.dataset.identifier}-{version.version}-public", "json")

    @extend_schema(parameters=ENTRY_FILTERS, responses={200: EntrySerializer(many=True), **WITHDRAWN_RESPONSE})
    @action(detail=True, methods=["get"])
    def entries(self, request, pk=None, format=None):
        version = self.get_object()
        form = EntryFilterForm(request.query_params)
        if not form.is_valid():
            raise ValidationError(form.errors)
        entries = selectors.filter_entries(selectors.visible_entries(request.user, version), form.cleaned_data)
        entries = entries.select_related("version__dataset").order_by("position")
        page = selectors.shown_entries(request.user, self.paginate_queryset(entries), where=request.path)
        return self.get_paginated_response(EntrySerializer(page, many=True).data)


@extend_schema_view(retrieve=extend_schema(responses={200: EntrySerializer, **WITHDRAWN_RESPONSE}))
class EntryViewSet(GoneWhenWithdrawn, viewsets.ReadOnlyModelViewSet):
    """Entries you may see, by their numeric key (`pk`)."""

    serializer_class = EntrySerializer

    def get_queryset(self):
        return selectors.visible_entries(self.request.user).select_related("version__dataset").order_by("pk")

    def withdrawal(self) -> selectors.Withdrawal | None:
        return selectors.entry_withdrawal(self.kwargs["pk"])

    def paginate_queryset(self, queryset):
        return selectors.shown_entries(self.request.user, super().paginate_queryset(queryset) or [],
                                       where=self.request.path)

    def get_object(self):
        [entry] = selectors.shown_entries(self.request.user, [super().get_object()], where=self.request.path)
        return entry


def problem_payload(problem: Problem) -> dict:
    return {
        "message": problem.message,
        "field": problem.field,
        "entry_index": problem.entry_index,
        "entry_id": problem.entry_id,
        "line": problem.line,
        "column": problem.column,
        "text": str(problem),
        "parameter": problem.parameter or None,
        "value": problem.value,
    }


SUPPLIED_PARAMETERS = [
    OpenApiParameter(parameter, str, description=description) for parameter, description in (
        ("dataset_id", "The dataset id, when the file gives none (no dataset.id, corpus_id or dataset.name)."),
        ("dataset_version", "The version, when the file gives none."),
        ("source_language", "The source language's BCP 47 code, when the file gives none."),
        ("target_language", "The target language's BCP 47 code, when the file gives none."),
        ("language_pair", "The language pair's label (e.g. EN→CRK), when the file gives none; else the two codes."),
        ("created", "The ISO 8601 creation date, when the file gives none."),
        ("license", "The SPDX licence identifier, when the file gives none."),
        (SEGMENT_MAP, "The segment of each segment name the file uses that is none of the four, as name=segment "
                      "pairs separated by commas (or the parameter repeated), e.g. "
                      "basic=development,intermediate=diagnostic; an unknown name is never guessed."),
    )
]


class UnparsedBody(parsers.BaseParser):
    """Any body but a multipart one is the corpus file itself, read by `read_body` within the size limit: DRF is left
    nothing to parse (a session's CSRF check reads `request.POST`, which made a raw JSON body answer "Missing
    filename" when it was read as a file upload)."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        return {}


class CorpusImportView(APIView):
    """Import a corpus file (the raw JSON as the request body, or a multipart `file`)."""

    permission_classes = [permissions.IsAuthenticated, Permitted.to("organization.curate")]
    parser_classes = [parsers.MultiPartParser, UnparsedBody]

    def permission_object(self, request) -> Organization | None:
        """The steward named by `org`, looked up once per request (the permission check and `post` share it); an
        unknown one is answered 404 by `post`."""
        if not hasattr(self, "_steward"):
            self._steward = Organization.objects.filter(slug=request.query_params.get("org", "")).first()
        return self._steward

    @extend_schema(
        parameters=[OpenApiParameter("org", str, required=True, description="Slug of the steward organization."),
                    *SUPPLIED_PARAMETERS],
        request={"multipart/form-data": inline_serializer("CorpusUpload", {"file": serializers.FileField()}),
                 "application/json": OpenApiTypes.OBJECT},
        responses={201: ImportResultSerializer, 200: ImportResultSerializer, 400: PolymorphicProxySerializer(
            # The file's problems, or (no file) which request field was wrong.
            component_name="CorpusImportRejection", resource_type_field_name=None, serializers=[
                ImportErrorSerializer, inline_serializer("CorpusUploadProblem", {"file": serializers.CharField()})]),
            413: inline_serializer("CorpusTooLarge", {"detail": serializers.CharField()})},
        description="A file over CORPUS_MAX_UPLOAD_BYTES answers 413, from its Content-Length before it is read.",
    )
    def post(self, request):
        organization = self.permission_object(request)
        if organization is None:
            raise NotFound(f"Unknown organization {request.query_params.get('org', '')!r} (query parameter 'org').")
        data = self.read_body(request)
        try:
            outcome = services.import_corpus(data=data, organization=organization, actor=request.user,
                                             supplied=self.supplied(request))
        except CorpusFileError as error:
            return Response(
                {"detail": f"{error.total} problem(s); nothing was stored.", "total": error.total,
                 "problems": [problem_payload(p) for p in error.problems]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        body = {
            "created": outcome.created,
            "message": outcome.message,
            "warnings": outcome.warnings,
            "version": DatasetVersionSerializer(outcome.version, context={"request": request}).data,
        }
        return Response(body, status=status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK)

    def supplied(self, request) -> dict[str, str]:
        """The envelope fields and segment map the request gives (corpus.validation.SUPPLIED_FIELDS, SEGMENT_MAP):
        query parameters, or the fields of a multipart body beside `file`; a repeated segment_map is one map."""
        sources = [request.query_params]
        if request.content_type.startswith("multipart/"):
            sources.append(request.POST)
        given: dict[str, str] = {}
        for source in sources:
            given.update({name: source[name] for name in SUPPLIED_FIELDS.values() if name in source})
            if SEGMENT_MAP in source:
                given[SEGMENT_MAP] = ",".join(source.getlist(SEGMENT_MAP))
        return given

    def read_body(self, request) -> bytes:
        """The upload's bytes; over CORPUS_MAX_UPLOAD_BYTES, 413 as soon as that is known: from the declared
        Content-Length before anything is read (a multipart body may add MULTIPART_OVERHEAD_BYTES to the file), or
        while a body without one is read."""
        limit = settings.CORPUS_MAX_UPLOAD_BYTES
        if not request.content_type.startswith("multipart/"):
            return read_capped_body(request, limit, "the corpus file")
        declared = request.META.get("CONTENT_LENGTH") or ""
        if declared.isdigit() and int(declared) > limit + MULTIPART_OVERHEAD_BYTES:
            raise PayloadTooLarge(f"the request is {int(declared):,} bytes (Content-Length); the corpus file's limit "
                                  f"is {limit:,} bytes; nothing was read or stored")
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationError({"file": "attach the corpus file as the multipart field 'file'"})
        if upload.size > limit:
            raise PayloadTooLarge(f"the corpus file is {upload.size:,} bytes; the limit is {limit:,} bytes; nothing "
                                  "was stored")
        return upload.read()
