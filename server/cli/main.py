"""``patience-server``: the server and its offline tools.

Subcommands: ``variants``, ``deal``, ``verify``, ``solve``, ``serve``, ``arena``, ``admin``,
``migrate-ratings`` and ``verify-log``.
Bad input gets one line on stderr and exit status 2, never a traceback. The load
bench (``python -m bench.load``) and the local cluster (``python -m tools.localcluster``)
run from a checkout: the wheel ships the server and the client only.
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import replace

from ..game.cards import card_text
from ..game.deals import BadDealNumber, parse_deal_number
from ..game.engine import new_game
from ..game.records import BadRecord, record_from_json, verify
from ..game.state import STOCK
from ..game.variants import UnknownVariant, get_rules, specs
from ..ops.config import ConfigError

EXIT_OK, EXIT_ILLEGAL, EXIT_USAGE = 0, 1, 2
EXIT_FAILED = 1  # the server could not start
_LISTEN_ERRORS = {errno.EADDRINUSE: "the port is in use (is another server running?)",
                  errno.EACCES: "permission denied (ports below 1024 need privileges)",
                  errno.EADDRNOTAVAIL: "this machine has no such address"}
PROGRESS_AFTER_S = 1.0  # a solve that takes longer shows its time on a terminal


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints usage and exits 2; we keep the exit code, print one line
        sys.stderr.write(f"patience-server: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _cmd_variants(_: argparse.Namespace) -> int:
    for spec in specs():
        aliases = ", ".join(spec.aliases) or "-"
        sources = "; ".join(spec.sources) or "-"
        print(f"{spec.id}\t{spec.name}\tfamily: {spec.family}\taliases: {aliases}\tdecks: {spec.decks}"
              f"\tsources: {sources}")
    return EXIT_OK


def _cmd_deal(args: argparse.Namespace) -> int:
    rules = get_rules(args.variant)
    parse_deal_number(args.number)
    state = new_game(rules.spec.id, args.number)
    piles: dict[str, list[str]] = {}
    for i, name in enumerate(rules.names):
        cards = [card_text(c) for c in state.piles[i]]
        # this offline tool shows the stock on purpose, next card first
        piles[name] = cards[::-1] if i == STOCK else cards
    number: int | str = int(args.number) if args.number.isdigit() else args.number
    doc = {"variant": rules.spec.id, "deal": number, "piles": piles}
    if args.json:
        print(json.dumps(doc))
    else:
        print(f"{rules.spec.name} #{args.number}")
        for name, cards in piles.items():
            print(f"  {name:>3}: {' '.join(cards)}")
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace) -> int:
    try:
        with open(args.record, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise BadRecord(f"cannot read {args.record}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise BadRecord(f"{args.record} is not UTF-8 text") from None
    verdict = verify(record_from_json(text))
    print(json.dumps(verdict))
    return EXIT_OK if verdict["legal"] else EXIT_ILLEGAL


def _cmd_serve(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from ..app import run
    from ..ops.config import Settings, load_or_create_secret
    from ..ops.logs import setup_logging
    from ..store.embedded import resolve_redis_url
    from ..store.server_version import ServerTooOld

    settings = Settings.from_env()
    settings = replace(settings, host=args.host or settings.host,
                       port=settings.port if args.port is None else args.port,
                       secret=settings.secret or load_or_create_secret(settings.data_dir))
    setup_logging()
    url, launcher = resolve_redis_url()
    if launcher is not None:
        logging.getLogger("patience.server").info("embedded redis started", extra={"url": url})
    try:
        try:
            import uvloop  # a faster event loop where it is installed
            uvloop.run(run(settings, url))
        except ImportError:
            asyncio.run(run(settings, url))
    except ServerTooOld as exc:
        sys.stderr.write(f"patience-server: {exc}\n")
        return EXIT_ILLEGAL
    except OSError as exc:
        if exc.errno not in _LISTEN_ERRORS:
            raise
        # the usual cause is a second server on the same port: one line says so
        sys.stderr.write(f"patience-server: cannot listen on {settings.host}:{settings.port}: "
                         f"{_LISTEN_ERRORS[exc.errno]} (choose another with --port or PATIENCE_PORT)\n")
        return EXIT_FAILED
    finally:
        if launcher is not None:
            launcher.stop()
    return EXIT_OK


def _cmd_arena(args: argparse.Namespace) -> int:
    from .arena import run

    return run(args)


def _cmd_admin(args: argparse.Namespace) -> int:
    from .admin import run

    return run(args)


def _cmd_migrate(args: argparse.Namespace) -> int:
    from .migrate import run

    return run(args)


def _cmd_solve(args: argparse.Namespace) -> int:
    from ..game.solver import DEFAULT_BUDGET, solve

    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    if budget < 1:
        sys.stderr.write("patience-server: --budget must be a positive number of nodes\n")
        return EXIT_USAGE
    rules = get_rules(args.variant)
    parse_deal_number(args.number)
    with _Ticker(f"solving {rules.spec.name} #{args.number} (budget {budget} nodes)"):
        res = solve(rules.spec.id, args.number, budget)
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        print(f"{rules.spec.name} #{args.number}: {res.result} "
              f"({res.nodes} nodes, {res.seconds:.2f} s, best {res.best_progress} foundation cards)")
        if res.moves:
            print(" ".join(res.moves))
    return EXIT_OK


class _Ticker:
    """On a terminal, a line on stderr with the time spent so far, redrawn each
    second once a search has run for PROGRESS_AFTER_S, and wiped at the end;
    nothing when stderr is a file or a pipe (scripts read stdout only)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.stream = sys.stderr
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.shown = False

    def __enter__(self) -> _Ticker:
        if self.stream.isatty():
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def _run(self) -> None:
        start = time.monotonic()
        if self.done.wait(PROGRESS_AFTER_S):
            return
        while not self.done.is_set():
            # the search holds the GIL, but this thread still gets its turns
            self.stream.write(f"\r{self.label}: {time.monotonic() - start:.0f} s\x1b[K")
            self.stream.flush()
            self.shown = True
            self.done.wait(1.0)


