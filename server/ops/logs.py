"""Structured logs: one JSON object per line, carrying room and player."""

from __future__ import annotations

import logging
import os
import sys

from pythonjsonlogger.json import JsonFormatter


def setup_logging(level: str | None = None) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s",
                                       rename_fields={"asctime": "time", "levelname": "level"}))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level or os.environ.get("PATIENCE_LOG_LEVEL", "INFO"))
    logging.getLogger("websockets").setLevel(logging.WARNING)
