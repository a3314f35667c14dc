"""Distributions of counts and sizes: their medians (pure Python) and their draws (numpy).

A draw is the distribution's inverse CDF at a uniform number ``u`` in [0, 1), rounded half up to
a whole number and raised to the distribution's minimum. The uniforms come from numpy's PCG64
generator (``Generator.random``, whose stream numpy keeps stable), and every transform is written
here rather than taken from numpy's samplers, so that the same seed gives the same numbers with any
numpy version. The **median** is the draw at ``u = 0.5``: what ``agentcost estimate`` uses when it
does not simulate, so a scenario whose distributions are all ``fixed`` estimates the same either way.

* ``uniform (min, max)``: every whole number from min to max equally likely.
* ``triangular (min, mode, max)``: the triangle distribution.
* ``pert (min, mode, max)``: Beta-PERT, a Beta distribution on [min, max] with shape parameters
  ``1 + 4 (mode - min) / (max - min)`` and ``1 + 4 (max - mode) / (max - min)``: smoother than the
  triangle, with the same most likely value and mean ``(min + 4 mode + max) / 6``.
* ``lognormal (median, p90)``: ``exp(N(mu, sigma))`` with ``mu = ln median`` and
  ``sigma = (ln p90 - ln median) / z(0.9)``; unbounded above.
* ``empirical (values)``: each observed value equally likely (values sorted when read).

Every draw is at most :data:`MAX_DRAW`, the largest size a scenario may state: a lognormal's tail
is cut there before its value is made a whole number, so that no draw, however extreme the
distribution (``median: 1, p90: 1000000000`` reaches 10^57 at u = 1 - 1e-16), can overflow a 64-bit
integer.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

from agentcost.scenario.model import Dist

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAX_DRAW = 1_000_000_000
"""The largest value a draw takes: a scenario's largest size (``scenario.values.MAX_COUNT``,
docs/uncertainty.md); an unbounded (lognormal) tail is cut here."""
_LOG_MAX_DRAW = math.log(MAX_DRAW + 1)  # exp() of more rounds above MAX_DRAW: cut before exp
Z90 = 1.2815515655446004  # the standard normal distribution's 90th percentile
_PERT_GRID = 4096  # points of the tabulated Beta CDF of a PERT distribution


def upper(dist: Dist) -> int | None:
    """The largest value a draw can take (None: unbounded)."""
    if dist.kind == "lognormal":
        return None
    return max(dist.minimum, _round(float(max(dist.params))))


def median(dist: Dist) -> int:
    """The draw at u = 0.5 (see the module docstring)."""
    return _finish(dist, _ppf_scalar(dist, 0.5))


def mean(dist: Dist) -> float:
    """The distribution's mean before rounding (for descriptions and tests; never for money)."""
    p = [float(x) for x in dist.params]
    if dist.kind == "fixed":
        return p[0]
    if dist.kind == "uniform":
        return (p[0] + p[1]) / 2
    if dist.kind == "triangular":
        return sum(p) / 3
    if dist.kind == "pert":
        return (p[0] + 4 * p[1] + p[2]) / 6
    if dist.kind == "lognormal":
        sigma = _sigma(p[0], p[1])
        return p[0] * math.exp(sigma * sigma / 2)
    return sum(p) / len(p)


def describe(dist: Dist) -> str:
    """One short phrase: ``triangular 4-12, most likely 6``, ``lognormal median 800, p90 3,000``."""
    p = [_num(x) for x in dist.params]
    if dist.kind == "fixed":
        return f"fixed {p[0]}"
    if dist.kind == "uniform":
        return f"uniform {p[0]}\N{EN DASH}{p[1]}"
    if dist.kind in ("triangular", "pert"):
        return f"{dist.kind} {p[0]}\N{EN DASH}{p[2]}, most likely {p[1]}"
    if dist.kind == "lognormal":
        return f"lognormal median {p[0]}, p90 {p[1]}"
    return f"empirical, {len(p)} values {p[0]}\N{EN DASH}{p[-1]}"


