"""Reference figures for the comparison engine's tests, recorded with scipy and numpy.

Run from the repository's root:  python3 test/compare/reference.py > test/compare/reference.json
(recorded with Python 3, scipy 1.17 and numpy; the JSON holds the versions used).

- Mann-Whitney: scipy.stats.mannwhitneyu(candidate, baseline, method='asymptotic',
  use_continuity=True), one-sided each way: U of the candidate and the two p-values.
- Fisher's exact test: scipy.stats.fisher_exact on [[candidate passes, fails], [baseline
  passes, fails]], alternative 'less' and 'greater'.
- Wilson intervals: scipy.stats.binomtest(k, n).proportion_ci(method='wilson'), at 95% two-sided
  for the interval (`low`, `high`) and at 90% two-sided for the one-sided 95% bounds (`lowerBound`,
  `upperBound`); Newcombe's hybrid score interval combines them (his method 10).
- Cochran-Mantel-Haenszel: its exact conditional mid-p values, the convolution over questions of
  scipy.stats.hypergeom's pmf (the candidate's passes given each question's margins); the
  asymptotic statistic (`pLowerNormal`) is computed here by its formula (the signed
  statistic sum(a - E[a]) / sqrt(sum Var[a]), hypergeometric moments), checked against scipy on one
  stratum (z^2 equals chi2_contingency(correction=False) times (N-1)/N). The
  Mantel-Haenszel risk difference and Sato's variance are computed by their formulas as well
  (the interval at z_0.975, the one-sided bounds at z_0.95).
- Over-dispersion: Pearson's statistic of the informative questions' a - E[a] around their common
  ratio to the hypergeometric variance, over (questions - 1), at least 1; above 1 the CMH p-values
  are the normal ones on the variance times it, and Sato's variance is multiplied by it.
- Small samples, exactly: scipy.stats.mannwhitneyu(method='exact') one-sided each way, and the
  Hodges-Lehmann bounds from U's exact distribution counted here by enumerating every arrangement
  (itertools.combinations): the c-th smallest difference, c the largest with P(U <= c - 1) <= alpha.
- The 95th percentile's order-statistic bounds: the k-th smallest value with
  scipy.stats.binom.cdf(k - 1, n, 0.95) <= alpha (lower), the j-th with binom.sf(j - 1, n, 0.95)
  <= alpha (upper); the difference's bounds from each side's at half the error; its p-value the
  least sum of the two sides' errors over pairs clearing the tolerance, by brute force.
- Van Elteren's stratified test: weights 1 / (n1 + n0 + 1), U counted by brute force per stratum,
  the normal statistic with the continuity correction (the largest weight / 2); on censored
  times, the candidate's lower ends against the baseline's upper ends.
- Hodges and Lehmann's aligned-rank test (exact times in many strata): each stratum's values
  (the candidate's moved down by the shift) less the stratum's mean, rounded to 1e-9 (so that
  values tying in exact arithmetic tie whatever order the mean is summed in), ranked together by
  scipy.stats.rankdata (midranks); the candidate's rank sum less its mean under exchange within
  strata, over the square root of the sum of m (n - m) / (n (n - 1)) times each stratum's sum of
  squared rank deviations, continuity correction 1/2, scipy.stats.norm.sf; the p-value at least
  1 / (the exchanges: the product of C(n, m)) and at least norm.sf(sqrt(sum(n - 1))). Its bounds
  (the smallest shift not rejected by "shift <= d" at alpha, the largest not rejected the other
  way) and its estimate (where the statistic crosses 0) found here by scanning a fine grid and
  then scipy.optimize.brentq on the step: a different search from the engine's bisection.
- Hodges-Lehmann: numpy's median of all pairwise differences; the ends are the c-th smallest and
  c-th largest differences, c = floor(n1 n2 / 2 - z sqrt(n1 n2 (n1 + n2 + 1) / 12)), z = z_0.975 for
  the two-sided 95% interval and z_0.95 for the one-sided 95% bounds.

Every interval (`low`, `high`) is the two-sided 95% one the tables show; every `lowerBound` and
`upperBound` a one-sided 95% bound, the end a one-sided test at 5% reads.
"""
import itertools
import json
import math
import sys

