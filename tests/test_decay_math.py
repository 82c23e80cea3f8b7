"""Exact checks of the pure forgetting and learning formulas."""

import math
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.decay import (
    accessed,
    decayed,
    hours_between,
    node_activation,
    projected_activations,
    soft_forgotten,
)
from app.domain.hebbian import co_activated_pairs, initial_weight, pair_key, reinforced, split_pair_key
from app.domain.model import Importance, RelType, half_life_table

T0 = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("level", "half_life"),
    [("TRIVIAL", 6), ("NORMAL", 24), ("IMPORTANT", 168), ("FACT", 360), ("IDENTITY", 720)],
)
def test_one_half_life_halves_activation(level: str, half_life: float) -> None:
    importance = Importance(level)
    assert importance.half_life_hours == half_life
    assert node_activation(0.8, T0, T0 + timedelta(hours=half_life), importance) == pytest.approx(0.4, abs=1e-12)
    assert node_activation(0.8, T0, T0 + timedelta(hours=2 * half_life), importance) == pytest.approx(0.2, abs=1e-12)


def test_must_remember_never_decays() -> None:
    assert node_activation(0.7, T0, T0 + timedelta(days=3650), Importance.MUST_REMEMBER) == 0.7
    assert "MUST_REMEMBER" not in half_life_table()


def test_decay_is_a_function_of_the_anchor_not_of_previous_runs() -> None:
    # Evaluating at 5 h and then at 10 h gives the same 10 h value as evaluating once.
    once = decayed(1.0, 10, 24)
    assert decayed(1.0, 10, 24) == once
    assert once == pytest.approx(math.exp(-10 * math.log(2) / 24), abs=1e-15)
    compounded = decayed(decayed(1.0, 5, 24), 10, 24)  # the reference's bug: re-decaying a decayed value
    assert compounded < once


def test_a_clock_behind_the_anchor_means_no_decay() -> None:
    assert hours_between(T0, T0 - timedelta(hours=3)) == 0.0
    assert node_activation(0.5, T0, T0 - timedelta(hours=3), Importance.NORMAL) == 0.5


def test_access_moves_activation_half_way_to_one_and_wakes_soft_forgotten_nodes() -> None:
    assert accessed(0.0) == 0.5
    assert accessed(0.6) == pytest.approx(0.8)
    assert accessed(1.0) == 1.0
    assert soft_forgotten(0.049) and not soft_forgotten(0.05)
    assert not soft_forgotten(accessed(0.01))


def test_hebbian_weights_follow_the_update_rule() -> None:
    assert initial_weight(3) == pytest.approx(1 - 0.9**3, abs=1e-15)
    w = initial_weight(3)
    assert reinforced(w) == pytest.approx(w + 0.1 * (1 - w), abs=1e-15)
    assert reinforced(w, 2) == pytest.approx(reinforced(reinforced(w)), abs=1e-15)
    assert reinforced(0.4, 0) == 0.4


def test_pairs_are_unordered_and_distinct() -> None:
    assert pair_key("b", "a") == pair_key("a", "b")
    assert split_pair_key(pair_key("knowledge:2", "dialogue:1")) == ("dialogue:1", "knowledge:2")
    assert len(co_activated_pairs(["a", "b", "c", "a"])) == 3
    assert co_activated_pairs(["a"]) == []


def test_only_structural_relationships_are_protected() -> None:
    assert {t.value for t in RelType if t.protected} == {"HIERARCHY", "DEPENDENCY", "TEMPORAL"}
    assert {t.value for t in RelType if t.symmetric} == {"SEMANTIC", "ASSOCIATION"}


def test_the_projected_curve_continues_from_the_anchor() -> None:
    # Anchored 12 h ago at 0.8, NORMAL (24 h): now 0.8 * 2^-0.5, half of that a day later.
    curve = projected_activations(0.8, T0, T0 + timedelta(hours=12), Importance.NORMAL, days=2, points_per_day=2)
    assert [h for h, _ in curve] == [0.0, 12.0, 24.0, 36.0, 48.0]
    assert curve[0][1] == pytest.approx(0.8 * 2**-0.5, abs=1e-12)
    assert curve[1][1] == pytest.approx(0.4, abs=1e-12)
    assert curve[2][1] == pytest.approx(0.4 * 2**-0.5, abs=1e-12)
    assert curve[4][1] == pytest.approx(0.1 * 2**-0.5 * 2, abs=1e-12)
    flat = projected_activations(0.7, T0, T0, Importance.MUST_REMEMBER, days=1, points_per_day=1)
    assert flat == [(0.0, 0.7), (24.0, 0.7)]
