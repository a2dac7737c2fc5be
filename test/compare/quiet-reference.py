"""Reference figures for the quiet watch's drift check (src/compare/watch.ts, excursionZ), recorded with numpy and scipy.

Run from the repository's root:  python3 test/compare/quiet-reference.py > test/compare/quiet-reference.json
(then `npx prettier --write test/compare/quiet-reference.json`)

A seeded history of health runs (30 attempts a run, 4 a day) under a daily AR(1) drift (phi 0.9)
over the four weeks before an excursion, then two excursions: a 20% drop (three runs) and a small
one (twelve runs). For each, computed here by numpy on its own arrays with drift-reference.py's
fit (within-day dispersion, semivariogram fit, c' Sigma c with scipy's toeplitz): the excursion's
pass rate minus its baseline week's, over the square root of both sides' binomial variances at the
baseline's rate (shrunk by one pass and one fail) times the dispersion plus the drift's share of
the contrast.
"""
import contextlib
import importlib.util
import io
import json
import pathlib
import sys

import numpy as np
import scipy

spec = importlib.util.spec_from_file_location("drift", pathlib.Path(__file__).with_name("drift-reference.py"))
drift = importlib.util.module_from_spec(spec)
with contextlib.redirect_stdout(io.StringIO()):
    spec.loader.exec_module(drift)

DAY, HOUR, START = drift.DAY, drift.HOUR, drift.DEPLOYED


def by_day(runs):
    days = {}
    for r in runs:
        d = (r["at"] - START) // DAY
        days[d] = days.get(d, 0) + r["passed"] + r["failed"]
    return sorted(days.items())


def excursion_z(history, before, after):
    scale = drift.within_day_dispersion(history)
    model = drift.fit(history, scale)
    pb, nb = sum(r["passed"] for r in before), sum(r["passed"] + r["failed"] for r in before)
    pa, na = sum(r["passed"] for r in after), sum(r["passed"] + r["failed"] for r in after)
    rate = (pb + 1) / (nb + 2)
    variance = scale * rate * (1 - rate) * (1 / na + 1 / nb) + drift.contrast(model, by_day(after), by_day(before))
    return (pa / na - pb / nb) / np.sqrt(variance), scale, model


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
