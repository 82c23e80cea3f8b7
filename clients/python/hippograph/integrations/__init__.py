"""Hippograph inside agent frameworks (optional extras: `pip install "hippograph[integrations]"`).

- `hippograph.integrations.langgraph`: `HippographStore`, a LangGraph long-term memory store.
- `hippograph.integrations.langchain`: `HippographRetriever` and `hippograph_tools`, the seven tools
  as LangChain tools.

Both speak to the service through the Python client (`hippograph.client`), never raw HTTP.
"""
