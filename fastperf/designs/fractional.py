"""Regular 2^(k-p) two-level fractional factorial designs: sign table, generators, defining
relation, aliases (confoundings) and resolution.

Feitelson (seed 001) after Box, Hunter & Hunter (2005), "Statistics for Experimenters", 2nd ed.,
ch. 6: the first k - p factors form a full factorial, each of the other p is set by a generator
(a product of base factors); the generators' words span the defining contrast subgroup, whose
shortest word gives the resolution, and each effect is confounded with its products by the
subgroup's words. `factorial` (in `fastperf.designs.factorial`) analyses measurements taken at a
design's runs.

Factors are lettered A, B, C, ... in the order given (the letter I is skipped: it names the
identity column). Words (effects, interactions) are bit masks: bit j is factor j.
"""
from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from fastperf.data.validation import check_whole_number
from fastperf.errors import InputError

__all__ = [
    "fractional_design", "FractionalDesign", "detect_fraction", "LETTERS", "MAX_DESIGN_FACTORS",
    "MAX_SEARCH", "popcount", "word_bits", "word_name", "word_key", "sign_matrix",
]

#: Factor letters, in order (no I: it names the identity column / the mean).
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
#: Most factors of a design: 2^16 words in the alias table.
MAX_DESIGN_FACTORS = 16
#: Most candidate generator sets examined by the resolution search.
MAX_SEARCH = 2_000_000


def popcount(a: Any) -> np.ndarray:
    """The number of letters of each word.

    Parameters
    ----------
    a : int or array of int
        Words as bit masks.

    Returns
    -------
    numpy.ndarray of int64
        The number of set bits of each mask, shaped like `a`.

    Notes
    -----
    The length of a word; the resolution of a design is the shortest length in its defining
    relation (Box, Hunter & Hunter 2005, ch. 6).
    """
    return np.bitwise_count(np.asarray(a, dtype=np.int64)).astype(np.int64)


def word_bits(mask: int) -> tuple[int, ...]:
    """The factors of a word.

    Parameters
    ----------
    mask : int
        A word as a bit mask.

    Returns
    -------
    tuple of int
        The indices of its set bits, ascending (factor j is letter ``LETTERS[j]``).

    Notes
    -----
    Bookkeeping of the bit-mask representation: no formula.
    """
    return tuple(j for j in range(mask.bit_length()) if mask >> j & 1)


def word_name(mask: int, letters: str = LETTERS) -> str:
    """A word in letters.

    Parameters
    ----------
    mask : int
        A word as a bit mask.
    letters : str
        The letter of each factor.

    Returns
    -------
    str
        Its letters in factor order, e.g. "ABD"; "I" for the empty word (the mean).

    Notes
    -----
    Box, Hunter & Hunter's notation (2005, ch. 6): I is the identity column.
    """
    return "".join(letters[j] for j in word_bits(mask)) or "I"


def word_key(mask: int) -> tuple[int, tuple[int, ...]]:
    """Sort key of words: shorter first, then alphabetical (A, B, C, AB, AC, BC, ABC).

    Parameters
    ----------
    mask : int
        A word as a bit mask.

    Returns
    -------
    tuple
        (its length, its factor indices).

    Notes
    -----
    The conventional order of effects in a sign table (main effects, then two-factor
    interactions, ...), as Feitelson (seed 001) and Jain (1991, ch. 17) list them.
    """
    return (bin(mask).count("1"), word_bits(mask))


