"""Errors raised by the web package (each ``str(err)`` is one line naming the problem)."""
from __future__ import annotations

from scoring.errors import InputError


class ServeError(InputError):
    """The server cannot start: its address cannot be listened on, or its data folder cannot be
    created or written."""