import numpy as np
import scipy
from scipy import optimize, stats

LEVEL = 0.05
Z = stats.norm.ppf(1 - LEVEL)  # one-sided 95% bounds
Z2 = stats.norm.ppf(1 - LEVEL / 2)  # two-sided 95% intervals


def mann_whitney(candidate, baseline):
    greater = stats.mannwhitneyu(candidate, baseline, alternative='greater', method='asymptotic', use_continuity=True)
    less = stats.mannwhitneyu(candidate, baseline, alternative='less', method='asymptotic', use_continuity=True)
    return {'candidate': candidate, 'baseline': baseline, 'u': float(greater.statistic),
            'pGreater': float(greater.pvalue), 'pLess': float(less.pvalue)}


def hodges_lehmann(candidate, baseline):
    d = np.sort(np.subtract.outer(np.array(candidate), np.array(baseline)).ravel())
    n1, n2 = len(candidate), len(baseline)

    def ends(z):
        c = max(1, math.floor(n1 * n2 / 2 - z * math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)))
        return float(d[c - 1]), float(d[len(d) - c])
    (low, high), (lower, upper) = ends(Z2), ends(Z)
    return {'candidate': candidate, 'baseline': baseline, 'estimate': float(np.median(d)),
            'low': low, 'high': high, 'lowerBound': lower, 'upperBound': upper}


def newcombe(b_events, b_trials, c_events, c_trials, confidence):
    p1, p0 = c_events / c_trials, b_events / b_trials
    ci1 = stats.binomtest(c_events, c_trials).proportion_ci(confidence_level=confidence, method='wilson')
    ci0 = stats.binomtest(b_events, b_trials).proportion_ci(confidence_level=confidence, method='wilson')
    d = p1 - p0
    low = d - math.sqrt((p1 - ci1.low) ** 2 + (ci0.high - p0) ** 2)
    high = d + math.sqrt((ci1.high - p1) ** 2 + (p0 - ci0.low) ** 2)
    return d, max(-1, low), min(1, high)


def pooled(b_events, b_trials, c_events, c_trials):
    table = [[c_events, c_trials - c_events], [b_events, b_trials - b_events]]
    less = stats.fisher_exact(table, alternative='less').pvalue
    greater = stats.fisher_exact(table, alternative='greater').pvalue
    d, low, high = newcombe(b_events, b_trials, c_events, c_trials, 1 - LEVEL)
    _, lower, upper = newcombe(b_events, b_trials, c_events, c_trials, 1 - 2 * LEVEL)
    return {'baseline': [b_events, b_trials], 'candidate': [c_events, c_trials], 'difference': d,
            'pLower': float(less), 'pHigher': float(greater), 'low': low, 'high': high,
            'lowerBound': lower, 'upperBound': upper}


def stratified(strata):
    """strata: [baselineEvents, baselineTrials, candidateEvents, candidateTrials] per question."""
    om = var = num = w = sp = sq = 0.0
    for a0, n0, a1, n1 in strata:
        t = n0 + n1
        m = a0 + a1
        om += a1 - n1 * m / t
        var += n1 * n0 * m * (t - m) / (t * t * (t - 1))
        num += (a1 * n0 - a0 * n1) / t
        w += n1 * n0 / t
        sp += (n1 * n1 * a0 - n0 * n0 * a1 + n1 * n0 * (n0 - n1) / 2) / (t * t)
        sq += (a1 * (n0 - a0) + a0 * (n1 - a1)) / (2 * t)
    rd = num / w
    res, vs = [], []
    for a0, n0, a1, n1 in strata:
        t, m = n0 + n1, a0 + a1
        if t < 2 or m == 0 or m == t:
            continue
        res.append(a1 - n1 * m / t)
        vs.append(n1 * n0 * m * (t - m) / (t * t * (t - 1)))
    phi = 1.0
    if len(res) >= 2:
        common = sum(res) / sum(vs)
        phi = max(1.0, sum((r - common * v) ** 2 / v for r, v in zip(res, vs)) / (len(res) - 1))
    sd = math.sqrt(max(0.0, phi * (rd * sp + sq) / (w * w)))
    z = om / math.sqrt(var)
    dist = np.array([1.0])
    observed = 0
    for a0, n0, a1, n1 in strata:
        m = a0 + a1
        lo, hi = max(0, m - n0), min(m, n1)
        observed += a1 - lo
        dist = np.convolve(dist, stats.hypergeom.pmf(np.arange(lo, hi + 1), n0 + n1, m, n1))
    below, at = float(dist[:observed].sum()), float(dist[observed])
    p_lower, p_higher = below + at / 2, max(0.0, 1 - below - at) + at / 2
    if phi > 1:
        p_lower = float(stats.norm.cdf(z / math.sqrt(phi)))
        p_higher = float(stats.norm.sf(z / math.sqrt(phi)))
    return {'strata': strata, 'difference': rd, 'pLower': p_lower, 'dispersion': phi,
            'pHigher': p_higher, 'pLowerNormal': float(stats.norm.cdf(z)),
            'low': rd - Z2 * sd, 'high': rd + Z2 * sd, 'lowerBound': rd - Z * sd, 'upperBound': rd + Z * sd}


