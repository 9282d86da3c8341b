"""Instructions per answered move of the whole server process, counted by
callgrind, beside the bare echo's per round trip: the move path's CPU (the
transport, the rules, the store's round trip, the answer and the opponent's
progress) as a figure that does not move with the machine's load.

The server (or the echo) runs under callgrind; a load generator seats the
players in rooms of two and plays an open loop at a low rate, so every move is
its own batch, as at the knee's low rates. The counters are zeroed once the
players are seated and dumped when the loop ends: start-up and seating are not
counted. ``PYTHONHASHSEED`` is fixed. The count still includes the timers and
heartbeats that run meanwhile, which is why the rate is fixed too.

Run: ``make bench`` (or ``python -m bench.server_instructions``); needs
``valgrind`` (Debian package ``valgrind``), and says so when it is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.instructions import HASH_SEED, total_instructions
from bench.load.driver import MOVE_BYTES, Proc, start_echo, start_server
from bench.load.generators import Generators

PLAYERS = 100
RATE = 100.0  # moves per second in total: a move in flight at a time, nearly always
SECONDS = 10.0
ECHO_REPLY_BYTES = 490  # about a Simplicity view's answer (the server bench's reply size)


async def _count(kind: str, out_dir: Path, seconds: float) -> tuple[int, int]:
    """(instructions, answered moves or round trips) of one counted run."""
    out = out_dir / f"{kind}.out"
    under = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p"]
    gens = Generators(1)
    await gens.start()
    proc: Proc | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="patience-instr-") as data:
            if kind == "server":
                proc = start_server(data, under=under)
                await gens.run("seat", urls=[proc.url], players=PLAYERS, per_room=2,
                               variant="simplicity", seed=7, client="websockets")
            else:
                proc = start_echo(ECHO_REPLY_BYTES, under=under)
                await gens.run("echo_conns", urls=[proc.url], n=PLAYERS, client="websockets")
            pid = str(proc.popen.pid)
            # the counters are zeroed (then dumped) before the next step goes on: blocking
            # is the point, and the generators run in processes of their own
            subprocess.run(["callgrind_control", "--zero", pid], capture_output=True, check=True)  # noqa: ASYNC221
            op = "open" if kind == "server" else "echo_open"
            phase = await gens.run(op, rate=RATE, of=PLAYERS, seconds=seconds)
            subprocess.run(["callgrind_control", "--dump=counted", pid],  # noqa: ASYNC221 (as above)
                           capture_output=True, check=True)
            await gens.run("close")
    finally:
        if proc is not None:
            proc.stop()
        await gens.stop()
    # after the run: nothing else is left on the loop to hold up
    for path in sorted(out_dir.glob(f"{kind}.out.*"), key=lambda p: p.stat().st_mtime, reverse=True):  # noqa: ASYNC240
        text = path.read_text()
        if "counted" in text[:4000]:  # the dump's description names it
            return total_instructions(text), phase.stats.accepted
    raise RuntimeError(f"callgrind wrote no counted dump for the {kind}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--keep", type=Path, default=None,
                        help="a directory to keep callgrind's files in (for callgrind_annotate)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("server instructions per move: skipped, valgrind is not installed (Debian package valgrind)")
        return 0
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    print(f"whole process, instructions per answer (callgrind; {PLAYERS} players, "
          f"open loop at {RATE:.0f} moves/s for {args.seconds:.0f} s; echo message {MOVE_BYTES} B):")
    with tempfile.TemporaryDirectory(prefix="patience-callgrind-") as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        counts = {kind: asyncio.run(_count(kind, out_dir, args.seconds)) for kind in ("server", "echo")}
    per = {kind: n / max(answers, 1) for kind, (n, answers) in counts.items()}
    for kind, (n, answers) in counts.items():
        print(f"  {kind:<7} {per[kind]:>12,.0f} per answer ({answers} answers, {n:,} instructions)")
    print(f"  server / echo: x{per['server'] / per['echo']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
