"""Reference figures for the watch's drift variance (src/compare/watch.ts), recorded with numpy and scipy.

Run from the repository's root:  python3 test/compare/drift-reference.py > test/compare/drift-reference.json
(then `npx prettier --write test/compare/drift-reference.json`)

Three seeded histories of health runs (30 attempts a run) before a deployment: independent runs,
runs under a slow AR(1) drift of the daily level (phi 0.97), and a short history under a fast one
(phi 0.5, ten days, two runs a day). For each, computed here by numpy on its own arrays:
- the runs' dispersion within days (Pearson's chi-squared of each run against its day's rate over
  runs - days degrees of freedom, floored at one half);
- the drift fit: the semivariogram of the daily pass rates, each day's binomial noise taken out,
  fitted as tau^2 (1 - phi^h) by weighted least squares (numpy.linalg.lstsq at each phi of the grid,
  the least residual kept), then the floor;
- the variance of the contrast (after - before) of daily levels, c' Sigma c with Sigma the AR(1)
  covariance built by scipy.linalg.toeplitz.
And the contrast variance of a known AR(1) against a Monte Carlo of 200,000 paths drawn with
scipy.signal.lfilter: the formula, checked by simulation.
"""
import json
import sys

import numpy as np
import scipy
from scipy.linalg import toeplitz
from scipy.signal import lfilter

DAY = 86_400_000
HOUR = 3_600_000
DEPLOYED = 1_772_928_000_000  # 2026-03-08T00:00:00Z
PHIS = [i * 0.05 for i in range(20)] + [0.97, 0.98, 0.99, 0.995]
MAX_LAG = 14
FLOOR_SHARE = 0.1
FULL_DAYS = 21
MIN_DISPERSION = 0.5


def ar1(rng, phi, sd, days):
    x = np.empty(days)
    x[0] = sd * rng.standard_normal()
    for d in range(1, days):
        x[d] = phi * x[d - 1] + np.sqrt(1 - phi**2) * sd * rng.standard_normal()
    return x


