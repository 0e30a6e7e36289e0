"""``mahjong-score serve``: run the phone page and its API with uvicorn (registered in ``cli.COMMANDS``).

    mahjong-score serve                      # http://127.0.0.1:8000/ on this computer only
    mahjong-score serve --host 0.0.0.0       # reachable by phones on the same network (LAN)

FastAPI and uvicorn are imported only when the command runs, so the rest of the CLI does not pay for
them. The server writes nothing outside its data dir (``--data-dir``, default the per-user data dir
of platformdirs): requests are handled in memory, and the process's temporary directory is pointed at
``DATA_DIR/tmp`` so that no library can leave a temporary file elsewhere.
"""
from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from pathlib import Path

from commands.common import UserError, whole_number
from web.server import check_listen, prepare_data_dir


def _lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent), or None."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: only selects the outgoing interface
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from web.app import MIB, Settings, create_app, default_data_dir
    except ImportError as e:
        raise UserError(f"serve needs FastAPI, uvicorn and python-multipart ({e}); "
                        f"install them with `pip install fastapi uvicorn python-multipart`") from None
    if not 1 <= args.port <= 65535:
        raise UserError(f"--port must be 1-65535, not {args.port}")
    for name in ("max_upload_mb", "timeout"):  # (NaN and inf too: int(NaN × MiB) was a traceback)
        v = getattr(args, name)
        if not 0 < v < 1e9:
            raise UserError(f"--{name.replace('_', '-')} {v} must be a number more than 0 and below 1e9")
    for name in ("photo_cache", "workers"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} {getattr(args, name)} must be ≥ 1")
    if args.photo_queue < 0:
        raise UserError(f"--photo-queue {args.photo_queue} must be ≥ 0")
    if not 0 < args.photo_cache_mb < 1e6:
        raise UserError(f"--photo-cache-mb {args.photo_cache_mb} must be a number more than 0 and below 1e6")
    check_listen(args.host, args.port)
    data_dir = prepare_data_dir(Path(args.data_dir) if args.data_dir else default_data_dir())
    settings = Settings(data_dir=data_dir, max_upload_bytes=int(args.max_upload_mb * MIB), timeout_s=args.timeout,
                        photo_cache=args.photo_cache, workers=args.workers, photo_queue=args.photo_queue,
                        photo_cache_bytes=int(args.photo_cache_mb * MIB), tileset=args.tileset)
    if args.tileset:  # an unknown --tileset is bad input now, not an error on every photo
        from vision.errors import TilesetError
        from vision.tileset import load_profile

        from web.tilesets import tilesets_dir_for

        try:
            load_profile(args.tileset, tilesets_dir_for(data_dir))
        except TilesetError as e:
            raise UserError(str(e)) from None
    app = create_app(settings, load_models=not args.no_models)
    # hand the interpreter lock over every 1 ms (default 5 ms): a notation request waiting behind
    # a photo thread's Python code gets it sooner (measured in benchmarks/bench_memory.py)
    sys.setswitchinterval(0.001)
    print(f"mahjong-score: data dir {data_dir}")
    if app.state.models_error:
        print(f"mahjong-score: photo reading unavailable: {app.state.models_error}")
    print(f"mahjong-score: open http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}/")
    if args.host in ("0.0.0.0", "::"):
        lan = _lan_address()
        print(f"mahjong-score: on a phone in the same network open http://{lan or '<this computer’s address>'}:{args.port}/")
    else:
        print("mahjong-score: only this computer can connect; use --host 0.0.0.0 for phones on the network")
    # (uvicorn shuts down on SIGTERM, then raises it again with the handler it found: Python's default had ended the
    # process with exit 143 and no word, a supervisor's normal stop read as a failure — a breaker's. Ours says so)
    old = signal.signal(signal.SIGTERM, _on_term) if threading.current_thread() is threading.main_thread() else None
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_keep_alive=5)
    except OSError as e:
        raise UserError(f"cannot listen on {args.host}:{args.port} ({e.strerror or e})") from None
    except _Terminated:
        print("mahjong-score: stopped (SIGTERM): the server shut down, its requests answered")
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
    return 0


class _Terminated(Exception):
    """SIGTERM came, and uvicorn has shut the server down (it raises the signal again once it has)."""


def _on_term(signum, frame) -> None:
    raise _Terminated()


def register(subparsers) -> None:
    """Add the ``serve`` subcommand (registered through ``cli.COMMANDS``)."""
    p = subparsers.add_parser(
        "serve", help="serve the phone web page and the JSON API",
        description="Serve the web page (photo → reading → tap to correct a tile → score; a table view "
                    "settles four hands) and its JSON API (/api/score, /api/hand, /api/settle, "
                    "/api/rulesets; schema at /api/openapi.json). Default host 127.0.0.1 is this "
                    "computer only; --host 0.0.0.0 lets phones on the same network connect. See docs/web.md.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 = every interface (phones on the LAN); default 127.0.0.1")
    p.add_argument("--port", type=whole_number, default=8000, help="port; default 8000")
    p.add_argument("--data-dir", help="the only folder the server writes to (default: the per-user data dir)")
    from commands.tilesets import add_tileset_arg

    add_tileset_arg(p)  # the page's default tile set
    p.add_argument("--max-upload-mb", type=float, default=20.0, help="largest photo accepted, in MB; default 20")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds a request may wait for scoring; default 30")
    p.add_argument("--photo-cache", type=whole_number, default=8, help="photos kept in memory for re-scoring; default 8")
    p.add_argument("--photo-cache-mb", type=float, default=256.0,
                   help="most memory the kept photos may take, in MB; default 256")
    p.add_argument("--workers", type=whole_number, default=2, help="photo-reading threads (notation has its own); default 2")
    p.add_argument("--photo-queue", type=whole_number, default=4,
                   help="photos that may wait for a worker; more get 503 with Retry-After; default 4")
    p.add_argument("--no-models", action="store_true", help="do not load the photo models (notation and table only)")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn log level; default warning")
    p.set_defaults(func=cmd_serve)
