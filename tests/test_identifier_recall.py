"""Identifiers are what agents look up most literally: a written turn is recalled first by any code,
ticket id or version it contains, in English and in Chinese text (real engines). The query's words
are cut as the full-text index cuts them (app/domain/text.py): "IMTOK21727a01WA" was searched as
"imtok 21727 a 01 wa", which the index, holding one token, never matched once the turn was written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

START = datetime(2024, 5, 6, 9, tzinfo=UTC)

# (identifier, the turn that holds it). The turns say nearly the same around each identifier, so
# only the identifier tells them apart.
ENGLISH = [
    ("IMTOK21727a01WA", "Remember the code word {id} please, it opens the staging vault."),
    ("XK7Q9Z2", "The door code for the lab is {id} until Friday."),
    ("a9f3e1c", "The fix landed in commit {id} on the main branch."),
    ("9f8e7d6c5b4a", "Roll back to build {id} if the canary fails."),
    ("v2.14.3", "We pinned the client library at {id} for the release."),
    ("3.11.7", "The runner uses Python {id} on every machine."),
    ("release-2025.08.1", "The tag {id} holds the audit fixes."),
    ("INC0012345", "The outage is tracked as {id} in the service desk."),
    ("PROJ-4821", "The migration work is ticket {id} on the board."),
    ("JIRA-99107", "Please link {id} in the changelog."),
    ("build_2291", "The nightly artefact is {id} in the bucket."),
    ("ORD-77-ZX-19", "The replacement part is order {id} from the supplier."),
    ("SN4HX92KQ", "The router's serial number is {id} on its label."),
    ("B0C7XK2M1Q", "The adapter we liked is listed as {id} in the shop."),
    ("GH-1138", "The flaky test is issue {id} on the tracker."),
    ("CVE-2024-3094", "The scanner flagged {id} on the old image."),
    ("RFC9110", "The status codes follow {id} for the gateway."),
    ("x86_64", "The wheels are built for {id} only."),
    ("AKIA2EXAMPLE7Q", "The revoked access key was {id} in the old vault."),
    ("node-20.20.2", "The front end builds with {id} in the pipeline."),
]
CHINESE = [
    ("IMTOK99x7b", "请记住工单号{id}，它用来打开测试环境。"),
    ("ZX82QK", "实验室的门禁码是{id}，周五前有效。"),
    ("v3.2.1", "客户端版本{id}已经上线了。"),
    ("5.26.29", "数据库服务器用的是{id}这个版本。"),
    ("INC0098765", "这次故障的工单是{id}，在服务台能查到。"),
    ("PROJ-5521", "迁移的任务单号是{id}，在看板上。"),
    ("build_3307", "昨晚的构建产物叫{id}，在存储桶里。"),
    ("SF1234567890", "快递单号是{id}，明天送到。"),
    ("G7021", "我们坐{id}次高铁去上海。"),
    ("A8K3M2", "会议室的密码是{id}，别告诉别人。"),
    ("c0ffee42", "修复在提交{id}里合入了主干。"),
    ("MU5101", "她的航班是{id}，早上八点起飞。"),
    ("HX-2024-0815", "合同编号是{id}，请存档。"),
    ("WIFI5G8866", "客厅的无线网络叫{id}。"),
    ("RTX4090", "他新买的显卡型号是{id}。"),
    ("ISO27001", "公司今年通过了{id}认证。"),
]


@pytest.fixture(scope="module")
def identifiers() -> list[tuple[str, str, str]]:
    """(identifier, turn id, text) for every turn; ≥ 30 identifiers in all."""
    found = [(code, f"s1:{i}", text.format(id=code)) for i, (code, text) in enumerate(ENGLISH + CHINESE)]
    assert len(found) >= 30
    return found


def test_a_written_turn_is_recalled_first_by_any_identifier_it_holds(
    api, worker, namespace, identifiers: list[tuple[str, str, str]]
) -> None:
    turns = [
        {"session_id": "s1", "turn_id": turn_id, "speaker": "Alice" if i % 2 else "王磊", "text": text,
         "timestamp": (START + timedelta(minutes=i)).isoformat()}
        for i, (_, turn_id, text) in enumerate(identifiers)
    ]  # fmt: skip
    api.put(f"/v1/namespaces/{namespace}")
    answer = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns, "wait": True})
    assert answer.status_code == 200, answer.text
    # Written, not pending: the hot window's search reads only pending turns.
    assert answer.json()["report"]["turns"] == len(turns)
    missed = []
    for code, turn_id, _ in identifiers:
        response = api.post(f"/v1/namespaces/{namespace}/recall", json={"query": code, "top_k": 5})
        assert response.status_code == 200, response.text
        items = response.json()["items"]
        if not items or turn_id not in items[0]["source_turn_ids"]:
            missed.append((code, [item["source_turn_ids"] for item in items[:3]]))
    assert missed == [], f"{len(missed)} of {len(identifiers)} identifiers not recalled first: {missed}"
