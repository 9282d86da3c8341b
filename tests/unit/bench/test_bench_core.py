"""The engine bench's pure-beside-compiled table and the callgrind figure
(bench/engine.py, bench/instructions.py)."""

from __future__ import annotations

import importlib

import pytest

from bench import engine as engine_bench
from bench import instructions


def test_the_fixed_games_play_the_same_moves_every_time() -> None:
    plan = instructions.games()
    assert plan == instructions.games()
    played = instructions.play_games(plan)
    assert played > 1000  # enough moves to average over, in every variant
    assert instructions.play_games(plan) == played


def test_the_instruction_total_is_read_from_callgrind_output() -> None:
    text = "version: 1\ncmd: python\nevents: Ir\nfl=x\n0 5\ntotals: 123456789\n"
    assert instructions.total_instructions(text) == 123456789
    assert instructions.total_instructions("events: Ir\nsummary: 42\n") == 42
    with pytest.raises(ValueError):
        instructions.total_instructions("events: Ir\n")


def test_per_move_subtracts_the_run_that_only_prepares(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {False: instructions.Count(1_000, 0, "compiled"),
              True: instructions.Count(51_000, 100, "compiled")}
    monkeypatch.setattr(instructions, "_callgrind", lambda pure, play: counts[play])
    monkeypatch.setattr(instructions, "_warm", lambda pure: None)
    cost, full = instructions.per_move(pure=False)
    assert cost == 500 and full.moves == 100


def test_both_cores_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    def run(rate: float, view_rate: float, core: str) -> dict[str, object]:
        rows = {"four-seasons": {"rate": rate, "view_rate": view_rate}}
        return {"core": core, "baseline": 1e6, "variants": rows}

    engine_bench.print_both(run(100_000, 10_000, "pure Python"), run(250_000, 25_000, "compiled"))
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("four-seasons")][0]
    assert row.split() == ["four-seasons", "100,000", "250,000", "2.5", "100.0", "40.0", "2.5"]


def test_the_move_path_micro_bench_times_every_hot_function(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import movepath

    movepath.main(["--calls", "200"])
    out = capsys.readouterr().out
    assert out.startswith("server modules: ")
    names = ["ViewEncoder.encode", "cards_conserved", "decode_client", "frames.next_frame",
             "frames.binary_frame", "Bucket.take_with"]
    lines = out.splitlines()[1:]
    assert [ln.split()[0] for ln in lines] == names
    assert all(float(ln.split()[-2]) > 0 for ln in lines)


@pytest.mark.parametrize("bench_module", ["instructions", "server_instructions"])
def test_without_valgrind_the_count_says_it_is_skipped(bench_module: str,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    module = importlib.import_module(f"bench.{bench_module}")
    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.setattr("sys.argv", [bench_module])
    assert module.main() == 0
    assert "skipped, valgrind is not installed" in capsys.readouterr().out


def test_the_server_count_divides_by_the_answers_and_compares_with_the_echo(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from bench import server_instructions

    counts = {"server": (250_000_000, 1000), "echo": (99_000_000, 990)}

    async def counted(kind: str, out_dir: object, seconds: float) -> tuple[int, int]:
        return counts[kind]

    monkeypatch.setattr("shutil.which", lambda name: "/bin/" + name)
    monkeypatch.setattr(server_instructions, "_count", counted)
    monkeypatch.setattr("sys.argv", ["server_instructions"])
    monkeypatch.setenv("PYTHONHASHSEED", "random")  # main fixes it; put back after the test
    assert server_instructions.main() == 0
    out = capsys.readouterr().out
    assert "250,000 per answer" in out and "100,000 per answer" in out
    assert out.rstrip().endswith("server / echo: x2.50")
