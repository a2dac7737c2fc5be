"""Reference figures for the quiet watch's CUSUM (src/compare/watch.ts), recorded with scipy and numpy.

Run from the repository's root:  python3 test/compare/cusum-reference.py > test/compare/cusum-reference.json
(then `npx prettier --write test/compare/cusum-reference.json`)

The in-control average run length of the one-sided CUSUM S = max(0, S + x - k), alarm at S > h,
x ~ N(0, 1) independent: the Markov chain of Brook and Evans (1972) on 800 states over [0, h)
(state 0 holding the atom at S = 0), the expected steps to absorption solved with numpy; the
transition probabilities from scipy.stats.norm. And the false alarms of the chain within a year of
runs (1 - P(no alarm in n steps)), from the same matrix.
"""
import json
import sys

import numpy as np
import scipy
from scipy.stats import norm

STATES = 800


def chain(k, h, m=STATES):
    w = h / m
    mids = (np.arange(m) + 0.5) * w
    mids[0] = 0.0
    edges = np.arange(m + 1) * w
    p = np.zeros((m, m))
    for i, s in enumerate(mids):
        cdf = norm.cdf(k - s + edges[1:])
        p[i, 0] = cdf[0]
        p[i, 1:] = np.diff(cdf)
    return p


def arl(k, h):
    p = chain(k, h)
    return float(np.linalg.solve(np.eye(len(p)) - p, np.ones(len(p)))[0])


def alarm_within(k, h, n):
    p = chain(k, h)
    start = np.zeros(len(p))
    start[0] = 1.0
    alive = start @ np.linalg.matrix_power(p, n)
    return float(1.0 - alive.sum())


cases = []
for k, h in [(1.0, 4.0), (1.0, 4.5), (1.0, 5.0), (1.0, 7.0), (1.0, 9.0), (0.5, 4.0), (0.5, 6.0)]:
    cases.append({"k": k, "h": h, "arl": arl(k, h), "alarmWithin1460": alarm_within(k, h, 1460)})

json.dump(
    {
        "versions": {"python": sys.version.split()[0], "scipy": scipy.__version__, "numpy": np.__version__},
        "states": STATES,
        "cases": cases,
    },
    sys.stdout,
    indent=1,
)
sys.stdout.write("\n")
