"""A row's counter moved on under its write lock, in one statement where the database allows it; a
row's compare-and-set in one statement written once."""

from django.conf import settings
from django.db import connections
from django.db.models import F


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
