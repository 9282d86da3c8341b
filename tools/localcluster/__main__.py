"""``python -m tools.localcluster`` (``make cluster``): docker-compose.yml's deployment on
this machine, a Redis Cluster, K servers and HAProxy, until Ctrl-C."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .command import add_arguments, run


def run_cluster(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.localcluster",
        description="run the compose file's deployment on this machine: a Redis Cluster "
                    "(3 primaries, 3 replicas), K servers and HAProxy, until Ctrl-C")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(run_cluster())
