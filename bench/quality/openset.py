"""Open-set scoring shared by the peers and our print: neighbours, rejection rules, calibration.

A method's answers on one split are a "run": per column, one record per query, and one record per
held-out image, each record {nearest, d1, second, d2, tied, answer} (tied: how many catalog items
share the best distance, so a tie among k earns 1/k as in bench/image), plus per catalog item the
distance to its nearest other catalog item.

A rule says from a record whether the query is answered or rejected (answered empty). It is
calibrated on the TUNE run only, then applied unchanged to the TEST run. The calibration objective
is the issue's target: among the parameters that leave at least EMPTY_TARGET of the tune held-out
images answered empty, the one with the best mean recall@1-with-rejection over the columns; when
none reaches the target, the best mean of the two.
"""
import numpy as np

EMPTY_TARGET = 0.95
GRID = 60  # quantiles tried per parameter of a two-parameter rule


def neighbour_records(distances, answers=None):
    """distances: queries × catalog. → one record per query row."""
    records = []
    for row, d in enumerate(distances):
        order = np.argsort(d, kind="stable")
        d1, d2 = float(d[order[0]]), float(d[order[1]]) if len(order) > 1 else float("inf")
        tied = np.flatnonzero(d == d[order[0]])
        record = {"nearest": int(order[0]), "d1": d1, "second": int(order[1]), "d2": d2, "tied": len(tied)}
        if answers is not None:
            record["answer"] = int(answers[row])
            record["answer_tied"] = bool(answers[row] in tied)
        records.append(record)
    return records


def catalog_nearest_other(catalog_distances):
    d = np.array(catalog_distances, dtype=np.float64)
    np.fill_diagonal(d, np.inf)
    return d.min(axis=1).tolist()


def credit(record):
    """recall@1 credit of one query: 1, or 1/k when the right item is among k tied at the top."""
    if "answer_tied" in record:
        return 1 / record["tied"] if record["answer_tied"] else 0.0
    return 1.0 if record["nearest"] == record["answer"] else 0.0


def ratio(record):
    return max(record["d1"], 0.0) / max(record["d2"], 1e-9)


# ------------------------------------------------------------------ rules
# Each rule: (name, features(record, run) → tuple of numbers, parameter grid from the tune run).
# A record is answered when every feature is ≤ its parameter.

def median_catalog_gap(run):
    return float(np.median(run["catalog_nearest_other"]))


RULES = {
    "d1 ≤ t": lambda r, run: (r["d1"],),
    "d1/d2 ≤ r": lambda r, run: (ratio(r),),
    "d1 ≤ k × median catalog NN": lambda r, run: (r["d1"] / median_catalog_gap(run),),
    "d1 ≤ k × item's own NN": lambda r, run: (r["d1"] / max(run["catalog_nearest_other"][r["nearest"]], 1e-9),),
    "d1 ≤ t and d1/d2 ≤ r": lambda r, run: (r["d1"], ratio(r)),
}


def all_records(run):
    return [r for c in run["columns"].values() for r in c] + run["heldout"]


def feature_matrix(run, features):
    def table(records):
        return np.array([features(r, run) for r in records], dtype=np.float64).reshape(len(records), -1)
    return {name: table(records) for name, records in run["columns"].items()}, table(run["heldout"])


def candidate_parameters(run, features):
    values = np.array([features(r, run) for r in all_records(run)], dtype=np.float64)
    dims = values.shape[1]
    if dims == 1:
        grid = [(v,) for v in np.unique(values[:, 0])] + [(np.inf,)]
    else:
        axes = [np.unique(np.quantile(values[:, k], np.linspace(0, 1, GRID))).tolist() + [np.inf] for k in range(dims)]
        grid = [tuple(p) for p in np.array(np.meshgrid(*axes)).reshape(dims, -1).T]
    return grid


def evaluate(run, features, parameters):
    """{column: recall@1 with rejection}, held-out empty rate, for one parameter setting."""
    columns, heldout = feature_matrix(run, features)
    limit = np.array(parameters, dtype=np.float64)
    recall = {}
    for name, records in run["columns"].items():
        answered = np.all(columns[name] <= limit, axis=1)
        recall[name] = float(np.mean([credit(r) * a for r, a in zip(records, answered)]))
    empty = float(np.mean(~np.all(heldout <= limit, axis=1))) if len(heldout) else float("nan")
    return recall, empty


def calibrate(tune_run, features):
    """The parameters chosen on the tune run (see the module's docstring), with their tune scores."""
    columns, heldout = feature_matrix(tune_run, features)
    credits = {name: np.array([credit(r) for r in records]) for name, records in tune_run["columns"].items()}
    best_key, best = None, None
    for parameters in candidate_parameters(tune_run, features):
        limit = np.array(parameters)
        mean_recall = float(np.mean([np.mean(credits[n] * np.all(columns[n] <= limit, axis=1)) for n in columns]))
        empty = float(np.mean(~np.all(heldout <= limit, axis=1)))
        key = (empty >= EMPTY_TARGET, mean_recall if empty >= EMPTY_TARGET else (empty + mean_recall) / 2)
        if best_key is None or key > best_key:
            best_key, best = key, {"parameters": [float(p) for p in parameters], "tune_empty": empty,
                                   "tune_mean_recall": mean_recall}
    return best


def plain_recall(run):
    return {name: float(np.mean([credit(r) for r in records])) for name, records in run["columns"].items()}


def open_set_report(tune_run, test_run, rule_names=None):
    """For each rule: parameters calibrated on tune, then test recall-with-rejection and empty rate."""
    report = {}
    for name in rule_names or RULES:
        chosen = calibrate(tune_run, RULES[name])
        recall, empty = evaluate(test_run, RULES[name], chosen["parameters"])
        report[name] = dict(chosen, test_recall=recall, test_empty=empty,
                            test_mean_recall=float(np.mean(list(recall.values()))))
    return report
