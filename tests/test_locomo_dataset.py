"""Format check of the development dataset `tests/data/locomo/hippograph_dev.json` (public LoCoMo schema).

No services: the file is loaded and checked as data only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

DATASET = Path(__file__).parent / "data" / "locomo" / "hippograph_dev.json"

SAMPLE_KEYS = {"sample_id", "conversation", "qa"}
TURN_KEYS = {"speaker", "dia_id", "text"}
QA_KEYS = {"question", "answer", "evidence", "category"}
CATEGORIES = {1, 2, 3, 4}  # 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop (5, adversarial, is not used)
MIN_PER_CATEGORY = {1: 10, 2: 10, 4: 10}

SESSION_KEY = re.compile(r"session_(\d+)")
SESSION_DATE_KEY = re.compile(r"session_(\d+)_date_time")
DIA_ID = re.compile(r"D(\d+):(\d+)")
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
LOCOMO_DATE = re.compile(rf"(?:1[0-2]|[1-9]):[0-5]\d [ap]m on (?:[1-9]|[12]\d|3[01]) (?:{MONTHS}), \d{{4}}")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _load() -> list[dict[str, Any]]:
    return json.loads(DATASET.read_text(encoding="utf-8"))


DATA = _load()


def _parse_date(text: str) -> datetime:
    assert LOCOMO_DATE.fullmatch(text), f"not a LoCoMo date: {text!r}"
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y")


def _session_numbers(conversation: dict[str, Any]) -> list[int]:
    return sorted(int(m.group(1)) for key in conversation if (m := SESSION_KEY.fullmatch(key)))


def _turns(sample: dict[str, Any]) -> list[dict[str, Any]]:
    conversation = sample["conversation"]
    return [turn for n in _session_numbers(conversation) for turn in conversation[f"session_{n}"]]


def _is_chinese(sample: dict[str, Any]) -> bool:
    return any(CJK.search(turn["text"]) for turn in _turns(sample))


def _ids(sample: dict[str, Any]) -> str:
    return sample.get("sample_id", "?")


def test_file_is_a_list_of_samples_with_unique_ids() -> None:
    assert isinstance(DATA, list) and DATA
    for sample in DATA:
        assert isinstance(sample, dict)
        assert set(sample) == SAMPLE_KEYS, sample.keys()
        assert isinstance(sample["sample_id"], str) and sample["sample_id"]
    ids = [sample["sample_id"] for sample in DATA]
    assert len(ids) == len(set(ids)), Counter(ids).most_common(3)


@pytest.mark.parametrize("sample", DATA, ids=_ids)
def test_conversation_schema(sample: dict[str, Any]) -> None:
    conversation = sample["conversation"]
    assert isinstance(conversation, dict)
    speakers = {conversation.get("speaker_a"), conversation.get("speaker_b")}
    assert all(isinstance(s, str) and s for s in speakers) and len(speakers) == 2
    for key in conversation:
        assert key in ("speaker_a", "speaker_b") or SESSION_KEY.fullmatch(key) or SESSION_DATE_KEY.fullmatch(key), key
    for turn in _turns(sample):
        assert isinstance(turn, dict) and set(turn) == TURN_KEYS, turn
        assert turn["speaker"] in speakers, turn
        assert isinstance(turn["text"], str) and turn["text"].strip(), turn


@pytest.mark.parametrize("sample", DATA, ids=_ids)
def test_sessions_are_contiguous_and_dated_in_order(sample: dict[str, Any]) -> None:
    conversation = sample["conversation"]
    numbers = _session_numbers(conversation)
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    dated = sorted(int(m.group(1)) for key in conversation if (m := SESSION_DATE_KEY.fullmatch(key)))
    assert dated == numbers, (dated, numbers)
    dates = [_parse_date(conversation[f"session_{n}_date_time"]) for n in numbers]
    assert dates == sorted(dates), [conversation[f"session_{n}_date_time"] for n in numbers]
    for n in numbers:
        assert isinstance(conversation[f"session_{n}"], list) and conversation[f"session_{n}"], n


@pytest.mark.parametrize("sample", DATA, ids=_ids)
def test_dia_ids_are_unique_and_numbered_by_session(sample: dict[str, Any]) -> None:
    conversation = sample["conversation"]
    seen: set[str] = set()
    for n in _session_numbers(conversation):
        for position, turn in enumerate(conversation[f"session_{n}"], start=1):
            match = DIA_ID.fullmatch(turn["dia_id"])
            assert match, turn["dia_id"]
            assert int(match.group(1)) == n, (n, turn["dia_id"])
            assert int(match.group(2)) == position, (position, turn["dia_id"])
            assert turn["dia_id"] not in seen, turn["dia_id"]
            seen.add(turn["dia_id"])


@pytest.mark.parametrize("sample", DATA, ids=_ids)
def test_qa_schema_and_evidence_exists(sample: dict[str, Any]) -> None:
    dia_ids = {turn["dia_id"] for turn in _turns(sample)}
    assert sample["qa"], "no questions"
    for qa in sample["qa"]:
        assert isinstance(qa, dict) and set(qa) == QA_KEYS, qa
        assert isinstance(qa["question"], str) and qa["question"].strip(), qa
        assert isinstance(qa["answer"], str) and qa["answer"].strip(), qa
        assert type(qa["category"]) is int and qa["category"] in CATEGORIES, qa
        evidence = qa["evidence"]
        assert isinstance(evidence, list) and evidence, qa
        assert all(isinstance(e, str) for e in evidence), qa
        assert len(evidence) == len(set(evidence)), qa
        missing = [e for e in evidence if e not in dia_ids]
        assert not missing, (qa["question"], missing)


@pytest.mark.parametrize("sample", DATA, ids=_ids)
def test_sample_language_is_consistent(sample: dict[str, Any]) -> None:
    """A Chinese sample is Chinese throughout (every turn and question); an English one has no CJK."""
    texts = [turn["text"] for turn in _turns(sample)] + [qa["question"] for qa in sample["qa"]]
    if _is_chinese(sample):
        assert all(CJK.search(text) for text in texts), [t for t in texts if not CJK.search(t)][:3]
    else:
        assert not any(CJK.search(text) for text in texts)


def test_both_languages_present() -> None:
    languages = Counter("zh" if _is_chinese(sample) else "en" for sample in DATA)
    assert languages["en"] >= 1 and languages["zh"] >= 1, languages


def test_enough_questions_per_category() -> None:
    counts = Counter(qa["category"] for sample in DATA for qa in sample["qa"])
    for category, minimum in MIN_PER_CATEGORY.items():
        assert counts[category] >= minimum, (category, counts)