def version_text() -> str:
    """The version, and whether the rules core runs compiled or pure Python."""
    from importlib.metadata import PackageNotFoundError, version

    from ..ops.corebuild import rules_core

    try:
        number = version("patience-race")
    except PackageNotFoundError:  # run from a source tree that was never installed
        number = "unknown"
    return f"patience-server {number} (rules core: {rules_core()})"


class _VersionAction(argparse.Action):
    # argparse's own "version" action wants the text when the parser is built;
    # this one looks at the core only when --version is asked for
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(version_text())
        raise SystemExit(EXIT_OK)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="patience-server", description="Patience Race server and tools")
    p.add_argument("--version", action=_VersionAction, nargs=0,
                   help="print the version and which rules core runs (compiled or pure Python)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("variants", help="list the variants").set_defaults(func=_cmd_variants)
    d = sub.add_parser("deal", help="show the cards of a deal (stock included)")
    d.add_argument("variant")
    d.add_argument("number")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=_cmd_deal)
    v = sub.add_parser("verify", help="replay a game record and judge it")
    v.add_argument("record")
    v.set_defaults(func=_cmd_verify)
    so = sub.add_parser("solve", help="decide a deal: won (with a line), lost (proved) or unknown")
    so.add_argument("variant")
    so.add_argument("number")
    so.add_argument("--budget", type=int, default=None, metavar="NODES",
                    help="search at most this many positions (default 200000)")
    so.add_argument("--json", action="store_true")
    so.set_defaults(func=_cmd_solve)
    s = sub.add_parser("serve", help="run the race server")
    s.add_argument("--host", default=None, help="default: $PATIENCE_HOST or 127.0.0.1")
    s.add_argument("--port", type=int, default=None, help="default: $PATIENCE_PORT or 8765")
    s.set_defaults(func=_cmd_serve)
    a = sub.add_parser("arena", help="create or list arenas (timed events of one variant)")
    from .arena import add_arguments as arena_arguments

    arena_arguments(a)
    a.set_defaults(func=_cmd_arena)
    ad = sub.add_parser("admin", help="moderation: the queue, bans, renames, voids, the audit log")
    from .admin import add_arguments as admin_arguments

    admin_arguments(ad)
    ad.set_defaults(func=_cmd_admin)
    sub.add_parser("migrate-ratings", help="once, after the upgrade to ratings per variant: each name's "
                   "single rating starts every variant it played").set_defaults(func=_cmd_migrate)
    from .verifylog import add_arguments as verify_log_arguments
    from .verifylog import run as verify_log

    vl = sub.add_parser("verify-log", help="check the results log: its chain, every record replayed, "
                        "every rating and board recomputed")
    verify_log_arguments(vl)
    vl.set_defaults(func=verify_log)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except (UnknownVariant, BadDealNumber, BadRecord, ConfigError) as exc:
        sys.stderr.write(f"patience-server: {exc}\n")
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
