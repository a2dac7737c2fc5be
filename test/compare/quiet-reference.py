"""Reference figures for the quiet watch's drift check (src/compare/watch.ts, excursionZ), recorded with numpy and scipy.

Run from the repository's root:  python3 test/compare/quiet-reference.py > test/compare/quiet-reference.json
(then `npx prettier --write test/compare/quiet-reference.json`)

A seeded history of health runs (30 attempts a run, 4 a day) under a daily AR(1) drift (phi 0.9)
over the four weeks before an excursion, then two excursions: a 20% drop (three runs) and a small
one (twelve runs); and a history the read cut short (nine days of independent runs, its fit
floored) before a 10% drop of four runs. For each, computed here by numpy on its own arrays with drift-reference.py's
fit (within-day dispersion, semivariogram fit): the day means of the baseline week and of the
excursion, with covariance Sigma + D (Sigma: the fitted AR(1) 1.5 times over, left out when the
floor set it, plus the prior drift, 0.2 of one run's noise at phi 0.9, built by scipy's toeplitz; D: each day's
binomial noise at the baseline's rate, shrunk by one pass and one fail, times the dispersion).
The excursion's mean level is predicted from the baseline days by generalized least squares (the
GLS mean, plus the covariance-weighted residuals: the best linear unbiased predictor, with numpy's
inverse), and z is (observed - predicted) over the square root of the variance of that difference,
c' (Sigma + D) c over all the days.
"""
import contextlib
import importlib.util
import io
import json
import pathlib
import sys

import numpy as np
import scipy
from scipy.linalg import toeplitz

spec = importlib.util.spec_from_file_location("drift", pathlib.Path(__file__).with_name("drift-reference.py"))
drift = importlib.util.module_from_spec(spec)
with contextlib.redirect_stdout(io.StringIO()):
    spec.loader.exec_module(drift)

DAY, HOUR, START = drift.DAY, drift.HOUR, drift.DEPLOYED


PRIOR_SHARE = 0.2
FIT_WEIGHT = 1.5
PRIOR_PHI = 0.9


def day_sums(runs):
    days = {}
    for r in runs:
        d = (r["at"] - START) // DAY
        p, n = days.get(d, (0, 0))
        days[d] = (p + r["passed"], n + r["passed"] + r["failed"])
    return sorted((d, p, n) for d, (p, n) in days.items())


def excursion_z(history, before, after):
    scale = drift.within_day_dispersion(history)
    model = drift.fit(history, scale)
    pb, nb = sum(r["passed"] for r in before), sum(r["passed"] + r["failed"] for r in before)
    rate = (pb + 1) / (nb + 2)
    unit = scale * rate * (1 - rate)
    prior = PRIOR_SHARE * unit * len(before) / nb
    # A floor set by a history of under FULL_DAYS days counts as drift; on a longer one, nothing.
    if not model["floored"]:
        fitted = FIT_WEIGHT * model["variance"]
    else:
        fitted = model["variance"] if model["days"] < drift.FULL_DAYS else 0.0
    b, a = day_sums(before), day_sums(after)
    days = np.array([d for d, _, _ in b] + [d for d, _, _ in a])
    y = np.array([p / n for _, p, n in b + a])
    lo = days.min()
    span = np.arange(days.max() - lo + 1)
    levels = fitted * toeplitz(model["phi"] ** span) + prior * toeplitz(PRIOR_PHI**span)
    full = levels[np.ix_(days - lo, days - lo)] + np.diag([unit / n for _, _, n in b + a])
    nb_days = len(b)
    share = np.array([n for _, _, n in a], float)
    share /= share.sum()
    V = full[:nb_days, :nb_days]
    Vi = np.linalg.inv(V)
    ones = np.ones(nb_days)
    # The covariance of the baseline days' means with the excursion's mean level (its noise apart).
    k = levels[np.ix_(days[:nb_days] - lo, days[nb_days:] - lo)] @ share
    mu_weights = (ones @ Vi) / (ones @ Vi @ ones)
    weights = mu_weights + (k @ Vi) - (k @ Vi @ ones) * mu_weights
    c = np.concatenate([-weights, share])
    return float((c @ y) / np.sqrt(c @ full @ c)), scale, model


history = drift.history(21, 28, 4, 0.9, 0.03)
before = [r for r in history if r["at"] >= START - 7 * DAY]
rng = np.random.default_rng(22)
cases = []
for name, rate, count in [("20% drop, 3 runs", 0.72, 3), ("small drop, 12 runs", 0.86, 12)]:
    after = []
    for k in range(count):
        passed = int(rng.binomial(30, rate))
        after.append({"at": START + HOUR + k * 6 * HOUR, "passed": passed, "failed": 30 - passed, "unjudged": 0})
    z, scale, model = excursion_z(history, before, after)
    cases.append({"name": name, "after": after, "z": float(z), "withinDayDispersion": scale, "model": model})

# A history the read cut short: nine days of independent runs (the fit floored, its floor grown by
# 21 / 9 and counted), then a 10-point drop for four runs.
short = drift.history(23, 9, 4, 0.0, 0.0)
short_before = [r for r in short if r["at"] >= START - 7 * DAY]
after = []
for k in range(4):
    passed = int(rng.binomial(30, 0.81))
    after.append({"at": START + HOUR + k * 6 * HOUR, "passed": passed, "failed": 30 - passed, "unjudged": 0})
z, scale, model = excursion_z(short, short_before, after)
assert model["floored"] and model["days"] < drift.FULL_DAYS
cases.append(
    {"name": "10% drop, 4 runs, nine days read", "history": short, "after": after, "z": float(z), "withinDayDispersion": scale, "model": model}
)

json.dump(
    {
        "versions": {"python": sys.version.split()[0], "scipy": scipy.__version__, "numpy": np.__version__},
        "start": START,
        "history": history,
        "cases": cases,
    },
    sys.stdout,
    indent=1,
)
sys.stdout.write("\n")
