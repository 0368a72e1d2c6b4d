"""``sandmle.group_advantages`` against the formulas written out."""

import statistics

import pytest
import sandmle

REWARDS = [0.1, 0.7, 0.4, 0.4, 1.0]


def test_grpo_divides_by_the_sample_std_plus_eps():
    a = sandmle.group_advantages(REWARDS)
    mean, std = statistics.mean(REWARDS), statistics.stdev(REWARDS)
    assert a["estimator"] == "grpo" and a["mean"] == pytest.approx(mean) and a["std"] == pytest.approx(std)
    assert a["values"] == pytest.approx([(r - mean) / (std + 1e-6) for r in REWARDS])


def test_population_std_and_eps():
    a = sandmle.group_advantages(REWARDS, std="population", eps=0.5)
    mean, std = statistics.mean(REWARDS), statistics.pstdev(REWARDS)
    assert a["values"] == pytest.approx([(r - mean) / (std + 0.5) for r in REWARDS])


def test_dr_grpo_and_rloo():
    mean, n = statistics.mean(REWARDS), len(REWARDS)
    assert sandmle.group_advantages(REWARDS, estimator="dr_grpo")["values"] == pytest.approx([r - mean for r in REWARDS])
    rloo = sandmle.group_advantages(REWARDS, estimator="rloo")["values"]
    others = [(sum(REWARDS) - r) / (n - 1) for r in REWARDS]
    assert rloo == pytest.approx([r - o for r, o in zip(REWARDS, others)])


def test_singletons_and_equal_groups_are_flagged():
    one = sandmle.group_advantages([0.5])
    assert one["singleton"] and one["values"] == pytest.approx([0.5 / (1 + 1e-6)])
    same = sandmle.group_advantages([0.3, 0.3, 0.3])
    assert same["all_equal"] and same["values"] == [0.0, 0.0, 0.0]