def one_stratum_check(a0, n0, a1, n1):
    """The CMH formula against scipy's chi-square on one stratum: z^2 = chi2 (N - 1) / N."""
    z2 = stats.norm.ppf(stratified([[a0, n0, a1, n1]])['pLowerNormal']) ** 2
    chi2 = stats.chi2_contingency([[a1, n1 - a1], [a0, n0 - a0]], correction=False).statistic
    t = n0 + n1
    assert abs(z2 - chi2 * (t - 1) / t) < 1e-6, (z2, chi2)


def exact_small(candidate, baseline):
    n1, n0 = len(candidate), len(baseline)
    greater = stats.mannwhitneyu(candidate, baseline, alternative='greater', method='exact').pvalue
    less = stats.mannwhitneyu(candidate, baseline, alternative='less', method='exact').pvalue
    # U's exact distribution by enumeration: every choice of the candidate's ranks.
    counts = {}
    for chosen in itertools.combinations(range(n1 + n0), n1):
        u = sum(chosen) - n1 * (n1 - 1) // 2
        counts[u] = counts.get(u, 0) + 1
    total = sum(counts.values())
    at_most = lambda k: sum(c for u, c in counts.items() if u <= k) / total
    d = np.sort(np.subtract.outer(np.array(candidate), np.array(baseline)).ravel())

    def ends(alpha):
        c = 0
        while c < len(d) and at_most(c) <= alpha:
            c += 1
        return (float('-inf'), float('inf')) if c == 0 else (float(d[c - 1]), float(d[len(d) - c]))
    # No bound at this size: null in the JSON (the engine's ±Infinity).
    (low, high), (lower, upper) = [[None if math.isinf(x) else x for x in e] for e in (ends(LEVEL / 2), ends(LEVEL))]
    return {'candidate': candidate, 'baseline': baseline, 'pGreater': float(greater), 'pLess': float(less),
            'estimate': float(np.median(d)), 'low': low, 'high': high, 'lowerBound': lower, 'upperBound': upper}


def p95_bounds(values, alpha):
    x = np.sort(values)
    n = len(x)
    k = 0
    while k < n and stats.binom.cdf(k, n, 0.95) <= alpha:
        k += 1
    j = n + 1
    while j > 1 and stats.binom.sf(j - 2, n, 0.95) <= alpha:
        j -= 1
    return (float(x[k - 1]) if k else None, float(x[j - 1]) if j <= n else None)


def p95_case(candidate, baseline, margin):
    def diff(alpha):
        (cl, ch), (bl, bh) = p95_bounds(candidate, alpha / 2), p95_bounds(baseline, alpha / 2)
        return cl - bh, ch - bl
    (low, high), (lower, upper) = diff(LEVEL / 2), diff(LEVEL)
    c, b = np.sort(candidate), np.sort(baseline)
    best = 1.0
    for k in range(1, len(c) + 1):
        for j in range(1, len(b) + 1):
            if c[k - 1] - b[j - 1] > margin:
                best = min(best, stats.binom.cdf(k - 1, len(c), 0.95) + stats.binom.sf(j - 1, len(b), 0.95))
    return {'candidate': candidate, 'baseline': baseline, 'margin': margin, 'low': low, 'high': high,
            'lowerBound': lower, 'upperBound': upper, 'pWorse': float(min(1.0, best))}


