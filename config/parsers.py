"""DRF's JSON parser, with JSON nested too deeply to decode refused as a 400 like any other bad JSON
(the standard library raises RecursionError there, which DRF would let through as a server error)."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError("JSON parse error - the document is nested too deeply.") from error
