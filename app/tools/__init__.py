"""The seven tools a model calls on a namespace: one definition each, feeding REST (`/v1/tools`),
MCP and their JSON schemas."""

from app.tools.catalog import ADMIN_TOOLS, TOOLS
from app.tools.definition import Tool

__all__ = ["ADMIN_TOOLS", "TOOLS", "Tool"]
