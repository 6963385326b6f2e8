"""Groups in the order of the whole table, for a chunk that sums over several of its groups.

`fastperf.data.grouping.group_rows` orders groups lexicographically in each key column's
dictionary order: for a plain column, the order in which its values first appear in *that*
table. A group-complete chunk of a table (`fastperf.data.chunked`) may see a column's values
first appear in another order than the whole table does, and a sum over several groups (a
variant's score over its benchmarks, an ANOVA over a group's alternatives) would then add its
terms in another order: equal up to rounding, not bit for bit. So a plan records each such
column's dictionary (`key_dictionaries`, made from the whole table or from a dataset's key
table, whose first appearances are the whole table's) and a stage puts its groups back in that
order (`in_key_order`) before it sums. On the whole table the groups are already in that order
and nothing is moved.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.grouping import Groups, group_rows, key_codes
from fastperf.errors import InputError
from fastperf.io.layout import key_ranks as layout_ranks

__all__ = ["key_dictionaries", "key_ranks", "in_key_order", "distinct_keys"]


def key_dictionaries(table: pa.Table, columns: Sequence[str]) -> dict[str, pa.Array]:
    """Each column's dictionary in the grouper's code order (`fastperf.data.grouping.key_codes`).

    Parameters
    ----------
    table : pyarrow.Table
        The whole table, or a dataset's key table.
    columns : sequence of str
        Key columns of `table`.

    Returns
    -------
    dict column -> pyarrow.Array
        The distinct values (a null included when present) in code order: first appearance for
        a plain column, the dictionary's order for a dictionary-encoded one.
    """
    return {name: key_codes(table.column(name), name)[1] for name in dict.fromkeys(columns)}


def distinct_keys(table: pa.Table, columns: Sequence[str]) -> tuple[int, dict[str, pa.Array]]:
    """The number of distinct combinations of `columns` in `table`, as the groups of
    `fastperf.data.grouping.group_rows` count them (a null is a value of its own), and each
    column's dictionary (`key_dictionaries`), from one factorisation of each column.

    Parameters
    ----------
    table : pyarrow.Table
    columns : sequence of str

    Returns
    -------
    count : int
        0 for an empty table; 1 for no columns.
    dictionaries : dict column -> pyarrow.Array

    Notes
    -----
    The columns' codes (`fastperf.data.grouping.key_codes`) combined in mixed radix and
    counted (a bincount, or a sort where the space of combinations is large): no formula.
    """
    columns = list(dict.fromkeys(columns))
    coded = {name: key_codes(table.column(name), name) for name in columns}
    dictionaries = {name: dictionary for name, (_, dictionary) in coded.items()}
    if table.num_rows == 0 or not columns:
        return min(table.num_rows, 1), dictionaries
    if len(columns) == 1:
        column = table.column(columns[0])
        if not pa.types.is_dictionary(column.type) or column.null_count:
            return len(dictionaries[columns[0]]), dictionaries  # encoded here: every value used
        codes, dictionary = coded[columns[0]]
        used = np.bincount(codes, minlength=len(dictionary))
        return int(np.count_nonzero(used)), dictionaries
    combined, space = np.zeros(table.num_rows, dtype=np.int64), 1
    for codes, dictionary in coded.values():
        size = max(len(dictionary), 1)
        if space * size >= 2**62:
            return group_rows(table, columns).n_groups, dictionaries
        combined = combined * size + codes
        space *= size
    if space <= max(4 * table.num_rows, 1 << 20):
        return int(np.count_nonzero(np.bincount(combined, minlength=space))), dictionaries
    return int(np.unique(combined).size), dictionaries


def key_ranks(keys: pa.Table, name: str, dictionary: pa.Array) -> np.ndarray:
    """The position in `dictionary` of each row's value of column `name`.

    Parameters
    ----------
    keys : pyarrow.Table
        Group keys (`fastperf.data.grouping.Groups.keys`) or any table with the column.
    name : str
        The column.
    dictionary : pyarrow.Array
        Its values in the whole table's order (`key_dictionaries`).

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    InputError
        A value that `dictionary` lacks (a plan made from another table).
    """
    rank = layout_ranks(keys.column(name), dictionary)
    missing = rank < 0
    if missing.any():
        value = keys.column(name)[int(np.argmax(missing))].as_py()
        raise InputError(f"column {name!r} holds {value!r}, which the plan's table lacks: a "
                         "plan must be made from the whole table or from its key table")
    return rank


def in_key_order(groups: Groups, outer: Sequence[str], inner: Sequence[str],
                 dictionaries: dict[str, pa.Array]) -> tuple[Groups, np.ndarray | None]:
    """`groups` with the groups of each `outer` key in the order of `dictionaries`.

    Parameters
    ----------
    groups : Groups
        Rows grouped by ``outer + inner`` (`fastperf.data.grouping.group_rows`), so that the
        groups of one `outer` key are adjacent.
    outer : sequence of str
        The columns whose groups are summed over separately (a variant; an ANOVA's `by` keys).
        Their order does not matter and is kept.
    inner : sequence of str
        The columns put in the whole table's order within each `outer` key.
    dictionaries : dict column -> pyarrow.Array
        `key_dictionaries` of the `inner` columns, from the whole table or its key table.

    Returns
    -------
    groups : Groups
        The same groups, keys and rows, reordered (`groups` itself when already in order).
    take : numpy.ndarray of int64 or None
        For values already gathered in the old group order, ``values[take]`` gives them in the
        new one; None when nothing moved.

    Notes
    -----
    A stable lexicographic sort of the groups by (outer segment, rank of each inner key):
    no formula.
    """
    if not inner or groups.n_groups < 2:
        return groups, None
    outer_groups = group_rows(groups.keys, list(outer))
    segment = np.empty(groups.n_groups, dtype=np.int64)
    segment[outer_groups.gather(np.arange(groups.n_groups))] = np.repeat(
        np.arange(outer_groups.n_groups), outer_groups.sizes)
    ranks = [key_ranks(groups.keys, name, dictionaries[name]) for name in inner]
    order = np.lexsort(tuple(reversed(ranks)) + (segment,))
    if np.array_equal(order, np.arange(order.shape[0])):
        return groups, None
    sizes = groups.sizes[order]
    offsets = np.zeros(order.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    take = (np.repeat(groups.offsets[:-1][order] - offsets[:-1], sizes)
            + np.arange(offsets[-1], dtype=np.int64))
    rows = None if groups.order is None else groups.order[take]
    return Groups(groups.keys.take(pa.array(order)), offsets, groups.first_row[order], rows), take