def van_elteren(strata, margin):
    """strata: [candidateLow, candidateHigh, baselineLow, baselineHigh] on the log scale."""
    t = var = 0.0
    cc = 0.0
    for cl, ch, bl, bh in strata:
        n1, n0 = len(cl), len(bl)
        w = 1 / (n1 + n0 + 1)
        u = sum((x - margin > y) + 0.5 * (x - margin == y) for x in cl for y in bh)
        t += w * (u - n1 * n0 / 2)
        var += w * w * n1 * n0 * (n1 + n0 + 1) / 12
        cc = max(cc, w / 2)
    return {'strata': strata, 'margin': margin, 'pGreater': float(stats.norm.sf((t - cc) / math.sqrt(var)))}


def aligned_statistic(strata, shift):
    """strata: [candidate, baseline] exact values on the log scale."""
    aligned, groups = [], []
    for c, b in strata:
        values = [x - shift for x in c] + list(b)
        mean = float(np.mean(values))
        aligned.extend(round((v - mean) * 1e9) / 1e9 for v in values)
        groups.append((len(c), len(values)))
    ranks = stats.rankdata(aligned)
    t = var = 0.0
    at = 0
    for m, n in groups:
        r = ranks[at:at + n]
        t += r[:m].sum() - m * r.mean()
        var += m * (n - m) / (n * (n - 1)) * ((r - r.mean()) ** 2).sum()
        at += n
    return t, math.sqrt(var)


def aligned_floor(strata):
    exchanges = math.prod(math.comb(len(c) + len(b), len(c)) for c, b in strata)
    return max(1 / exchanges, float(stats.norm.sf(math.sqrt(sum(len(c) + len(b) - 1 for c, b in strata)))))


def aligned_p(strata, shift, sign):
    t, sd = aligned_statistic(strata, shift)
    return max(aligned_floor(strata), float(stats.norm.sf((sign * t - 0.5) / sd))) if sd > 0 else 1.0


def first_true(f, lo, hi):
    """The first d in [lo, hi] where the step condition f turns true: a grid, then brentq on the step."""
    grid = np.linspace(lo, hi, 4001)
    k = next(i for i, d in enumerate(grid) if f(d))
    return optimize.brentq(lambda d: 1.0 if f(d) else -1.0, grid[k - 1], grid[k], xtol=1e-12)


def aligned_case(strata, margin):
    lo = min(min(c) - max(b) for c, b in strata) - 1
    hi = max(max(c) - min(b) for c, b in strata) + 1
    floor = aligned_floor(strata)
    def bound(alpha):
        if floor > alpha:
            return None, None
        return (first_true(lambda d: aligned_p(strata, d, 1) >= alpha, lo, hi),
                first_true(lambda d: aligned_p(strata, d, -1) < alpha, lo, hi))
    (low, high), (lower, upper) = bound(LEVEL / 2), bound(LEVEL)
    estimate = (first_true(lambda d: aligned_statistic(strata, d)[0] <= 0, lo, hi)
                + first_true(lambda d: aligned_statistic(strata, d)[0] < 0, lo, hi)) / 2
    return {'strata': strata, 'margin': margin, 'pGreater': aligned_p(strata, margin, 1),
            'pLess': aligned_p(strata, -margin, -1), 'smallestP': floor, 'estimate': estimate,
            'low': low, 'high': high, 'lowerBound': lower, 'upperBound': upper}


rng = np.random.default_rng(20260101)
latency_b = [round(float(x), 1) for x in rng.lognormal(math.log(800), 0.35, 30)]
latency_c = [round(float(x), 1) for x in rng.lognormal(math.log(1000), 0.35, 30)]
scores_b = [0.9, 0.8, 0.8, 1.0, 0.7, 0.9, 0.9, 0.6, 1.0, 0.8]
scores_c = [0.7, 0.8, 0.6, 0.9, 0.7, 0.5, 0.8, 0.6, 0.9, 0.7]

