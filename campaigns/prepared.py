"""The hottest look-ups compiled to SQL once, then run with each call's values.

Building and compiling a queryset is most of what a simple look-up costs: a character by id for its
viewer, joined to its campaign, GM and owner, took 0.79 ms of Python around a statement SQLite answers
in a few microseconds, and nearly every request makes one (docs/performance.md). A ``PreparedQuery``
builds its queryset once per database from placeholder ids, keeps the SQL, and each call runs that SQL
with the call's ids and makes the instances as Django's own iterable does (joined rows included).
The rule a query encodes is still written once, as an ordinary queryset, by the function that builds
it. Part of the speed layer: in stock mode (settings.TABLETOP_STOCK) each call builds the queryset.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from django.conf import settings
from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import get_related_populators

# Ids standing for the arguments while the SQL is compiled, each found again in its params: the top of a
# 32-bit column's range, which every id column holds (Django drops a lookup on a value its column cannot
# hold, so a condition would vanish from the SQL: a negative one on a positive integer, say).
_PLACEHOLDER_BASE = 2**31 - 1000


class _Compiled:
    def __init__(self, queryset: QuerySet, placeholders: list[int], ordinary: QuerySet):
        self.alias = queryset.db
        compiler = queryset.query.get_compiler(using=self.alias)
        self.sql, params = compiler.as_sql()
        # The same query built from ordinary ids must compile to the same SQL: no placeholder may have
        # changed its shape (a condition dropped would widen who sees what).
        if ordinary.query.get_compiler(using=self.alias).as_sql()[0] != self.sql:
            raise RuntimeError(f"placeholder ids changed the SQL of a {queryset.model.__name__} look-up")
        self.params = list(params)
        # Which parameter takes which argument (None: a value the query itself holds).
        self.slots = [placeholders.index(value) if _is_placeholder(value) else None for value in params]
        if {slot for slot in self.slots if slot is not None} != set(range(len(placeholders))):
            raise RuntimeError("every argument must reach the SQL as a parameter")
        if queryset._known_related_objects:
            raise RuntimeError("only rows of a model, as a plain queryset makes them")
        self.annotations = list((compiler.annotation_col_map or {}).items())
        converters = compiler.get_converters([column[0] for column in compiler.select[: compiler.col_count]])
        self.converters = list(converters.items())
        klass_info = compiler.klass_info
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.attnames = [column[0].target.attname for column in compiler.select[self.start : self.end]]
        # Made once: a populator only reads what it was built with (Django's iterable makes them per query).
        self.populators = get_related_populators(klass_info, compiler.select, self.alias)

    def run(self, args: tuple) -> list:
        slotted = zip(self.params, self.slots, strict=True)
        # An id in the type the backend gave its placeholder (psycopg's Int8 for a big integer column).
        params = [value if slot is None else type(value)(args[slot]) for value, slot in slotted]
        with connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if not rows:
            return []
        # As django.db.models.query.ModelIterable makes them: converters, the row, each joined row, the
        # annotations.
        made = []
        if self.converters:
            rows = list(_converted(rows, self.converters, connections[self.alias]))
        for row in rows:
            obj = self.model.from_db(self.alias, self.attnames, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, position in self.annotations:
                setattr(obj, name, row[position])
            made.append(obj)
        return made


def _converted(rows, converters, connection):
    """SQLCompiler.apply_converters with this thread's connection (the compiler keeps the one it was
    made on)."""
    for row in map(list, rows):
        for position, (functions, expression) in converters:
            value = row[position]
            for function in functions:
                value = function(value, expression, connection)
            row[position] = value
        yield row


def _is_placeholder(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value - _PLACEHOLDER_BASE < 1000


class PreparedQuery:
    """``build(*ids)`` returns the queryset; calling this with ids returns its rows as a list.

    Only whole-number arguments (ids), each used by the queryset as a value in its SQL.
    """

    def __init__(self, build: Callable[..., QuerySet]):
        self.build = build
        self.placeholders = [_PLACEHOLDER_BASE + i for i in range(len(inspect.signature(build).parameters))]
        self._by_alias: dict[str, _Compiled] = {}

    def __call__(self, *ids: int, using: str = "default") -> list:
        ids = tuple(int(value) for value in ids)
        if settings.TABLETOP_STOCK:
            return list(self.build(*ids).using(using))
        compiled = self._by_alias.get(using)
        if compiled is None:
            made = self.build(*self.placeholders).using(using)
            ordinary = self.build(*range(1, len(self.placeholders) + 1)).using(using)
            compiled = self._by_alias[using] = _Compiled(made, self.placeholders, ordinary)
        return compiled.run(ids)

    def first(self, *ids: int, using: str = "default"):
        """The first row, or None: for a look-up of one row (by its id, under the caller's conditions)."""
        rows = self(*ids, using=using)
        return rows[0] if rows else None
