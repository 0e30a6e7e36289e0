"""The phone web page and its JSON API (``mahjong-score serve``).

* :mod:`web.app`: :func:`web.app.create_app` builds the FastAPI application (page, ``/api/*``,
  limits, error handling); :class:`web.app.Settings` holds its limits and data dir.
* :mod:`web.schemas`: the pydantic request/response models (the OpenAPI schema at
  ``/api/openapi.json``).
* :mod:`web.server`: what ``serve`` (:mod:`commands.serve`) checks before it starts uvicorn.
* ``web/static/``: the page itself, plain HTML/CSS/JS with no build step and nothing fetched from
  elsewhere (the tile faces are SVG drawn by ``tiles.js``).

See ``docs/web.md``.
"""
