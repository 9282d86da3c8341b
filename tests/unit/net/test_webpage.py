"""The browser client's files as the server answers them (server/net/webpage.py):
paths, content types, the CSP, ETags and gzip, on a page written to a temp dir."""

from __future__ import annotations

import gzip
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Request

from server.net.webpage import CSP, MAX_BYTES, WebPage


def page(tmp_path: Path) -> WebPage:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>" + "x" * 500)
    (tmp_path / "assets" / "app.js").write_text("console.log(1);" * 100)
    (tmp_path / "assets" / "style.css").write_text("a{}")
    (tmp_path / "assets" / "notes.txt").write_text("not served: no known type")
    return WebPage.load(tmp_path)


def get(path: str, **headers: str) -> Request:
    return Request(path, Headers([(k.replace("_", "-"), v) for k, v in headers.items()]))


def test_the_page_and_its_join_links_answer_with_the_html_and_the_csp(tmp_path: Path) -> None:
    web = page(tmp_path)
    for path in ("/", "/r/K7QX2M", "/r/k7qx2m/", "/?x=1"):
        answer = web.answer(get(path))
        assert answer is not None and answer.status_code == 200, path
        assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
        assert answer.headers["Content-Security-Policy"] == CSP
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.body.startswith(b"<!doctype html>")
    assert "'unsafe-inline'" not in CSP and "http" not in CSP  # only the server's own origin
    # a code of another length is not a join link; nor is anything else: the handshake's
    assert web.answer(get("/r/K7QX2")) is None
    assert web.answer(get("/healthz2")) is None


def test_the_websocket_upgrade_on_the_same_path_is_not_the_page(tmp_path: Path) -> None:
    assert page(tmp_path).answer(get("/", Upgrade="websocket", Connection="Upgrade")) is None


def test_assets_have_their_types_etags_and_gzip(tmp_path: Path) -> None:
    web = page(tmp_path)
    plain = web.answer(get("/assets/app.js"))
    assert plain is not None and plain.status_code == 200
    assert plain.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "Content-Encoding" not in plain.headers
    assert plain.headers["Cache-Control"] == "no-cache"
    packed = web.answer(get("/assets/app.js", Accept_Encoding="gzip, deflate, br"))
    assert packed is not None and packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.body) == plain.body
    assert packed.headers["Content-Length"] == str(len(packed.body))
    again = web.answer(get("/assets/app.js", If_None_Match=plain.headers["ETag"]))
    assert again is not None and again.status_code == 304 and again.body == b""
    # a tiny file is sent as it is: gzip would make it larger
    css = web.answer(get("/assets/style.css", Accept_Encoding="gzip"))
    assert css is not None and "Content-Encoding" not in css.headers
    for missing in ("/assets/notes.txt", "/assets/nope.js", "/assets/../index.html"):
        answer = web.answer(get(missing))
        assert answer is not None and answer.status_code == 404, missing


def test_an_unbuilt_page_says_how_to_build_it(tmp_path: Path) -> None:
    web = WebPage.load(tmp_path / "nothing")
    answer = web.answer(get("/"))
    assert answer is not None and answer.status_code == 503
    assert b"make setup" in answer.body
    assert answer.headers["Content-Security-Policy"] == CSP


def test_the_files_held_in_memory_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "assets" / "big.js").write_bytes(b"x" * (MAX_BYTES + 1))
    web = WebPage.load(tmp_path)
    assert "/assets/big.js" not in web.files
    assert web.total_bytes(compressed=False) <= MAX_BYTES
