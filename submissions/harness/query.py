"""PostgREST's query language as the upstream harness speaks it (docs/run-cards.md, "Publishing from the upstream
harness"): `select`, `order`, `limit`, `offset` and `column=[not.]operator.value` filters with eq, neq, gt, gte, lt,
lte, like, ilike, in and is. A query is parsed against a table (its columns and their types), and a refusal is
written as PostgREST writes one: a code, a message naming the parameter and what was expected. Filters follow SQL's
three-valued logic, as PostgreSQL applies them: a comparison with a null is no match, negated or not."""

import math
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cmp_to_key
from typing import Any

# Column types. `pair` is a language pair, compared by what it names however it is written (`eng>crk`, `EN→CRK`).
TEXT, NUMBER, INTEGER, UUID, TIMESTAMP, BOOLEAN, JSON, PAIR, TEXT_ARRAY = (
    "text", "double precision", "integer", "uuid", "timestamp with time zone", "boolean", "jsonb", "pair", "text[]")
ORDERED = (TEXT, NUMBER, INTEGER, UUID, TIMESTAMP, BOOLEAN, PAIR)
OPERATORS = ("eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "in", "is")
IS_VALUES = {"null": None, "true": True, "false": False, "unknown": None}
RESERVED = ("select", "order", "limit", "offset")
MAX_ROWS = 1000
# A filter's value, a select or an order longer than this is refused (no column holds such a value worth finding).
MAX_VALUE_LENGTH = 4096
MAX_IN_VALUES = 1000


class QueryError(ValueError):
    """A query refused; `code` is PostgREST's (or PostgreSQL's) for it."""

    def __init__(self, code: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint


@dataclass(frozen=True)
class Table:
    """What a table serves: its columns with their types, the values an enumerated text column holds, and what the
    language pair filter reads a spelling as (`pair_key`)."""

    name: str
    columns: dict[str, str]
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pair_key: Callable[[str], str | None] = lambda text: None


@dataclass(frozen=True)
class Filter:
    column: str
    operator: str
    value: Any
    negated: bool = False


@dataclass
class Query:
    table: Table
    columns: tuple[str, ...]
    filters: list[Filter] = field(default_factory=list)
    order: list[tuple[str, bool, bool]] = field(default_factory=list)
    limit: int = MAX_ROWS
    offset: int = 0

    def equal_to(self, column: str) -> Any:
        """The value of a plain `column=eq.value` filter, or None."""
        return next((f.value for f in self.filters if f.column == column and f.operator == "eq" and not f.negated),
                    None)


def shown(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def parse(params, table: Table) -> Query:
    """The query of a request's parameters (a QueryDict, or a mapping of lists)."""
    items = list(params.lists()) if hasattr(params, "lists") else [(k, list(v)) for k, v in params.items()]
    for name, values in items:
        for value in values:
            for part, what in ((name, "parameter name"), (value, f"value of {name[:60]}")):
                if "\x00" in part:
                    raise QueryError("22021", f"the {what} holds a NUL character (\\u0000), which no column holds",
                                     hint="send text without NUL characters")
                if len(part) > MAX_VALUE_LENGTH:
                    raise QueryError("PGRST100", f"the {what} is {len(part):,} characters; at most "
                                     f"{MAX_VALUE_LENGTH:,} are read")
    query = Query(table=table, columns=tuple(table.columns))
    for name, values in items:
        if name == "select":
            query.columns = select_columns(values[-1], table)
        elif name == "order":
            query.order = [order_term(term, table) for term in values[-1].split(",") if term.strip()]
        elif name in ("limit", "offset"):
            value = values[-1].strip()
            if not re.fullmatch(r"[0-9]{1,9}", value):
                raise QueryError("PGRST103", f"{name} must be a whole number of 0 or more, found {shown(value, 40)}")
            if name == "limit":
                query.limit = min(int(value), MAX_ROWS)
            else:
                query.offset = int(value)
        elif name in ("or", "and", "not.or", "not.and"):
            raise QueryError("PGRST100", f"{name}=…: logical trees are not read here",
                             hint="give each condition as its own column=operator.value parameter")
        else:
            column = known_column(name, table)
            query.filters += [parse_filter(column, value, table) for value in values]
    return query


def known_column(name: str, table: Table) -> str:
    if name not in table.columns:
        raise QueryError("42703", f"column {table.name}.{name[:60]} does not exist",
                         hint="columns: " + ", ".join(table.columns))
    return name


def select_columns(value: str, table: Table) -> tuple[str, ...]:
    wanted = [column.strip() for column in value.split(",") if column.strip()]
    if not wanted or "*" in wanted:
        return tuple(table.columns)
    for column in wanted:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", column):
            raise QueryError("PGRST100", f"select={shown(value)}: {shown(column, 40)} is not a column name",
                             hint="select=column,column (or *); aliases, casts and embedded tables are not read here")
    return tuple(known_column(column, table) for column in wanted)


def order_term(term: str, table: Table) -> tuple[str, bool, bool]:
    """(column, descending, nulls last) of `column[.asc|.desc][.nullsfirst|.nullslast]`; PostgreSQL's default puts
    nulls last ascending and first descending."""
    column, *modifiers = term.strip().split(".")
    known_column(column, table)
    if table.columns[column] not in ORDERED or any(
            m not in ("asc", "desc", "nullsfirst", "nullslast") for m in modifiers) or len(modifiers) > 2:
        raise QueryError("PGRST100", f"order={shown(term)}: expected column.asc|desc[.nullsfirst|nullslast] on a "
                         "column of text, numbers, dates or booleans")
    descending = "desc" in modifiers
    nulls_last = "nullslast" in modifiers or ("nullsfirst" not in modifiers and not descending)
    return column, descending, nulls_last


def parse_filter(column: str, text: str, table: Table) -> Filter:
    """`[not.]operator.value` on `column`, its value read as the column's type."""
    negated = text.startswith("not.")
    rest = text[4:] if negated else text
    operator, dot, value = rest.partition(".")
    if not dot or operator not in OPERATORS:
        raise QueryError("PGRST100", f"{column}={shown(text)}: expected [not.]operator.value, the operator one of "
                         f"{', '.join(OPERATORS)}", hint=f"{column}=eq.<value>")
    kind = table.columns[column]
    if operator == "is":
        word = value.lower()
        if word not in IS_VALUES and word != "not_null":
            raise QueryError("PGRST100", f"{column}=is.{shown(value, 20)}: expected is.null, is.not_null, is.true, "
                             "is.false or is.unknown")
        if word in ("true", "false") and kind != BOOLEAN:
            raise QueryError("42883", f"{column} is {kind}, not boolean: is.{word} applies to booleans only")
        return Filter(column, "is", word, negated)
    if kind in (JSON, TEXT_ARRAY):
        raise QueryError("42883", f"{column} is {kind}: it is filtered with is.null or is.not_null only")
    if operator in ("like", "ilike"):
        if kind not in (TEXT, PAIR):
            raise QueryError("42883", f"{column} is {kind}: {operator} applies to text columns only")
        return Filter(column, operator, like_pattern(value, operator == "ilike"), negated)
    if operator == "in":
        items = in_list(column, value)
        return Filter(column, "in", tuple(typed(column, item, table) for item in items), negated)
    if operator in ("gt", "gte", "lt", "lte") and kind == BOOLEAN:
        raise QueryError("42883", f"{column} is boolean: {operator} does not apply to it")
    return Filter(column, operator, typed(column, value, table), negated)


def in_list(column: str, value: str) -> list[str]:
    """The items of `(a,b,"c,d")`: commas separate, double quotes keep commas and parentheses (`\\"` a quote)."""
    if not (value.startswith("(") and value.endswith(")")):
        raise QueryError("PGRST100", f"{column}=in.{shown(value)}: expected in.(value,value,…)")
    items: list[str] = []
    current, quoted, escaped, was_quoted = [], False, False, False
    for character in value[1:-1]:
        if escaped:
            current.append(character)
            escaped = False
        elif character == "\\" and quoted:
            escaped = True
        elif character == '"':
            quoted, was_quoted = not quoted, True
        elif character == "," and not quoted:
            items.append("".join(current) if was_quoted else "".join(current).strip())
            current, was_quoted = [], False
        else:
            current.append(character)
    if quoted:
        raise QueryError("PGRST100", f"{column}=in.{shown(value)}: a double quote is not closed")
    if value[1:-1].strip() or was_quoted:
        items.append("".join(current) if was_quoted else "".join(current).strip())
    if len(items) > MAX_IN_VALUES:
        raise QueryError("PGRST100", f"{column}=in.(…): {len(items):,} values; at most {MAX_IN_VALUES:,}")
    return items


def typed(column: str, text: str, table: Table) -> Any:
    """`text` read as a value of `column`'s type, as PostgreSQL reads a literal; 22P02 when it is not one."""
    kind = table.columns[column]

    def refuse(expected: str) -> QueryError:
        return QueryError("22P02", f"invalid input syntax for type {kind}: {shown(text)} (column {column})",
                          hint=f"{column} holds {expected}")

    if kind == TEXT:
        choices = table.choices.get(column)
        if choices is not None and text not in choices:
            raise QueryError("22P02", f"invalid input value for {column}: {shown(text)}",
                             hint=f"{column} is one of: {', '.join(choices)}")
        return text
    if kind == PAIR:
        key = table.pair_key(text)
        if key is None:
            raise QueryError("22P02", f"{column}: {shown(text)} is not a language pair",
                             hint="a pair such as eng>crk, eng-crk or EN→CRK")
        return key
    if kind in (NUMBER, INTEGER):
        try:
            number = int(text) if kind == INTEGER else float(text)
        except ValueError:
            raise refuse("an integer" if kind == INTEGER else "a number") from None
        if isinstance(number, float) and not math.isfinite(number):
            raise refuse("a finite number")
        if kind == INTEGER and abs(number) >= 2 ** 63:
            raise refuse("an integer below 2⁶³")
        return number
    if kind == UUID:
        try:
            return uuid.UUID(text)
        except ValueError:
            raise refuse("a UUID") from None
    if kind == TIMESTAMP:
        moment = read_moment(text)
        if moment is None:
            raise refuse("an ISO 8601 date and time")
        return moment
    if kind == BOOLEAN:
        word = text.strip().lower()
        if word in ("true", "t", "yes", "y", "on", "1"):
            return True
        if word in ("false", "f", "no", "n", "off", "0"):
            return False
        raise refuse("true or false")
    raise refuse(kind)


def read_moment(text: str) -> datetime | None:
    """An ISO 8601 date and time (UTC when it names no offset); a `+` of the offset that came through the query
    string unescaped reads as the space it decodes to."""
    text = text.strip()
    if "T" in text and text.count(" ") == 1:
        text = text.replace(" ", "+")
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def like_pattern(pattern: str, folded: bool) -> re.Pattern[str]:
    """SQL LIKE as PostgREST writes it: `*` (or `%`) any run of characters, `_` any one character."""
    parts = [".*" if c in "*%" else "." if c == "_" else re.escape(c) for c in pattern]
    return re.compile("".join(parts), re.DOTALL | (re.IGNORECASE if folded else 0))


# ---------------------------------------------------------------------------------------------------------
# Applying a query to rows held here
# ---------------------------------------------------------------------------------------------------------

def comparable(kind: str, value: Any, table: Table) -> Any:
    """A row's value as filters compare it (a pair by what it names, a timestamp as a datetime)."""
    if value is None:
        return None
    if kind == PAIR:
        return table.pair_key(str(value)) or str(value)
    if kind == UUID and not isinstance(value, uuid.UUID):
        try:
            return uuid.UUID(str(value))
        except ValueError:
            return None
    if kind == TIMESTAMP and isinstance(value, str):
        return read_moment(value)
    return value


def holds(row: dict[str, Any], condition: Filter, table: Table) -> bool | None:
    """True, False, or None (unknown: a null compared), as PostgreSQL evaluates the condition on the row."""
    kind = table.columns[condition.column]
    raw = row.get(condition.column)
    if condition.operator == "is":
        if condition.value == "not_null":
            result: bool | None = raw is not None
        elif condition.value in ("null", "unknown"):
            result = raw is None
        else:
            result = raw is IS_VALUES[condition.value]
        return (not result) if condition.negated else result
    value = comparable(kind, raw, table)
    if value is None:
        return None
    if condition.operator in ("like", "ilike"):
        result = condition.value.fullmatch(str(raw)) is not None
    elif condition.operator == "in":
        result = value in condition.value
    else:
        target = condition.value
        try:
            result = {"eq": value == target, "neq": value != target, "gt": value > target, "gte": value >= target,
                      "lt": value < target, "lte": value <= target}[condition.operator]
        except TypeError:
            return None
    return (not result) if condition.negated else result


def apply(rows: Iterable[dict[str, Any]], query: Query, *, cut: bool = True) -> list[dict[str, Any]]:
    """The rows that hold every filter, in the query's order, the page cut when `cut`."""
    kept = [row for row in rows if all(holds(row, condition, query.table) for condition in query.filters)]
    kept = ordered(kept, query.order, query.table)
    return kept[query.offset:query.offset + query.limit] if cut else kept


def ordered(rows: list[dict[str, Any]], order: list[tuple[str, bool, bool]], table: Table) -> list[dict[str, Any]]:
    """Rows sorted by each term in turn, nulls first or last as the term says."""
    def compare(a: dict[str, Any], b: dict[str, Any]) -> int:
        for column, descending, nulls_last in order:
            left = comparable(table.columns[column], a.get(column), table)
            right = comparable(table.columns[column], b.get(column), table)
            if left is None or right is None:
                if left is None and right is None:
                    continue
                return (1 if left is None else -1) * (1 if nulls_last else -1)
            if left == right:
                continue
            try:
                smaller = left < right
            except TypeError:
                smaller = str(left) < str(right)
            return (-1 if smaller else 1) * (-1 if descending else 1)
        return 0

    return sorted(rows, key=cmp_to_key(compare)) if order else list(rows)
