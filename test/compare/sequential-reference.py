"""Reference figures for the sequential rule's test (src/compare/sequential.test.ts), with scipy.

Run from the repository's root:
  python3 test/compare/sequential-reference.py > test/compare/sequential-reference.json

For each plan (the looks' one-sided levels and information times), the chance that a z statistic
observed at those times ever crosses z_{1-level} when nothing changed: one minus the multivariate
normal CDF of (Z_1, ..., Z_K) below the bounds, Corr(Z_i, Z_j) = sqrt(t_i / t_j) for t_i <= t_j
(scipy.stats.multivariate_normal, a different method from the test's recursion on a grid).
"""
import json
import math

import numpy as np
import scipy
from scipy import stats

LEVEL = 0.05
INTERIM_SHARE = 0.4


def plan(looks):
    if looks == 1:
        return [LEVEL]
    return [LEVEL * INTERIM_SHARE / (looks - 1)] * (looks - 1) + [LEVEL * (1 - INTERIM_SHARE)]


def crossing(levels, times):
    k = len(levels)
    cov = np.array([[math.sqrt(min(times[i], times[j]) / max(times[i], times[j])) for j in range(k)] for i in range(k)])
    bounds = np.array([stats.norm.ppf(1 - a) for a in levels])
    if k == 1:
        return float(1 - stats.norm.cdf(bounds[0]))
    below = stats.multivariate_normal(mean=np.zeros(k), cov=cov, allow_singular=False, seed=1, maxpts=2_000_000 * k, abseps=1e-8, releps=1e-8).cdf(bounds)
    return float(1 - below)


cases = []
for looks in [1, 2, 3, 5]:
    times = [(i + 1) / looks for i in range(looks)]
    levels = plan(looks)
    cases.append({'levels': levels, 'times': times, 'crossing': crossing(levels, times)})
# Unequal information (a suite of 3 repeats whose later rounds ask fewer questions).
cases.append({'levels': plan(3), 'times': [0.5, 0.8, 1.0], 'crossing': crossing(plan(3), [0.5, 0.8, 1.0])})
print(json.dumps({'made': {'scipy': scipy.__version__, 'numpy': np.__version__}, 'level': LEVEL,
                  'interimShare': INTERIM_SHARE, 'cases': cases}, indent=1))