def sample(dist: Dist, u: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Draws for the uniforms ``u`` (any shape), as whole numbers from ``dist.minimum`` to
    :data:`MAX_DRAW`: cut as floats, before the conversion to int64 (which would overflow)."""
    import numpy as np

    p = [float(x) for x in dist.params]
    x: npt.NDArray[np.float64]
    if dist.kind == "fixed":
        x = np.full(u.shape, p[0])
    elif dist.kind == "uniform":
        lo, hi = p
        return np.maximum(np.minimum(np.floor(lo + u * (hi - lo + 1)), hi), dist.minimum).astype(np.int64)
    elif dist.kind == "triangular":
        lo, mode, hi = p
        x = _triangular(u, lo, mode, hi)
    elif dist.kind == "pert":
        grid, cdf = _pert_table(*dist.params)
        x = np.interp(u, cdf, grid)
    elif dist.kind == "lognormal":
        logs = math.log(p[0]) + _sigma(p[0], p[1]) * normal_ppf_fast(u)
        x = np.exp(np.minimum(logs, _LOG_MAX_DRAW))
    else:
        values = np.array(p)
        return np.maximum(
            np.round(values[np.minimum((u * len(p)).astype(np.int64), len(p) - 1)]), dist.minimum
        ).astype(np.int64)
    return np.minimum(np.maximum(np.floor(x + 0.5), dist.minimum), MAX_DRAW).astype(np.int64)


# --- the inverse CDFs --------------------------------------------------------------------------------


def _ppf_scalar(dist: Dist, u: float) -> float:
    p = [float(x) for x in dist.params]
    if dist.kind == "fixed":
        return p[0]
    if dist.kind == "uniform":
        return min(math.floor(p[0] + u * (p[1] - p[0] + 1)), p[1])
    if dist.kind == "triangular":
        return _triangular_scalar(u, *p)
    if dist.kind == "pert":
        grid, cdf = _pert_table(*dist.params)
        i = bisect_left(cdf, u)
        if i == 0:
            return grid[0]
        if i >= len(cdf):
            return grid[-1]
        lo, hi = cdf[i - 1], cdf[i]
        return grid[i - 1] + (grid[i] - grid[i - 1]) * ((u - lo) / (hi - lo) if hi > lo else 0.0)
    if dist.kind == "lognormal":
        return math.exp(math.log(p[0]) + _sigma(p[0], p[1]) * _normal_ppf_scalar(u))
    return p[min(int(u * len(p)), len(p) - 1)]


def _finish(dist: Dist, x: float) -> int:
    return max(_round(x), dist.minimum)


def _round(x: float) -> int:
    return math.floor(x + 0.5)


def _num(x: Decimal) -> str:
    return f"{x:,}" if x == x.to_integral_value() else str(x)


def _sigma(median_: float, p90: float) -> float:
    return (math.log(p90) - math.log(median_)) / Z90


def _triangular_scalar(u: float, lo: float, mode: float, hi: float) -> float:
    if hi == lo:
        return lo
    cut = (mode - lo) / (hi - lo)
    if u < cut:
        return lo + math.sqrt(u * (hi - lo) * (mode - lo))
    return hi - math.sqrt((1 - u) * (hi - lo) * (hi - mode))


def _triangular(u: npt.NDArray[np.float64], lo: float, mode: float, hi: float) -> npt.NDArray[np.float64]:
    import numpy as np

    if hi == lo:
        return np.full(u.shape, lo)
    cut = (mode - lo) / (hi - lo)
    left = lo + np.sqrt(u * (hi - lo) * (mode - lo))
    right = hi - np.sqrt((1 - u) * (hi - lo) * (hi - mode))
    return np.where(u < cut, left, right)


@lru_cache(maxsize=64)
def _pert_table(lo_d: Decimal, mode_d: Decimal, hi_d: Decimal) -> tuple[list[float], list[float]]:
    """(x grid, CDF at the grid) of a Beta-PERT distribution: the Beta density integrated with the
    trapezoid rule on a fine grid (its shape parameters are >= 1, so the density is bounded)."""
    lo, mode, hi = float(lo_d), float(mode_d), float(hi_d)
    if hi == lo:
        return [lo, lo], [0.0, 1.0]
    a = 1 + 4 * (mode - lo) / (hi - lo)
    b = 1 + 4 * (hi - mode) / (hi - lo)
    n = _PERT_GRID
    ts = [i / n for i in range(n + 1)]
    dens = [t ** (a - 1) * (1 - t) ** (b - 1) for t in ts]
    cdf = [0.0]
    for i in range(n):
        cdf.append(cdf[-1] + (dens[i] + dens[i + 1]) / 2)
    total = cdf[-1]
    return [lo + t * (hi - lo) for t in ts], [c / total for c in cdf]


# Wichura's algorithm AS 241 (PPND16): the standard normal quantile to about 1e-16.
_A = (
    3.387132872796366608,
    133.14166789178437745,
    1971.5909503065514427,
    13731.693765509461125,
    45921.953931549871457,
    67265.770927008700853,
    33430.575583588128105,
    2509.0809287301226727,
)
_B = (
    1.0,
    42.313330701600911252,
    687.1870074920579083,
    5394.1960214247511077,
    21213.794301586595867,
    39307.89580009271061,
    28729.085735721942674,
    5226.495278852545925,
)
_C = (
    1.42343711074968357734,
    4.6303378461565452959,
    5.7694972214606914055,
    3.64784832476320460504,
    1.27045825245236838258,
    0.24178072517745061177,
    0.0227238449892691845833,
    7.7454501427834140764e-4,
)
_D = (
    1.0,
    2.05319162663775882187,
    1.6763848301838038494,
    0.68976733498510000455,
    0.14810397642748007459,
    0.0151986665636164571966,
    5.475938084995344946e-4,
    1.05075007164441684324e-9,
)
_E = (
    6.6579046435011037772,
    5.4637849111641143699,
    1.7848265399172913358,
    0.29656057182850489123,
    0.026532189526576123093,
    0.0012426609473880784386,
    2.71155556874348757815e-5,
    2.01033439929228813265e-7,
)
_F = (
    1.0,
    0.59983220655588793769,
    0.13692988092273580531,
    0.0148753612908506148525,
    7.868691311456132591e-4,
    1.8463183175100546818e-5,
    1.4215117583164458887e-7,
    2.04426310338993978564e-15,
)


def _poly(coef: tuple[float, ...], x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out = x * 0 + coef[-1]
    for c in reversed(coef[:-1]):
        out = out * x + c
    return out


def normal_ppf(u: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The standard normal quantile of ``u`` (vectorised AS 241); ``u`` = 0 gives a finite -8.3."""
    import numpy as np

    u = np.clip(u, 1e-300, 1 - 1e-16)
    q = u - 0.5
    out = np.empty_like(u)
    central = np.abs(q) <= 0.425
    if central.any():
        qc = q[central]
        r = 0.180625 - qc * qc
        out[central] = qc * _poly(_A, r) / _poly(_B, r)
    tail = ~central
    if tail.any():
        qt = q[tail]
        r = np.sqrt(-np.log(np.where(qt < 0, u[tail], 1 - u[tail])))
        near = r <= 5.0
        x = np.where(near, _poly(_C, r - 1.6) / _poly(_D, r - 1.6), _poly(_E, r - 5.0) / _poly(_F, r - 5.0))
        out[tail] = np.where(qt < 0, -x, x)
    return out


_TABLE_LOW, _TABLE_HIGH, _TABLE_POINTS = 0.001, 0.999, 1 << 16


@lru_cache(maxsize=1)
def _normal_table() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    import numpy as np

    grid = np.linspace(_TABLE_LOW, _TABLE_HIGH, _TABLE_POINTS + 1)
    return grid, normal_ppf(grid)


def normal_ppf_fast(u: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:func:`normal_ppf`, interpolated linearly in a table of 65,537 evenly spaced points between
    u = 0.001 and 0.999 (within 1e-5 of the exact quantile there, and several times faster), exact in
    the tails."""
    import numpy as np

    _grid, z = _normal_table()
    step = (_TABLE_HIGH - _TABLE_LOW) / _TABLE_POINTS
    pos = np.clip((u - _TABLE_LOW) / step, 0, _TABLE_POINTS - 1e-9)
    i = pos.astype(np.int64)
    lo = z[i]
    out = lo + (pos - i) * (z[i + 1] - lo)
    tails = (u < _TABLE_LOW) | (u > _TABLE_HIGH)
    if tails.any():
        out[tails] = normal_ppf(u[tails])
    return out


def _normal_ppf_scalar(u: float) -> float:
    if u == 0.5:
        return 0.0
    from statistics import NormalDist

    return NormalDist().inv_cdf(min(max(u, 1e-300), 1 - 1e-16))
