"""A row's counter moved on under its write lock, in one statement where the database allows it; a
row's compare-and-set or update, and new rows' insert, each in one statement written once."""

from django.conf import settings
from django.db import connections
from django.db.models import NOT_PROVIDED, F
from django.db.models.signals import post_save, pre_save


def counter_increment(model, pk: int, field: str, *, read: tuple[str, ...] = (), by: int = 1, **also):
    """Add ``by`` (one) to ``field`` of one row (setting the ``also`` values too) and return the new
    value; with ``read``, a tuple of the new value and those columns as the update left them.

    One ``UPDATE ... RETURNING`` where the database can (PostgreSQL, SQLite 3.35+), two statements
    elsewhere and in stock mode (settings.TABLETOP_STOCK: the ORM's own statements). The update takes
    the row's write lock until the transaction ends, as ``select_for_update`` would, so concurrent
    callers queue and each gets its own number; what ``read`` hands back is the row under that lock,
    never an earlier snapshot.
    """
    connection = connections[model.objects.db]
    if settings.TABLETOP_STOCK or not connection.features.can_return_columns_from_insert:
        model.objects.filter(pk=pk).update(**{field: F(field) + by}, **also)
        return model.objects.values_list(field, *read, flat=not read).get(pk=pk)
    quote = connection.ops.quote_name
    meta = model._meta
    column = quote(meta.get_field(field).column)
    sets = [f"{column} = {column} + %s"]
    params = [by]
    for name, value in also.items():
        model_field = meta.get_field(name)
        sets.append(f"{quote(model_field.column)} = %s")
        params.append(model_field.get_db_prep_save(value, connection))
    returning = ", ".join([column, *(quote(meta.get_field(name).column) for name in read)])
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} "  # noqa: S608 (names from the model's meta)
        f"WHERE {quote(meta.pk.column)} = %s RETURNING {returning}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])
        row = cursor.fetchone()
    if row is None:
        raise model.DoesNotExist(f"No {meta.verbose_name} {pk}.")
    return tuple(row) if read else row[0]


def row_update_if(model, pk: int, expected: dict, **values) -> bool:
    """Set ``values`` on one row only if its columns still hold ``expected``; whether it did.

    A compare-and-set in one ``UPDATE``, written from the model's meta: the ORM's ``update()`` builds
    and compiles the same statement on every call, which was most of a roll's chain link
    (bench/profile_roll.py). Stock mode (settings.TABLETOP_STOCK), or an expected NULL (which needs
    ``IS NULL``), takes the ORM's.
    """
    if settings.TABLETOP_STOCK or None in expected.values():
        return bool(model.objects.filter(pk=pk, **expected).update(**values))
    connection = connections[model.objects.db]
    quote = connection.ops.quote_name
    meta = model._meta
    sets, where, params = [], [f"{quote(meta.pk.column)} = %s"], []
    for name, value in values.items():
        field = meta.get_field(name)
        sets.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(value, connection))
    params.append(pk)
    for name, value in expected.items():
        field = meta.get_field(name)
        where.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection))
    sql = f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} WHERE {' AND '.join(where)}"  # noqa: S608 (names from the model's meta)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount > 0


_inserts: dict[tuple[str, type], tuple[str, str, list] | None] = {}


def row_insert(*rows) -> None:
    """Save ``rows``, new, all of one model with an automatic id, in one ``INSERT ... RETURNING`` written
    from the model's meta once per model and database, and set each one's id, as ``save()`` (one row) or
    ``bulk_create`` (several) would.

    Django builds and compiles the same statement on every call: about 0.7 ms of a roll, every roll
    saving its feed entry, and more for a move's several lines (bench/profile_roll.py). Each value is
    prepared as the save prepares it (``pre_save`` stamps an ``auto_now_add`` time, then
    ``get_db_prep_save``). The ORM's own is taken in stock mode (settings.TABLETOP_STOCK), on a database
    that cannot return the ids, for a model with a column the database fills itself (a database
    default, a generated column), and where a save signal has a receiver for the model, which this path
    would not send.
    """
    if not rows:
        return
    model, alias = type(rows[0]), type(rows[0]).objects.db
    connection = connections[alias]
    if (alias, model) not in _inserts:
        _inserts[(alias, model)] = _insert_statement(model, alias)
    statement = _inserts[(alias, model)]
    features = connection.features
    returns = (
        features.can_return_rows_from_bulk_insert if rows[1:] else features.can_return_columns_from_insert
    )
    if (
        statement is None
        or settings.TABLETOP_STOCK
        or not returns
        or pre_save.has_listeners(model)
        or post_save.has_listeners(model)
    ):
        if len(rows) == 1:
            rows[0].save(force_insert=True)
        else:
            model.objects.bulk_create(rows)
        return
    head, returning, fields = statement
    placeholders = f"({', '.join(['%s'] * len(fields))})"
    params = [
        field.get_db_prep_save(field.pre_save(row, True), connection) for row in rows for field in fields
    ]
    with connection.cursor() as cursor:
        # Both databases return the rows of a many-row insert in the order given (bulk_create relies on it).
        cursor.execute(f"{head} {', '.join([placeholders] * len(rows))} {returning}", params)
        ids = cursor.fetchall()
    for row, (pk,) in zip(rows, ids, strict=True):
        row.pk = pk
        row._state.adding, row._state.db = False, alias


def row_update(row, fields) -> None:
    """Write ``fields`` of ``row`` as ``row.save(update_fields=fields)`` would, in one statement written
    from the model's meta (:func:`row_update_if` with nothing expected): for a row the caller holds
    already, under its lock or its version's claim. No save signal is sent (as ``update()``)."""
    attnames = [row._meta.get_field(name).attname for name in fields]
    row_update_if(type(row), row.pk, {}, **{name: getattr(row, name) for name in attnames})


def _insert_statement(model, alias: str) -> tuple[str, str, list] | None:
    meta = model._meta
    fields = [field for field in meta.local_concrete_fields if field is not meta.auto_field]
    if meta.auto_field is None or any(
        field.db_default is not NOT_PROVIDED or getattr(field, "generated", False) for field in fields
    ):
        return None
    quote = connections[alias].ops.quote_name
    head = f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) VALUES"  # noqa: S608 (names from the model's meta)
    return head, f"RETURNING {quote(meta.auto_field.column)}", fields