latency_b2 = [round(float(x), 1) for x in rng.lognormal(math.log(800), 0.5, 120)]
latency_c2 = [round(float(x), 1) for x in rng.lognormal(math.log(1100), 0.5, 110)]
ve_strata = []
ve_censored = []
for q, (nb, nc) in enumerate([(3, 3), (5, 3), (2, 4)]):
    b = [round(float(x), 4) for x in rng.normal(6.5 + 0.6 * q, 0.5, nb)]
    c = [round(float(x), 4) for x in rng.normal(6.6 + 0.6 * q, 0.5, nc)]
    ve_strata.append([c, c, b, b])
    ve_censored.append([[round(x - 0.1, 4) for x in c], c, b, [round(x + 0.05, 4) for x in b]])

al_rng = np.random.default_rng(20261202)
al_slower = []
for q in range(30):
    speed = 6.7 + 0.6 * float(al_rng.normal())
    al_slower.append([[round(speed + 0.0953 + 0.25 * float(x), 4) for x in al_rng.normal(size=3)],
                      [round(speed + 0.25 * float(x), 4) for x in al_rng.normal(size=3)]])
al_small = [[[6.1, 6.4], [6.0, 6.2]], [[7.3], [7.0, 7.1]], [[6.6, 6.9, 6.8], [6.5]]]
al_ties = [[[6.5, 6.5, 6.7], [6.5, 6.4, 6.4]], [[7.0, 7.2], [7.2, 6.9]], [[5.9, 6.3, 6.1], [6.0, 6.3]]]

one_stratum_check(9, 10, 4, 10)
one_stratum_check(30, 40, 25, 40)

strata_rows = [[3, 3, 3, 3]] * 30 + [[2, 3, 1, 3], [3, 3, 2, 3], [1, 3, 1, 3], [2, 3, 0, 3], [3, 3, 3, 3],
                                     [2, 3, 2, 3], [1, 3, 0, 3], [3, 3, 1, 3], [0, 3, 1, 3], [2, 3, 2, 3]]

json.dump({
    'made': 'python3 test/compare/reference.py (scipy %s, numpy %s)' % (scipy.__version__, np.__version__),
    'level': LEVEL,
    'mannWhitney': [mann_whitney(latency_c, latency_b), mann_whitney(scores_c, scores_b),
                    mann_whitney([1, 2, 3, 4, 5], [3, 4, 5, 6, 7, 8])],
    'hodgesLehmann': [hodges_lehmann(latency_c, latency_b), hodges_lehmann(scores_c, scores_b)],
    'pooled': [pooled(27, 30, 20, 30), pooled(3, 3, 0, 3), pooled(140, 150, 138, 150), pooled(0, 150, 9, 150)],
    'stratified': [stratified(strata_rows), stratified([[9, 10, 4, 10], [30, 40, 25, 40]])],
    'exactSmall': [exact_small([1.2, 3.4, 2.2, 5.0], [0.5, 1.1, 0.9]),
                   exact_small([0.31, 0.52, 0.47, 0.66, 0.58], [0.2, 0.35, 0.41, 0.28, 0.33, 0.25]),
                   exact_small([2.0], [1.0])],
    'p95': [p95_case(latency_c2, latency_b2, 40.0)],
    'vanElteren': [van_elteren(ve_strata, 0.05), van_elteren(ve_censored, 0.05)],
    'aligned': [aligned_case(al_slower, math.log(1.05)), aligned_case(al_slower, 0.0),
                aligned_case(al_small, 0.0), aligned_case(al_ties, 0.05)],
    'quantiles': {'values': latency_b, 'p50': float(np.percentile(latency_b, 50)),
                  'p95': float(np.percentile(latency_b, 95))},
    'normal': {'cdf': [[-1.5, float(stats.norm.cdf(-1.5))], [0.92, float(stats.norm.cdf(0.92))]],
               'quantile': [[0.95, float(stats.norm.ppf(0.95))], [0.975, float(stats.norm.ppf(0.975))]]},
}, sys.stdout, indent=1)
sys.stdout.write('\n')
