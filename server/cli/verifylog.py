"""``patience-server verify-log SOURCE``: check the results log from the log alone.

SOURCE is a file of the log's lines (one a line, ``-`` for standard input) or a
server's address (``http://HOST:PORT``), whose read API gives the log day by
day. Every line is checked in order: its chain, its record replayed, its
ranking, ratings and boards recomputed with the server's own code. The first
line that does not hold is named and the exit status is 1
(docs/reference/results-log.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import IO, Any, Final

from ..race.logcheck import Fault, LogCheck

EXIT_OK, EXIT_FAULT, EXIT_USAGE = 0, 1, 2
PAGE: Final = 100  # lines asked for at once (the read API's largest page)
TIMEOUT_S: Final = 30.0
ANSWER_MAX: Final = 512 * 1024 * 1024  # bytes of one answer read: a page of the largest lines
RETRIES: Final = 20  # answers of 429 in a row before giving up
WAIT_MAX_S: Final = 30.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="a file of the log's lines ('-': standard input) or a server's "
                   "address (http://HOST:PORT)")
    p.add_argument("--save", metavar="FILE",
                   help="also write the lines read to FILE (a copy to verify again)")
    p.add_argument("--boards", metavar="FILE", help="write every recomputed board to FILE as JSON")
    p.add_argument("--head", metavar="HASH", help="the head published with a daily's reveal: the log "
                   "must pass through an entry of this hash")


def _get(url: str) -> Any:
    """One answer of the read API; past the address's budget (429) it waits as told and asks again."""
    for _ in range(RETRIES):
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:  # noqa: S310  # the user's address
                return json.loads(answer.read(ANSWER_MAX))
        except urllib.error.HTTPError as exc:
            if exc.code != 429:
                raise
            wait = exc.headers.get("Retry-After", "1")
            time.sleep(min(float(wait) if wait.isdigit() else 1.0, WAIT_MAX_S))
    raise OSError(f"the server kept answering 429 (too many requests) to {url}")


def download(base: str) -> Iterator[str]:
    """Every line of a server's log, oldest first, through its read API, up to
    the end of yesterday: a day's lines are served once the day is over."""
    root = base.rstrip("/") + "/api/v1/log"
    index = _get(root)
    for day in index["days"]:
        offset = 0
        while True:
            query = urllib.parse.urlencode({"offset": offset, "limit": PAGE})
            try:
                page = _get(f"{root}/{day['date']}?{query}")
            except urllib.error.HTTPError as exc:
                if exc.code == 403:  # today: served tomorrow
                    return
                raise
            yield from page["lines"]
            offset += len(page["lines"])
            if not page["lines"] or offset >= page["total"]:
                break


def _lines(source: str) -> Iterator[str]:
    if source.startswith(("http://", "https://")):
        yield from download(source)
        return
    stream: IO[str] = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
    try:
        for text in stream:
            if text.strip():
                yield text.rstrip("\n")
    finally:
        if stream is not sys.stdin:
            stream.close()


def check(lines: Iterator[str], save: IO[str] | None = None,
          head: str | None = None) -> tuple[LogCheck, str | None]:
    """Feed every line; the check and the first fault (None: the log holds)."""
    log = LogCheck()
    seen_head = head is None
    try:
        for text in lines:
            if save is not None:
                save.write(text + "\n")
            line = log.feed(text)
            seen_head = seen_head or line.hash == head
    except Fault as fault:
        return log, str(fault)
    if not seen_head:
        return log, f"no entry of the log has the published head {head}: the log was rewritten before it"
    return log, None


def run(args: argparse.Namespace) -> int:
    save = open(args.save, "w", encoding="utf-8") if args.save else None  # noqa: SIM115
    try:
        log, fault = check(_lines(args.source), save, args.head)
    except OSError as exc:
        sys.stderr.write(f"patience-server: cannot read the log: {exc}\n")
        return EXIT_USAGE
    except (ValueError, KeyError) as exc:
        sys.stderr.write(f"patience-server: the server's answer is not the log's: {exc!r}\n")
        return EXIT_USAGE
    finally:
        if save is not None:
            save.close()
    if args.boards:
        with open(args.boards, "w", encoding="utf-8") as out:
            json.dump(log.boards(), out, indent=1, sort_keys=True)
    s = log.summary()
    if fault is not None:
        print(f"the log does not hold: {fault}")
        print(f"the {s['entries']} entries before it hold (head {s['head']})")
        return EXIT_FAULT
    print(f"the log holds: {s['entries']} entries ({s['result']} results, {s['void']} voids, "
          f"{s['rename']} renames), {s['names']} names; head {s['head']}")
    if s["carried"]:
        print(f"ratings carried in from before the log: {', '.join(s['carried'])}")
    return EXIT_OK
