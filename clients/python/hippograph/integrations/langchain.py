"""LangChain over Hippograph: a retriever (recall as `Document`s) and the seven model tools.

    from hippograph.integrations.langchain import HippographRetriever, hippograph_tools

    retriever = HippographRetriever(url="http://127.0.0.1:8000", api_key="hg_...", top_k=5)
    docs = retriever.invoke("Where does Ann live?")      # one Document per memory card, best first
    tools = hippograph_tools(url="http://127.0.0.1:8000", api_key="hg_...")   # bind them to a chat model

The tools are built from the catalogue the API serves (`GET /v1/tools`: name, description, JSON
Schema), so they are exactly the service's tools; running one posts to `…/tools/{name}` and answers the
tool's result as JSON text. `namespace=None` means the one namespace the key is bound to.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, StructuredTool, ToolException

from hippograph._retry import RetryPolicy
from hippograph.client import DEFAULT_URL, AsyncHippograph, Hippograph
from hippograph.errors import HippographError
from hippograph.integrations._flow import Flow, arun, call, namespace_of, run


def card_document(card: Any) -> Document:
    """A memory card as a Document: its summary as the text, everything else (id, type, score, track,
    source turns, the score's parts) as metadata."""
    return Document(page_content=card.summary, id=card.id,
                    metadata=card.model_dump(mode="json", exclude_none=True, exclude={"summary"}))  # fmt: skip


class HippographRetriever(BaseRetriever):
    """Hippograph's recall as a LangChain retriever."""

    url: str = DEFAULT_URL
    api_key: str | None = None
    namespace: str | None = None
    top_k: int = 5
    mode: Literal["local", "global"] = "local"
    token_budget: int | None = None
    timeout: float = 60.0

    def _recall(self, query: str) -> Flow[list[Document]]:
        namespace = yield from namespace_of(self.namespace)
        answer = yield call("recall", query, namespace=namespace, top_k=self.top_k, mode=self.mode,
                            token_budget=self.token_budget)  # fmt: skip
        return [card_document(card) for card in answer.items]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        with Hippograph(self.url, self.api_key, timeout=self.timeout) as client:
            return run(client, self._recall(query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        async with AsyncHippograph(self.url, self.api_key, timeout=self.timeout) as client:
            return await arun(client, self._recall(query))


def hippograph_tools(
    url: str = DEFAULT_URL,
    api_key: str | None = None,
    namespace: str | None = None,
    *,
    timeout: float = 60.0,
    retry: RetryPolicy | None = None,
    handle_errors: bool = True,
) -> list[BaseTool]:
    """The service's model tools as LangChain `StructuredTool`s (sync and async), on one namespace.

    A call the service refuses (bad arguments, too small a role) raises `ToolException` with the
    error's message; with `handle_errors` (the default, as MCP's error results) LangChain answers that
    text to the model as the tool's output (a `ToolMessage` with status "error") instead of raising."""
    with Hippograph(url, api_key, timeout=timeout, retry=retry) as client:
        namespace = run(client, namespace_of(namespace))
        catalogue = client.list_tools().tools

    def tool(name: str, description: str, parameters: dict[str, Any]) -> BaseTool:
        def invoke(**arguments: Any) -> str:
            with Hippograph(url, api_key, namespace=namespace, timeout=timeout, retry=retry) as client:
                try:
                    return result_text(client.run_tool(name, arguments).result)
                except HippographError as error:
                    raise ToolException(str(error)) from error

        async def ainvoke(**arguments: Any) -> str:
            async with AsyncHippograph(url, api_key, namespace=namespace, timeout=timeout, retry=retry) as client:
                try:
                    return result_text((await client.run_tool(name, arguments)).result)
                except HippographError as error:
                    raise ToolException(str(error)) from error

        return StructuredTool(name=name, description=description, args_schema=parameters, func=invoke,
                              coroutine=ainvoke, handle_tool_error=handle_errors)  # fmt: skip

    return [tool(spec.function.name, spec.function.description, spec.function.parameters) for spec in catalogue]


def result_text(result: Any) -> str:
    """A tool's result as the text a model reads: JSON (strings as they are)."""
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)


__all__ = ["HippographRetriever", "card_document", "hippograph_tools", "result_text"]
