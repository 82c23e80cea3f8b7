"""An embedding model's cosines on the reference scale (app/domain/cosine_scale.py): pure maps."""

from __future__ import annotations

import pytest

from app.domain.cosine_scale import E5_SMALL, REFERENCE, kind_of

# A (query, memory text) pair of each kind.
PAIR = {"english": ("Where?", "Lisbon."), "chinese": ("哪里？", "里斯本。"), "across": ("Where?", "里斯本。")}


@pytest.mark.parametrize("cosine", [-0.3, 0.0, 0.34, 0.7, 1.0])
def test_the_reference_models_cosines_are_kept(cosine: float) -> None:
    for kind in ("english", "chinese", "across"):
        assert REFERENCE.of_query(cosine, *PAIR[kind]) == cosine
    assert REFERENCE.of_passages(cosine) == cosine


def test_e5s_knots_map_to_minilms_at_the_same_quantile() -> None:
    assert E5_SMALL.of_query(0.763, *PAIR["english"]) == pytest.approx(0.19)  # the medians
    assert E5_SMALL.of_query(0.86, *PAIR["chinese"]) == pytest.approx(0.19)
    assert E5_SMALL.of_query(0.763, *PAIR["across"]) == pytest.approx(0.19)
    assert E5_SMALL.of_query(0.856, *PAIR["english"]) == pytest.approx(0.559)  # the 99th percentiles
    assert E5_SMALL.of_passages(0.924) == pytest.approx(0.71)
    assert E5_SMALL.of_query(1.0, *PAIR["chinese"]) == 1.0 and E5_SMALL.of_passages(1.0) == 1.0


def test_between_knots_the_map_is_linear_and_below_the_lowest_it_goes_on() -> None:
    # Halfway between the English query knots 0.763 -> 0.19 and 0.794 -> 0.298.
    assert E5_SMALL.of_query(0.7785, *PAIR["english"]) == pytest.approx(0.244)
    # One knot step below the lowest (0.673 -> -0.188, 0.725 -> 0.052): as far below again.
    assert E5_SMALL.of_query(0.621, *PAIR["english"]) == pytest.approx(-0.428)


def test_the_maps_keep_the_order_of_pairs_of_one_kind() -> None:
    cosines = [0.5 + i / 200 for i in range(101)]
    for kind in ("english", "chinese", "across"):
        mapped = [E5_SMALL.of_query(c, *PAIR[kind]) for c in cosines]
        assert mapped == sorted(mapped) and len(set(mapped)) == len(mapped)
    passages = [E5_SMALL.of_passages(c) for c in cosines]
    assert passages == sorted(passages) and len(set(passages)) == len(passages)


def test_a_pair_across_languages_ranks_above_a_same_language_pair_of_equal_cosine() -> None:
    """e5 gives pairs across languages lower cosines: at one cosine, across is the likelier match."""
    across, english, chinese = (E5_SMALL.of_query(0.8, *PAIR[kind]) for kind in ("across", "english", "chinese"))
    assert across > english > chinese


def test_the_kind_of_a_pair_is_read_from_cjk_characters() -> None:
    assert kind_of("Where does Anna live?", "Anna: I moved to Lisbon.") == "english"
    assert kind_of("安娜住在哪里？", "Anna: 我搬到了里斯本。") == "chinese"
    assert kind_of("Where does Anna live?", "Anna: 我搬到了里斯本。") == "across"
    assert kind_of("安娜住在哪里？", "Anna: I moved to Lisbon.") == "across"
