"""The compiled server modules' hot functions, timed one by one: CPU
microseconds per call, over a random Simplicity game's positions (the server
bench's variant).

Run: ``python -m bench.movepath [--calls N] [--all]``. ``--all`` runs three
processes: everything compiled (the build's default), the server's modules
pure beside the compiled core (what compiling them buys), and everything pure
(``PATIENCE_PURE=1``). Without ``--all`` it times whatever this process loads;
``--server-pure`` loads the server's compiled modules from source.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable

from server.ops.corebuild import SERVER_COMPILED, SourceOnlyFinder, is_compiled

# (label, environment, arguments) of each process --all runs
KINDS: tuple[tuple[str, dict[str, str], list[str]], ...] = (
    ("compiled", {}, []),
    ("server modules pure", {}, ["--server-pure"]),
    ("all pure", {"PATIENCE_PURE": "1"}, []),
)


def timed(fn: Callable[[], object], calls: int) -> float:
    """CPU microseconds per call of ``fn``."""
    started = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - started) / calls * 1e6


def measure(calls: int) -> dict[str, float]:
    # imported here: --server-pure must put its finder first
    import msgpack
    from websockets.utils import apply_mask

    from server.game import engine
    from server.net import frames
    from server.ops.limits import Bucket
    from server.race.rules import cards_conserved
    from server.wire.protocol import decode_client
    from server.wire.viewcodec import ViewEncoder

    rng = random.Random(7)
    state = engine.new_game("simplicity", "24")
    states = [state]
    for _ in range(60):
        _, moves, _ = engine.status_before_search(state)
        if not moves:
            break
        state = engine.apply(state, rng.choice(moves))
        states.append(state)
    known = [(s, *engine.status_before_search(s)[:2]) for s in states]
    encoder = ViewEncoder()
    turn = [0]

    def view() -> None:
        s, status, moves = known[turn[0] % len(known)]
        turn[0] += 1
        encoder.encode(turn[0], turn[0], s, status, moves)

    def conserved() -> None:
        i = turn[0] % (len(states) - 1)
        turn[0] += 1
        cards_conserved(states[i], states[i + 1])

    payload = msgpack.packb({"t": "move", "seq": 12, "move": "t3-t4", "v": 11})
    mask = b"\x01\x02\x03\x04"
    frame = bytes((0x82, 0x80 | len(payload))) + mask + apply_mask(payload, mask)
    reply = b"x" * 440
    mine, shared = Bucket(1e12, 1e12, 0.0), Bucket(1e12, 1e12, 0.0)
    return {
        "ViewEncoder.encode (a view answer)": timed(view, calls // 10),
        "cards_conserved": timed(conserved, calls // 10),
        "decode_client (a move)": timed(lambda: decode_client(payload), calls),
        "frames.next_frame + unmasked (a move)": timed(
            lambda: frames.unmasked(frame, 6, len(frame)) if frames.next_frame(frame, 0, 4096) else b"",
            calls),
        "frames.binary_frame (440 B)": timed(lambda: frames.binary_frame(reply), calls),
        "Bucket.take_with": timed(lambda: mine.take_with(shared, 1.0), calls),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--all", action="store_true", help="compiled, server pure, all pure")
    parser.add_argument("--server-pure", action="store_true")
    args = parser.parse_args(argv)
    if args.all:
        for label, env, extra in KINDS:
            print(f"== {label}", flush=True)
            subprocess.run([sys.executable, "-m", "bench.movepath", "--calls", str(args.calls), *extra],
                           env={**os.environ, **env}, check=True)
        return
    if args.server_pure:
        sys.meta_path.insert(0, SourceOnlyFinder("server.game.none", SERVER_COMPILED))
    results = measure(args.calls)
    print(f"server modules: {'compiled' if is_compiled('server.wire.viewcodec') else 'pure'}, "
          f"core: {'compiled' if is_compiled('server.game.engine') else 'pure'}")
    for name, us in results.items():
        print(f"  {name:40s} {us:8.2f} µs")


if __name__ == "__main__":
    main()
