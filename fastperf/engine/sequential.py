"""Anytime-valid inference on a mean: the scale-invariant normal-mixture e-process of the
one-sample t-test, its confidence sequence, and how many more observations it needs.

For observations ``y_1, ..., y_n`` from N(mu + delta sigma, sigma^2), with the right-Haar prior
``1 / sigma`` on the unknown scale and a N(0, g) mixture over the standardized effect delta,
the Bayes factor against ``delta = 0`` is (Rouder, Speckman, Sun, Morey & Iverson 2009, eq. 1
at a fixed g; Lai 1976)::

    E_n(mu) = (1 + n g)^(-1/2) [(1 + t^2 / nu) / (1 + t^2 / (nu (1 + n g)))]^(n / 2),

with ``t = sqrt(n) (ybar - mu) / s`` the one-sample t statistic and ``nu = n - 1``. Because
the prior on sigma is the right-Haar measure of the scale group, E_n(mu) is a nonnegative
martingale with mean 1 under ``mean = mu`` in the filtration of the scale-invariant
statistic, whatever sigma (Lai 1976; Perez-Ortiz, Lardy, de Heide & Grunwald 2024): by Ville's
inequality ``P(E_n(mu) >= 1 / alpha for some n) <= alpha``. Its inversion is a confidence
sequence, an interval at every n that holds the mean at all n at once with probability
``1 - alpha`` (Darling & Robbins 1967; Howard, Ramdas, McAuliffe & Sekhon 2021)::

    CS_n = ybar +- c_n s / sqrt(n),   c_n^2 = nu (K - 1) / (1 - K / G),
    G = 1 + n g,   K = (sqrt(G) / alpha)^(2 / n),

and the whole line while ``K >= G`` (too few observations to exclude anything). Solved from
``E_n < 1 / alpha`` in t^2, as ``(1 + a) / (1 + a / G)`` increases in ``a = t^2 / nu`` towards
G. With ``g = 4`` (the standardized effect's prior sd 2) the first exclusion needs 4
observations; the validity study (docs/sequential.md) shows the choice.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.engine.parametric import paired_t

__all__ = ["MIXTURE_VARIANCE", "ConfidenceSequence", "confidence_sequence", "log_evalue",
           "half_width_factor", "observations_needed"]

#: g, the variance of the standardized effect delta = (mean - mu) / sigma in the mixture.
MIXTURE_VARIANCE = 4.0


@dataclass(frozen=True)
class ConfidenceSequence:
    """The anytime-valid inference on the mean of each sample (`confidence_sequence`).

    Attributes
    ----------
    n : numpy.ndarray of int64
        Observations (NaN-free).
    mean, se : numpy.ndarray
        Their mean and its standard error ``s / sqrt(n)``.
    evalue : numpy.ndarray
        ``E_n(0)``: the evidence against a zero mean (1 with fewer than 2 observations).
    low, high : numpy.ndarray
        The confidence sequence's interval at n (infinite while it excludes nothing).
    status : numpy.ndarray of object
        ``"ok"`` or why there is no inference (fewer than 2 observations, NaN or infinite
        input).
    """

    n: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    evalue: np.ndarray
    low: np.ndarray
    high: np.ndarray
    status: np.ndarray


def log_evalue(t: np.ndarray, n: np.ndarray, g: float = MIXTURE_VARIANCE) -> np.ndarray:
    """log E_n: the log of the t-mixture e-value of the module docstring.

    Parameters
    ----------
    t : numpy.ndarray
        One-sample t statistics against the hypothesized mean; +-inf for a sample without
        spread that differs from it, NaN (taken as 0) for one without spread that equals it.
    n : numpy.ndarray
        Observations, each >= 2.
    g : float
        The mixture variance of the standardized effect.

    Returns
    -------
    numpy.ndarray

    Notes
    -----
    Rouder et al. (2009), eq. 1 at a fixed g; computed with log1p. As ``|t| -> inf`` the
    bracket tends to G, so log E_n -> ((n - 1) / 2) log G.
    """
    n = np.asarray(n, dtype=np.float64)
    log_g = np.log1p(n * g)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.nan_to_num(np.asarray(t, dtype=np.float64), nan=0.0, posinf=np.inf,
                          neginf=np.inf) ** 2 / (n - 1.0)
        bracket = np.where(np.isinf(r), log_g, np.log1p(r) - np.log1p(r / np.exp(log_g)))
    return -0.5 * log_g + 0.5 * n * bracket


def half_width_factor(n: np.ndarray, alpha: float, g: float = MIXTURE_VARIANCE) -> np.ndarray:
    """c_n: the confidence sequence's half-width in standard errors (module docstring).

    Parameters
    ----------
    n : numpy.ndarray
        Observations.
    alpha : float
        The sequence's error: it misses the mean at some n with probability <= alpha.
    g : float
        The mixture variance.

    Returns
    -------
    numpy.ndarray
        ``+inf`` where ``n < 2`` or ``K >= G`` (the interval is the whole line).
    """
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_g = np.log1p(n * g)
        log_k = (log_g - 2.0 * math.log(alpha)) / n
        a = np.expm1(log_k) / -np.expm1(log_k - log_g)
        factor = np.sqrt((n - 1.0) * a)
    return np.where((n >= 2) & (log_k < log_g), factor, np.inf)


def confidence_sequence(observations: Samples, alpha: float,
                        g: float = MIXTURE_VARIANCE) -> ConfidenceSequence:
    """The e-value against a zero mean and the confidence sequence of each sample's mean.

    Parameters
    ----------
    observations : Samples
        The observations so far of each sample (here: the log ratios of paired units).
    alpha : float
        The confidence sequence's error.
    g : float
        The mixture variance of the standardized effect.

    Returns
    -------
    ConfidenceSequence

    Notes
    -----
    The t statistic is the paired t-test's (`fastperf.engine.parametric.paired_t`, Student
    1908); the e-value and interval are those of the module docstring (Lai 1976; Rouder et al.
    2009). A sample of equal observations has s = 0: its interval is its mean alone once
    ``K < G``, and its e-value ``G^((n - 1) / 2)`` when that mean is not 0 (1 / sqrt(G) when it
    is).
    """
    n, t, _, se, mean, status = paired_t(observations)
    # no spread is a valid state here: the formulas take it (see Notes)
    status = np.where(status == "zero variance of the differences", "ok", status).astype(object)
    ok = status == "ok"
    n = n.astype(np.int64)
    n_safe = np.maximum(n, 2)
    evalue = np.where(ok, np.exp(log_evalue(t, n_safe, g)), 1.0)
    factor = half_width_factor(n_safe, alpha, g)
    with np.errstate(invalid="ignore"):
        # an infinite factor is the whole line, whatever the spread (0 x inf is not)
        width = np.where(ok & np.isfinite(factor), factor * se, np.inf)
        low = np.where(ok, mean - width, -np.inf)
        high = np.where(ok, mean + width, np.inf)
    return ConfidenceSequence(n, np.where(ok, mean, np.nan), np.where(ok, se, np.nan), evalue,
                              low, high, status)


def observations_needed(n: np.ndarray, se: np.ndarray, target: np.ndarray, alpha: float,
                        g: float = MIXTURE_VARIANCE, limit: int = 100_000) -> np.ndarray:
    """The fewest observations at which the confidence sequence's half-width reaches `target`,
    were the mean and standard deviation to stay as they are.

    Parameters
    ----------
    n : numpy.ndarray
        Observations so far.
    se : numpy.ndarray
        Standard errors so far (``s = se sqrt(n)``).
    target : numpy.ndarray
        The half-width wanted (> 0).
    alpha, g : float
        As `confidence_sequence`.
    limit : int
        The largest count considered.

    Returns
    -------
    numpy.ndarray of int64
        The count (``> n``), or -1 where even `limit` observations do not reach it.

    Notes
    -----
    The half-width at N is ``s c_N / sqrt(N)`` (`half_width_factor`); the first N whose
    running minimum of ``c_N / sqrt(N)`` is at most ``target / s`` (a projection, not a
    guarantee: s and the mean will move).
    """
    counts = np.arange(2, limit + 1, dtype=np.float64)
    envelope = np.minimum.accumulate(half_width_factor(counts, alpha, g) / np.sqrt(counts))
    s = np.asarray(se, dtype=np.float64) * np.sqrt(np.asarray(n, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where(s > 0, np.asarray(target, dtype=np.float64) / s, np.inf)
    ratio = np.where(np.asarray(target) > 0, ratio, -np.inf)
    # envelope is nonincreasing: the first index where envelope <= ratio
    index = np.searchsorted(-envelope, -np.nan_to_num(ratio, nan=-np.inf), side="left")
    reached = index < envelope.size
    count = np.where(reached, index + 2, -1).astype(np.int64)
    return np.where(reached, np.maximum(count, np.asarray(n, dtype=np.int64) + 1), -1)
