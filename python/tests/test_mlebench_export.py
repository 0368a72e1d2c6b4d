"""`sandmle export --format mlebench`: each exported `grade.py`, run with
pandas and scikit-learn as MLE-bench runs it (``grade(submission_df,
answers_df)``), scores every submission as ``sandmle evaluate`` does, and
raises ``InvalidSubmissionError`` exactly where ``sandmle evaluate`` calls a
submission invalid.

Submissions per bundled seed: the sample submission, the answers, a noisy
one (labels swapped between a third of the rows, or values perturbed with a
seeded generator) with its rows shuffled, and invalid ones (a row missing,
an unknown id, a missing value).
"""

import importlib.util
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")

from conftest import REPO  # noqa: E402

SEEDS = REPO / "examples" / "seeds"


@pytest.fixture(scope="module")
def export(tmp_path_factory, sandmle_bin):
    out = tmp_path_factory.mktemp("export") / "mlebench"
    run = subprocess.run(
        [str(sandmle_bin), "--json", "export", "--format", "mlebench", "--envs", str(SEEDS), "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr
    return out


def load_grader(path: Path):
    spec = importlib.util.spec_from_file_location(f"grade_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def noisy(g, answers, rng):
    sub = answers.copy()
    cols = g.COLUMNS
    if g.METRIC in g.LABEL_METRICS:
        perm = rng.permutation(len(sub))
        k = len(sub) // 3
        sub.loc[sub.index[:k], cols] = answers[cols].iloc[perm[:k]].to_numpy()
    else:
        vals = answers[cols].to_numpy(float)
        if g.METRIC in g.PROBABILITY_METRICS:
            vals = np.clip(0.5 * vals + 0.5 * rng.random(vals.shape), 0, 1)
            if g.METRIC == "multiclass_log_loss":
                vals = vals / vals.sum(axis=1, keepdims=True)
        else:
            vals = vals * (1 + 0.2 * rng.standard_normal(vals.shape)).clip(0.1)
        sub[cols] = vals
    return sub.sample(frac=1, random_state=1)


def invalid(answers):
    unknown = answers.copy().astype(object)
    unknown.iloc[0, 0] = "no-such-id"
    missing = answers.copy().astype(object)
    missing.iloc[len(missing) // 2, 1] = None
    return {"row_missing": answers.iloc[:-1], "unknown_id": unknown, "missing_value": missing}


@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.iterdir() if (p / "prepared").is_dir()))
def test_exported_grader_matches_sandmle_evaluate(export, name, tmp_path, sandmle_bin):
    g = load_grader(export / "competitions" / name / "grade.py")
    prepared = export / "data" / name / "prepared"
    answers = pd.read_csv(prepared / "private" / "answers.csv")
    subs = {
        "sample": pd.read_csv(prepared / "public" / "sample_submission.csv"),
        "answers": answers,
        "noisy": noisy(g, answers, np.random.default_rng(7)),
        **invalid(answers),
    }
    for label, frame in subs.items():
        path = tmp_path / f"{label}.csv"
        frame.to_csv(path, index=False)
        run = subprocess.run(
            [str(sandmle_bin), "--json", "evaluate", "--env", str(SEEDS / name), "--submission_path", str(path)],
            capture_output=True, text=True, timeout=600,
        )
        ours = json.loads(run.stdout)
        try:
            theirs = round(g.grade(pd.read_csv(path), answers), 5)
        except g.InvalidSubmissionError:
            theirs = None
        assert ours["score"] == theirs, f"{name} {label}: sandmle {ours['score']} vs grade.py {theirs}"
        assert ours["valid_submission"] == (label in ("sample", "answers", "noisy")), f"{name} {label}"
