"""Hippograph's Python client, `hippograph` command and stdio MCP bridge: the light distribution
`hippograph-client` (clients/python). The service itself is the `app` package of the `hippograph`
distribution, which depends on this one at the same version.

`from hippograph import Hippograph, AsyncHippograph`; errors in `hippograph.errors`.
"""

from hippograph._retry import RetryPolicy
from hippograph.client import AsyncHippograph, Hippograph
from hippograph.errors import HippographError

# The version of both distributions (pyproject.toml pins `hippograph-client==` this).
__version__ = "0.1.0"

__all__ = ["AsyncHippograph", "Hippograph", "HippographError", "RetryPolicy", "__version__"]
