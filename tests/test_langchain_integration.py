"""`hippograph.integrations.langchain` with the real langchain-core against the live API: the
retriever answers a recall as Documents (sync and async), and the seven tools, built from the
catalogue the API serves, save and recall through LangChain's tool interface."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException

from hippograph.errors import InvalidRequest
from hippograph.integrations.langchain import HippographRetriever, hippograph_tools
from tests.conftest import admin_headers


def writer_key(live_api: str, namespace: str) -> str:
    with httpx.Client(base_url=live_api, headers=admin_headers()) as http:
        assert http.put(f"/v1/namespaces/{namespace}").status_code == 201
        made = http.post("/v1/keys", json={"namespace": namespace, "role": "writer", "agent_id": "lc-agent"})
        assert made.status_code == 201, made.text
        return str(made.json()["key"])


def test_the_retriever_answers_a_recall_as_documents(live_api: str, namespace: str) -> None:
    key = writer_key(live_api, namespace)
    with httpx.Client(base_url=live_api, headers={"Authorization": f"Bearer {key}"}) as http:
        saved = [
            http.post(
                f"/v1/namespaces/{namespace}/memories", json={"type": "Knowledge", "label": label, "content": content}
            ).json()  # fmt: skip
            for label, content in [
                ("Alice's home", "Alice moved to Lisbon in March."),
                ("Billing database", "The billing service runs on Postgres 16."),
            ]  # fmt: skip
        ]
    retriever = HippographRetriever(url=live_api, api_key=key, top_k=3)  # the namespace: the key's

    documents = retriever.invoke("Where does Alice live?")
    assert documents and all(isinstance(doc, Document) for doc in documents)
    first = documents[0]
    assert (first.id, first.metadata["id"], first.metadata["type"]) == (saved[0]["id"], saved[0]["id"], "Knowledge")
    assert first.page_content == saved[0]["summary"] and first.metadata["score"] > 0
    assert "summary" not in first.metadata and len(documents) <= 3

    asynced = asyncio.run(retriever.ainvoke("Which database does billing use?"))
    assert asynced[0].id == saved[1]["id"]


def tool_named(tools: list[BaseTool], name: str) -> BaseTool:
    return next(tool for tool in tools if tool.name == name)


def test_the_seven_tools_save_and_recall_through_langchain(live_api: str, namespace: str) -> None:
    key = writer_key(live_api, namespace)
    tools = hippograph_tools(url=live_api, api_key=key)
    with httpx.Client(base_url=live_api, headers={"Authorization": f"Bearer {key}"}) as http:
        served = http.get("/v1/tools").json()["tools"]  # what this writer key is listed
    assert [tool.name for tool in tools] == [spec["function"]["name"] for spec in served]
    assert len(tools) == 7
    save = tool_named(tools, "save_memory_note")
    assert save.description == next(s["function"]["description"] for s in served if s["function"]["name"] == save.name)
    assert save.args["content"]["type"] == "string"

    saved = json.loads(save.invoke({"content": "The staging cluster lives in Frankfurt", "label": "Staging region"}))
    assert saved["id"].startswith("knowledge:") and saved["label"] == "Staging region"

    # As a chat model's tool call: LangChain answers a ToolMessage carrying the call's id.
    message = tool_named(tools, "recall_memory").invoke(
        {"type": "tool_call", "id": "call-1", "name": "recall_memory",
         "args": {"query": "Where is the staging cluster?", "top_k": 3}}
    )  # fmt: skip
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call-1"
    assert json.loads(str(message.content))["items"][0]["id"] == saved["id"]

    node = json.loads(asyncio.run(tool_named(tools, "read_memory_node").ainvoke({"node_id": saved["id"]})))
    assert node["content"] == "The staging cluster lives in Frankfurt"

    # A refused call answers the service's message to the model (LangChain's error ToolMessage)...
    refused = tool_named(tools, "recall_memory").invoke(
        {"type": "tool_call", "id": "call-2", "name": "recall_memory", "args": {"query": "x", "top_k": 0}}
    )
    assert isinstance(refused, ToolMessage) and refused.status == "error"
    assert "top_k" in str(refused.content) and "422" in str(refused.content)
    # ... or raises ToolException, chained to the client's error class, when asked to.
    strict = hippograph_tools(url=live_api, api_key=key, handle_errors=False)
    with pytest.raises(ToolException) as raised:
        tool_named(strict, "recall_memory").invoke({"query": "x", "top_k": 0})
    assert isinstance(raised.value.__cause__, InvalidRequest) and raised.value.__cause__.field == "arguments.top_k"