def sign_matrix(cells: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The sign table: s[i, e] = prod over factors j in word e of x_j(cell i), x = -1 / +1.

    Parameters
    ----------
    cells : array of int
        The runs, each a bit mask of the factors at their high (+1) level.
    masks : array of int
        The words (columns of the table).

    Returns
    -------
    numpy.ndarray of int64
        Shape (cells, words), entries -1 or +1.

    Notes
    -----
    The sign-table method of Jain (1991), "The Art of Computer Systems Performance Analysis",
    ch. 17 (and Feitelson, seed 001): a product of -1/+1 levels is -1 exactly when an odd
    number of the word's factors are low.
    """
    low = ~np.asarray(cells, dtype=np.int64)[:, None] & np.asarray(masks, dtype=np.int64)[None, :]
    return 1 - 2 * (popcount(low) & 1)


class FractionalDesign:
    """A regular 2^(k-p) two-level design.

    Attributes
    ----------
    k, p : int
        Factors and the fraction: 2^(k-p) experiments.
    table : pyarrow.Table
        The sign table, one row per experiment, columns ``A``, ``B``, ... (int64, -1 / +1). Rows in
        the standard order of the k - p base factors (the first base factor alternates fastest);
        each generated factor's column is its generator's product column.
    generators : dict of str -> str
        Each generated factor's word over the base factors, e.g. ``{"D": "ABC"}``; a leading
        ``-`` marks the half with ``I = -...`` (only for fractions detected in data).
    defining_relation : list of str
        The words w with ``I = w`` (the defining contrast subgroup less I itself), shortest first.
    aliases : pyarrow.Table
        One row per sign-table column (2^(k-p) rows): ``effect`` (the column's name: a base word,
        or the generated factor's letter for a generator column) and ``aliases`` (the effects it
        is confounded with, comma-separated; ``-`` where the sign is negative). Together the rows
        partition all 2^k effects.
    resolution : int or None
        The length of the shortest defining word (None for a full factorial, p = 0).
    alias_sets : list of (int, str)
        Per sign-table column, in word order: the word naming it (a bit mask) and the text of
        its aliases (as in `aliases`).

    Notes
    -----
    Box, Hunter & Hunter (2005), "Statistics for Experimenters", 2nd ed., ch. 6: the
    defining contrast subgroup is spanned by the words "generator x generated factor"; an
    effect's aliases are its products with the subgroup's words, with the subgroup's signs.
    """

    def __init__(self, k: int, base: Sequence[int], generators: Sequence[tuple[int, int, int]]):
        # generators: (added factor, word over the base factors, sign)
        self.k = k
        self.p = len(generators)
        self._base = list(base)
        self._gens = list(generators)
        group = {0: 1}
        for added, word, sign in self._gens:
            full = word | (1 << added)
            group.update({w ^ full: s * sign for w, s in list(group.items())})
        self._group = group
        words = sorted((w for w in group if w), key=word_key)
        self.defining_relation = [("-" if group[w] < 0 else "") + word_name(w) for w in words]
        self.resolution = int(min(popcount(words))) if words else None
        self.generators = {
            LETTERS[added]: ("-" if sign < 0 else "") + word_name(word) for added, word, sign in self._gens
        }
        self.alias_sets = self._alias_columns()
        self.aliases = pa.table({
            "effect": [word_name(rep) for rep, _ in self.alias_sets],
            "aliases": [text for _, text in self.alias_sets],
        })
        runs = self.run_cells()
        x = 1 - 2 * (~runs[:, None] >> np.arange(k)[None, :] & 1)
        self.table = pa.table({LETTERS[j]: x[:, j].astype(np.int64) for j in range(k)})

    def _alias_columns(self) -> list[tuple[int, str]]:
        """(representative word, aliases text) for each sign-table column, in word order."""
        named = {word: added for added, word, _ in self._gens}
        out = []
        for r in range(1 << len(self._base)):
            word = sum(1 << self._base[j] for j in word_bits(r))
            rep = 1 << named[word] if word in named else word
            others = sorted((rep ^ w for w in self._group if w), key=word_key)
            text = ", ".join(
                ("-" if self._group[rep ^ o] < 0 else "") + word_name(o) for o in others
            )
            out.append((rep, text))
        return sorted(out, key=lambda item: word_key(item[0]))

    def run_cells(self) -> np.ndarray:
        """The experiments of the design as cells.

        Returns
        -------
        numpy.ndarray of int64
            One bit mask per run (bit j set: factor j at its high level), 2^(k-p) of them in the
            standard order of the base factors (the first alternates fastest).

        Notes
        -----
        Each generated factor's level is its generator's sign-table product times the
        generator's sign (Box, Hunter & Hunter 2005, ch. 6).
        """
        n = 1 << len(self._base)
        r = np.arange(n, dtype=np.int64)
        cells = np.zeros(n, dtype=np.int64)
        for position, factor in enumerate(self._base):
            cells |= (r >> position & 1) << factor
        for added, word, sign in self._gens:
            high = sign_matrix(cells, np.array([word]))[:, 0] * sign > 0
            cells |= high.astype(np.int64) << added
        return cells

    def __repr__(self) -> str:
        gens = ", ".join(f"{a}={w}" for a, w in self.generators.items()) or "none"
        return (f"<FractionalDesign 2^({self.k}-{self.p}): {1 << (self.k - self.p)} runs, "
                f"generators {gens}, resolution {self.resolution}>")


def _parse_word(text: str, d: int, what: str) -> tuple[int, int]:
    """A generator word like "ABC" or "-ABC" over the first d letters: (mask, sign)."""
    text = given = str(text).strip().replace(" ", "")
    sign = -1 if text.startswith("-") else 1
    if text[:1] in ("+", "-"):  # one sign ("--ABC" is refused below, not read as -ABC)
        text = text[1:]
    allowed = LETTERS[:d]
    if not text or any(c not in allowed for c in text) or len(set(text)) != len(text):
        raise InputError(
            f"generator {what}={given!r} must be a product of distinct base factors "
            f"{list(allowed)} "
            "(the first k - p letters), e.g. 'ABC'"
        )
    return sum(1 << allowed.index(c) for c in text), sign


def _search_generators(k: int, p: int) -> list[tuple[int, int, int]]:
    """Generators of maximum resolution, then minimum aberration (fewest shortest words)."""
    d = k - p
    candidates = sorted((m for m in range(1, 1 << d) if bin(m).count("1") >= 2), key=word_key)
    if len(candidates) < p:
        raise InputError(
            f"a 2^({k}-{p}) design has only {len(candidates)} interaction columns for {p} "
            f"generated factors (resolution below III); use fewer factors or a smaller p, or pass "
            "generators= explicitly"
        )
    if comb(len(candidates), p) > MAX_SEARCH:
        raise InputError(
            f"too many generator sets to search for a 2^({k}-{p}) design "
            f"({comb(len(candidates), p)}); pass generators= explicitly"
        )
    cand = np.array(candidates, dtype=np.int64)
    chosen = np.array(list(combinations(range(len(cand)), p)), dtype=np.int64).reshape(-1, p)
    words = cand[chosen] | (np.int64(1) << (d + np.arange(p, dtype=np.int64)))[None, :]
    subsets = np.arange(1, 1 << p)
    group = np.zeros((chosen.shape[0], subsets.shape[0]), dtype=np.int64)
    for s in range(p):
        group ^= np.where((subsets >> s & 1)[None, :] == 1, words[:, s:s + 1], 0)
    lengths = popcount(group)
    pattern = np.stack([(lengths == n).sum(axis=1) for n in range(1, k + 1)], axis=1)
    best = int(np.lexsort(pattern.T[::-1])[0])  # smallest word-length pattern, first such set
    return [(d + s, int(cand[chosen[best, s]]), 1) for s in range(p)]


def fractional_design(
    k: int, p: int, *, generators: Mapping[str, str] | Sequence[str] | None = None
) -> FractionalDesign:
    """The 2^(k-p) fractional factorial design: sign table, generators, confoundings, resolution.

    Parameters
    ----------
    k : int
        Number of two-level factors (lettered A, B, C, ..., skipping I), 1 <= k <= 16.
    p : int
        Fraction: the design has 2^(k-p) experiments, 0 <= p < k. The first k - p factors form
        a full factorial; each of the last p is set by a generator (a product of base factors).
    generators : dict or list of str, optional
        ``{"D": "ABC"}``, ``["D=ABC"]`` or ``["ABC"]`` (assigned to the generated factors in
        order); ``-`` before a word takes the other half (``D=-ABC``). By default the generators
        of highest resolution are chosen, ties broken by the fewest shortest defining words
        (minimum aberration), then by the earliest words (AB, AC, BC, ABC, ...): D = ABC for
        2^(4-1), D = AB, E = AC, F = BC, G = ABC for 2^(7-4).

    Returns
    -------
    FractionalDesign
        ``.table``, ``.generators``, ``.defining_relation``, ``.aliases``, ``.resolution``.

    Raises
    ------
    InputError
        k or p not whole numbers in range, a generator for a factor that is not generated or
        over letters that are not base factors, or no generator set of resolution III or more.

    Notes
    -----
    Box, Hunter & Hunter (2005), "Statistics for Experimenters", 2nd ed., ch. 6 (fractional
    factorials, resolution, minimum aberration: Fries & Hunter 1980, Technometrics 22, 601-608);
    Feitelson (seed 001) works the 2^(k-p) examples. The default generators are found by
    exhaustive search over the sets of interaction columns of the base factors (at most
    `MAX_SEARCH` sets), comparing their word-length patterns.
    """
    k = check_whole_number(k, "k", minimum=1, maximum=MAX_DESIGN_FACTORS)
    p = check_whole_number(p, "p", minimum=0, maximum=k - 1)  # p < k
    d = k - p
    added = LETTERS[d:k]
    if generators is None:
        gens = _search_generators(k, p) if p else []
        return FractionalDesign(k, range(d), gens)
    if isinstance(generators, str):
        generators = [generators]
    accepted = ("a dict added factor -> word like {'C': 'AB'}, a list of words like ['C=AB'] "
                "or ['AB'], or None (the generators of highest resolution)")
    if isinstance(generators, Mapping):
        if not all(isinstance(a, str) and isinstance(w, str) for a, w in generators.items()):
            raise InputError(f"generators must be {accepted}; got {generators!r}, whose keys "
                             "and words must be strings")
        items = [(a.strip(), w) for a, w in generators.items()]
    elif not isinstance(generators, (list, tuple)):
        raise InputError(f"generators must be {accepted}, got {generators!r}")
    elif not all(isinstance(g, str) for g in generators):
        raise InputError(f"generators must be {accepted}; got {generators!r}, which holds a "
                         "word that is not a string")
    else:
        items = []
        for position, g in enumerate(generators):
            left, eq, right = str(g).partition("=")
            if eq:
                items.append((left.strip(), right))
            else:
                items.append((added[position] if position < p else "?", left))
    if sorted(a for a, _ in items) != sorted(added):
        raise InputError(
            f"a 2^({k}-{p}) design needs one generator for each of {list(added)}, "
            f"got {[a for a, _ in items]}"
        )
    gens = []
    for letter, word in sorted(items, key=lambda item: added.index(item[0])):
        mask, sign = _parse_word(word, d, letter)
        gens.append((LETTERS.index(letter), mask, sign))
    return FractionalDesign(k, range(d), gens)


def detect_fraction(cells: np.ndarray, k: int) -> FractionalDesign | None:
    """The regular fraction whose runs are exactly `cells`, or None when they are not one.

    Parameters
    ----------
    cells : numpy.ndarray of int64
        The distinct runs measured, as bit masks (bit j: factor j high).
    k : int
        The number of factors.

    Returns
    -------
    FractionalDesign or None
        The 2^(k-p) design (base factors the ones left free, generators in reduced form, signs
        as measured) whose runs are `cells`; None when the runs are no regular fraction.

    Notes
    -----
    A set of 2^(k-p) runs is a regular fraction exactly when 2^p sign-table columns are
    constant on it (the defining contrast subgroup; Box, Hunter & Hunter 2005, ch. 6); a
    basis of those words in reduced row-echelon form over GF(2) gives one generator per pivot
    factor.
    """
    m = cells.shape[0]
    if m < 2 or m & (m - 1):
        return None
    masks = np.arange(1 << k, dtype=np.int64)
    signs = sign_matrix(cells, masks)
    constant = np.flatnonzero(np.all(signs == signs[:1], axis=0))
    if constant.shape[0] * m != 1 << k:
        return None
    sign_of = {int(w): int(signs[0, w]) for w in constant}
    basis: dict[int, int] = {}  # pivot (highest factor) -> word
    for w in sorted(sign_of):
        for pivot, b in sorted(basis.items(), reverse=True):
            if w >> pivot & 1:
                w ^= b
        if w:
            basis[w.bit_length() - 1] = w
    for pivot in sorted(basis):  # back-substitution: no pivot appears in another word
        for other in basis:
            if other != pivot and basis[other] >> pivot & 1:
                basis[other] ^= basis[pivot]
    base = [j for j in range(k) if j not in basis]
    gens = [(pivot, w ^ (1 << pivot), sign_of[w]) for pivot, w in sorted(basis.items())]
    return FractionalDesign(k, base, gens)
