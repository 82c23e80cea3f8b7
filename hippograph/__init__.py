"""Hippograph's Python client and `hippograph` command (the service itself is the `app` package).

`from hippograph import Hippograph, AsyncHippograph`; errors in `hippograph.errors`.
"""

from hippograph._retry import RetryPolicy
from hippograph.client import AsyncHippograph, Hippograph
from hippograph.errors import HippographError

__all__ = ["AsyncHippograph", "Hippograph", "HippographError", "RetryPolicy"]
