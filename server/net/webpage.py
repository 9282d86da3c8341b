"""The browser client's files, answered on the websocket's own port.

A plain ``GET`` (no websocket upgrade) of ``/``, of a join link ``/r/CODE`` or
of ``/assets/NAME`` is answered from memory: the built page (``web/``, built by
``make setup`` into ``web/dist/``) is read once at start, each file with its
gzip form, its content type and an ETag, so a request costs a dict look-up
and one write. Every answer carries the Content-Security-Policy that allows
the server's own origin only (no CDN, font or script from elsewhere), and the
page's websocket is an ordinary connection: the per-address limits apply to it
unchanged. A request of any other path goes on to the websocket handshake.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

log = logging.getLogger("patience.net")

# 'self' only; the page sets no inline script or style attribute (the DOM's
# style properties are not inline style), so neither needs 'unsafe-inline'
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".json": "application/json",
         ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon",
         ".webmanifest": "application/manifest+json"}
MAX_BYTES = 8 * 1024 * 1024  # the page's files held in memory, at most (a bound, as for every map)
JOIN_LINK = re.compile(r"^/r/[A-Za-z0-9]{6}/?$")
INDEX = "index.html"


@dataclass(frozen=True)
class WebFile:
    body: bytes
    gzipped: bytes | None  # None: compression would not make it smaller
    content_type: str
    etag: str


def default_root() -> Path:
    """web/dist beside the server's package: where ``make setup`` builds the page."""
    return Path(__file__).resolve().parents[2] / "web" / "dist"


def security_headers() -> list[tuple[str, str]]:
    return [("Content-Security-Policy", CSP), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"), ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Resource-Policy", "same-origin")]


class WebPage:
    """The page's files by request path, read once."""

    def __init__(self, files: dict[str, WebFile]) -> None:
        self.files = files

    @classmethod
    def load(cls, root: Path) -> WebPage:
        files: dict[str, WebFile] = {}
        total = 0
        if not (root / INDEX).is_file():
            log.warning(f"the browser client is not built ({root / INDEX} is missing): "
                        "GET / says so; make setup builds it")
            return cls(files)
        candidates = [(f"/{INDEX}", root / INDEX)]
        assets = root / "assets"
        if assets.is_dir():
            candidates += [(f"/assets/{p.name}", p) for p in sorted(assets.iterdir()) if p.is_file()]
        for path, file in candidates:
            kind = TYPES.get(file.suffix)
            if kind is None:
                continue
            body = file.read_bytes()
            total += len(body)
            if total > MAX_BYTES:
                log.warning(f"the browser client's files pass {MAX_BYTES} bytes: "
                            f"{path} and after are not served")
                break
            packed = gzip.compress(body, 9, mtime=0)
            files[path] = WebFile(body, packed if len(packed) < len(body) else None, kind,
                                  '"' + hashlib.sha256(body).hexdigest()[:20] + '"')
        return cls(files)

    def total_bytes(self, compressed: bool = True) -> int:
        """The page and its assets as sent: gzip where it is smaller."""
        return sum(len(f.gzipped or f.body) if compressed else len(f.body) for f in self.files.values())

    def answer(self, request: Request) -> Response | None:
        """The answer to a plain GET of the page, or None: not ours (the websocket's handshake)."""
        headers = request.headers
        if "websocket" in headers.get("Upgrade", "").lower():
            return None
        path = request.path.split("?", 1)[0].split("#", 1)[0]
        if path == "/" or JOIN_LINK.match(path):
            path = f"/{INDEX}"
        elif path == "/favicon.ico":  # asked for by browsers whatever the page says
            path = "/assets/icon.svg"
        elif not path.startswith("/assets/"):
            return None
        found = self.files.get(path)
        if found is None:
            if path == f"/{INDEX}":
                return self._plain(503, "Service Unavailable",
                                   b"the browser client is not built on this server: run make setup\n")
            return self._plain(404, "Not Found", b"not found\n")
        common = [("ETag", found.etag), ("Cache-Control", "no-cache"), ("Vary", "Accept-Encoding"),
                  *security_headers()]
        if found.etag in [tag.strip() for tag in headers.get("If-None-Match", "").split(",")]:
            return Response(304, "Not Modified", Headers([*common, ("Content-Length", "0"),
                                                          ("Connection", "close")]), b"")
        body = found.body
        encoding: list[tuple[str, str]] = []
        if found.gzipped is not None and "gzip" in headers.get("Accept-Encoding", ""):
            body, encoding = found.gzipped, [("Content-Encoding", "gzip")]
        return Response(200, "OK", Headers([("Content-Type", found.content_type), *encoding, *common,
                                            ("Content-Length", str(len(body))),
                                            ("Connection", "close")]), body)

    @staticmethod
    def _plain(status: int, phrase: str, text: bytes) -> Response:
        return Response(status, phrase, Headers([("Content-Type", "text/plain; charset=utf-8"),
                                                 *security_headers(), ("Content-Length", str(len(text))),
                                                 ("Connection", "close")]), text)
