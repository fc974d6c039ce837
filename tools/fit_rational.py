#!/usr/bin/env python3
"""Fit the rational forms of detail/simd_math.hpp: f(x) ~ x P(x^2) / Q(x^2) on |x| <= sqrt(S).

    python3 tools/fit_rational.py tanh 6 3 81.5     tanh_rational's P (degree 6 in x^2), Q (3)
    python3 tools/fit_rational.py erf 6 4 15.5      erf_rational's
    python3 tools/fit_rational.py phi 6 4 31        gelu_rational's: Phi(x) - 1/2, x = sqrt2 z

g(s) = f(sqrt s) / sqrt s is fitted as P(s) / Q(s) with Q(0) = 1 and P(0) = g(0) fixed, so
that tiny x give x g(0) exactly. Minimax of relative error by Lawson's iteration on a
linearised least-squares problem (Loeb's), in 60-digit arithmetic (mpmath, Debian's
python3-mpmath). Prints the largest relative error of the fit and the coefficients as C++
hexadecimal float literals, P's from s^0 and Q's from s^1. The rounding of the coefficients
to float and of the evaluation is not modelled: measure the result over all floats
(tests/exhaustive/simd_math.cpp).
"""
import sys

import mpmath as mp

mp.mp.dps = 60

FUNCTIONS = {
    "tanh": (lambda s: mp.tanh(mp.sqrt(s)) / mp.sqrt(s), mp.mpf(1)),
    "erf": (lambda s: mp.erf(mp.sqrt(s)) / mp.sqrt(s), 2 / mp.sqrt(mp.pi)),
    # The normal distribution's Phi(x) - 1/2 = erf(x / sqrt2) / 2.
    "phi": (lambda s: mp.erf(mp.sqrt(s / 2)) / (2 * mp.sqrt(s)), 1 / mp.sqrt(2 * mp.pi)),
}


def fit(g, g0, top, m, n, points=200, iterations=25):
    """P (m coefficients after g0) and Q (n after 1) of the best fit, and its error."""
    top = mp.mpf(top)
    # Chebyshev points on [0, top], and top itself; the unknowns scaled by powers of top.
    ss = [top * (1 - mp.cos(mp.pi * (i + mp.mpf(1) / 2) / points)) / 2 for i in range(points)]
    ss.append(top)
    gs = [g(s) for s in ss]
    q = [mp.mpf(0)] * n
    weights = [mp.mpf(1)] * len(ss)
    best = None
    for _ in range(iterations):
        a = mp.matrix(len(ss), m + n)
        b = mp.matrix(len(ss), 1)
        for i, (s, gv) in enumerate(zip(ss, gs)):
            q_prev = 1 + sum(q[k] * s ** (k + 1) for k in range(n))
            d = gv * q_prev / mp.sqrt(weights[i])
            for k in range(m):
                a[i, k] = (s / top) ** (k + 1) / d
            for k in range(n):
                a[i, m + k] = -gv * (s / top) ** (k + 1) / d
            b[i] = (gv - g0) / d
        x = mp.qr_solve(a, b)[0]
        p = [x[k] / top ** (k + 1) for k in range(m)]
        q = [x[m + k] / top ** (k + 1) for k in range(n)]
        errors = []
        for s, gv in zip(ss, gs):
            pv = g0 + sum(p[k] * s ** (k + 1) for k in range(m))
            qv = 1 + sum(q[k] * s ** (k + 1) for k in range(n))
            errors.append(pv / qv / gv - 1)
        worst = max(abs(e) for e in errors)
        if best is None or worst < best[0]:
            best = (worst, p, q)
        total = sum(w * abs(e) for w, e in zip(weights, errors))
        weights = [w * abs(e) / total + mp.mpf(10) ** -30 for w, e in zip(weights, errors)]
    return best


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in FUNCTIONS:
        sys.exit(__doc__)
    g, g0 = FUNCTIONS[sys.argv[1]]
    worst, p, q = fit(g, g0, sys.argv[4], int(sys.argv[2]), int(sys.argv[3]))
    print(f"max relative error {float(worst):.3g} ({float(worst) * 2**24:.2f} ulp of float)")
    print("P:", ", ".join(float(v).hex() for v in [g0] + p))
    print("Q:", ", ".join(float(v).hex() for v in [mp.mpf(1)] + q))


if __name__ == "__main__":
    main()
