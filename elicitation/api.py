"""The elicitation API: a curator adds sources to a batch as a JSON list (or a CSV body), all or none, with the same
located problems as the page."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from common.errors import ApplicationError
from common.limits import read_capped_body
from corpus.api import UnparsedBody
from organizations.permissions import Permitted

from .models import Batch
from .services.batches import add_sources
from .sources import MAX_UPLOAD_BYTES, SourceFileError, read_csv, read_json


class BatchSourcesView(APIView):
    """Add sources to a batch: the body is a JSON list of sources (or `{"sources": [...]}`), or CSV with
    `Content-Type: text/csv`."""

    permission_classes = [permissions.IsAuthenticated, Permitted.to("dataset.curate")]
    parser_classes = [UnparsedBody]

    def permission_object(self, request):
        if not hasattr(self, "_batch"):
            self._batch = Batch.objects.select_related("dataset").filter(
                public_id=self.kwargs["public_id"]).first()
        return self._batch.dataset if self._batch is not None else None

    @extend_schema(request={"application/json": OpenApiTypes.OBJECT, "text/csv": OpenApiTypes.STR},
                   responses={201: inline_serializer("SourcesAdded", {"added": serializers.IntegerField()}),
                              400: inline_serializer("SourcesRefused", {
                                  "detail": serializers.CharField(),
                                  "problems": serializers.ListField(child=serializers.DictField())})})
    def post(self, request, public_id):
        if self.permission_object(request) is None:
            raise NotFound("No such batch.")
        data = read_capped_body(request, MAX_UPLOAD_BYTES, "The sources")
        try:
            rows = read_csv(data) if request.content_type.startswith("text/csv") else read_json(data)
            added = add_sources(actor=request.user, batch=self._batch, raw_rows=rows)
        except SourceFileError as error:
            return Response({"detail": f"{len(error.problems)} problem(s); nothing was stored.", "problems": [
                {"where": problem.where, "field": problem.field, "message": problem.message}
                for problem in error.problems]}, status=status.HTTP_400_BAD_REQUEST)
        except ApplicationError as error:
            return Response({"detail": error.message}, status=error.http_status)
        return Response({"added": len(added)}, status=status.HTTP_201_CREATED)
