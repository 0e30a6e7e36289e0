"""What ``mahjong-score serve`` (:mod:`commands.serve`) checks before it starts uvicorn: that the
address can be listened on and that the data folder can be written (and becomes the process's
temporary directory)."""
from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

from .errors import ServeError


def check_listen(host: str, port: int) -> None:
    """Bind (and release) ``host:port`` as uvicorn will, so that an unknown host or a port in use is
    a one-line :class:`web.errors.ServeError` (uvicorn itself logs the failure and exits with code 3)."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            s.bind(addr)
    except OSError as e:  # socket.gaierror included
        raise ServeError(f"cannot listen on {host}:{port} ({e.strerror or e})") from None


def prepare_data_dir(path: Path) -> Path:
    """Create the data dir (and its ``tmp``) and make it the process's temporary directory.

    Raises :class:`web.errors.ServeError` when it cannot be created or written.
    """
    try:  # (a link that loops: Path.resolve raises RuntimeError, a breaker's exit 3)
        path = path.expanduser().resolve()
    except (OSError, RuntimeError) as e:
        raise ServeError(f"--data-dir {path}: cannot use it ({'a symbolic link loop' if isinstance(e, RuntimeError) else e})") from None
    tmp = path / "tmp"
    try:
        tmp.mkdir(parents=True, exist_ok=True)
        if not os.access(tmp, os.W_OK):
            raise PermissionError(f"{tmp} is not writable")
    except OSError as e:
        raise ServeError(f"--data-dir {path}: cannot create or write it ({e})") from None
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = str(tmp)
    return path
