"""``python -m bench.load``: bots against a real server beside a bare websocket echo,
run from a checkout (docs/benchmarks.md says what each figure means)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .run import add_arguments, main


def run_bench(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load",
                                     description="load-test a server beside a bare websocket echo")
    add_arguments(parser)
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(run_bench())