def history(seed, days, per_day, phi, sd, rate=0.9, size=30):
    rng = np.random.default_rng(seed)
    level = ar1(rng, phi, sd, days) if sd > 0 else np.zeros(days)
    runs = []
    for d in range(days):
        p = float(np.clip(rate + level[d], 0.01, 0.99))
        for k in range(per_day):
            passed = int(rng.binomial(size, p))
            at = DEPLOYED + (d - days) * DAY + k * (DAY // per_day) + HOUR
            runs.append({"at": at, "passed": passed, "failed": size - passed, "unjudged": 0})
    return runs


def day_of(at):
    return (at - DEPLOYED) // DAY


def within_day_dispersion(runs):
    day = np.array([day_of(r["at"]) for r in runs])
    passed = np.array([r["passed"] for r in runs], float)
    n = passed + np.array([r["failed"] for r in runs], float)
    rate = passed.sum() / n.sum()
    days = np.unique(day)
    day_rate = {d: passed[day == d].sum() / n[day == d].sum() for d in days}
    expected = np.array([day_rate[d] for d in day]) * n
    pearson = np.sum((passed - expected) ** 2 / (n * rate * (1 - rate)))
    return max(MIN_DISPERSION, pearson / (len(runs) - len(days)))


def fit(runs, scale):
    day = np.array([day_of(r["at"]) for r in runs])
    passed = np.array([r["passed"] for r in runs], float)
    n = passed + np.array([r["failed"] for r in runs], float)
    days = np.unique(day)
    dp = np.array([passed[day == d].sum() for d in days])
    dn = np.array([n[day == d].sum() for d in days])
    p = (passed.sum() + 1) / (n.sum() + 2)
    run_noise = scale * p * (1 - p) / (n.sum() / len(runs))
    floor = FLOOR_SHARE * run_noise * max(1.0, FULL_DAYS / len(days))
    y = dp / dn
    v = scale * p * (1 - p) / dn
    hs, ws, gs = [], [], []
    for h in range(1, MAX_LAG + 1):
        i, j = np.nonzero(days[None, :] - days[:, None] == h)
        if len(i) == 0:
            continue
        g = np.mean(0.5 * (y[j] - y[i]) ** 2 - 0.5 * (v[i] + v[j]))
        hs.append(h), ws.append(len(i)), gs.append(g)
    hs, ws, gs = np.array(hs, float), np.array(ws, float), np.array(gs)
    best = None
    for phi in PHIS:
        shape = 1 - phi**hs
        a = (np.sqrt(ws) * shape)[:, None]
        b = np.sqrt(ws) * gs
        tau2 = max(0.0, float(np.linalg.lstsq(a, b, rcond=None)[0][0])) if np.any(shape > 0) else 0.0
        sse = float(np.sum(ws * (gs - tau2 * shape) ** 2))
        if best is None or sse < best[2] - 1e-18:
            best = (tau2, phi, sse)
    tau2, phi, _ = best
    return {"variance": max(tau2, floor), "phi": phi, "days": int(len(days)), "floored": bool(tau2 < floor)}


def contrast(model, after, before):
    lo = min(d for d, _ in after + before)
    hi = max(d for d, _ in after + before)
    c = np.zeros(hi - lo + 1)
    for sign, side in ((1, after), (-1, before)):
        total = sum(n for _, n in side)
        for d, n in side:
            c[d - lo] += sign * n / total
    sigma = model["variance"] * toeplitz(model["phi"] ** np.arange(len(c)))
    return float(c @ sigma @ c)


def monte_carlo(phi, variance, after, before, paths=200_000, seed=7):
    lo = min(d for d, _ in after + before)
    hi = max(d for d, _ in after + before)
    rng = np.random.default_rng(seed)
    sd = np.sqrt(variance)
    start = sd * rng.standard_normal(paths)
    shocks = np.sqrt(1 - phi**2) * sd * rng.standard_normal((paths, hi - lo))
    x = np.empty((paths, hi - lo + 1))
    x[:, 0] = start
    x[:, 1:], _ = lfilter([1.0], [1.0, -phi], shocks, axis=1, zi=(phi * start)[:, None])
    c = np.zeros(hi - lo + 1)
    for sign, side in ((1, after), (-1, before)):
        total = sum(n for _, n in side)
        for d, n in side:
            c[d - lo] += sign * n / total
    return float(np.var(x @ c))


BEFORE = [(d, 120) for d in range(-7, 0)]
AFTER_FIRST_DAY = [(0, 90)]
AFTER_WEEK = [(d, 120) for d in range(0, 7)]

histories = []
for name, seed, days, per_day, phi, sd in [
    ("independent runs", 11, 28, 4, 0.0, 0.0),
    ("slow drift (phi 0.97)", 12, 28, 4, 0.97, 0.03),
    ("short history, fast drift (phi 0.5)", 13, 10, 2, 0.5, 0.04),
]:
    runs = history(seed, days, per_day, phi, sd)
    scale = within_day_dispersion(runs)
    model = fit(runs, scale)
    histories.append(
        {
            "name": name,
            "runs": runs,
            "withinDayDispersion": scale,
            "model": model,
            "contrastFirstDay": contrast(model, AFTER_FIRST_DAY, BEFORE),
            "contrastWeek": contrast(model, AFTER_WEEK, BEFORE),
        }
    )

known = []
for phi, variance in [(0.0, 0.001), (0.5, 0.001), (0.97, 0.002)]:
    model = {"variance": variance, "phi": phi}
    for after_name, after in (("first day", AFTER_FIRST_DAY), ("week", AFTER_WEEK)):
        known.append(
            {
                "phi": phi,
                "variance": variance,
                "after": after_name,
                "contrast": contrast(model, after, BEFORE),
                "monteCarlo": monte_carlo(phi, variance, after, BEFORE),
            }
        )

json.dump(
    {
        "versions": {"python": sys.version.split()[0], "scipy": scipy.__version__, "numpy": np.__version__},
        "deployedAt": DEPLOYED,
        "before": BEFORE,
        "afterFirstDay": AFTER_FIRST_DAY,
        "afterWeek": AFTER_WEEK,
        "histories": histories,
        "known": known,
    },
    sys.stdout,
    indent=1,
)
sys.stdout.write("\n")
