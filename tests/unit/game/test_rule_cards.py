"""The rules cards' promise of a replay in PySolFC says what it needs: Autodeal off.

PySolFC turns a stock card onto an empty waste by itself while its Autodeal option
is on (the default); the server never does so unasked. A card or README paragraph
that promises a move-by-move replay there must say to turn the option off."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.game.variants import specs

ROOT = Path(__file__).resolve().parents[3]
CARDS = ROOT / "seeds" / "rules"
NOTE = ("**In PySolFC, replay with Autodeal off** (Options › Automatic play › Auto deal, on by default): "
        "with it on, PySolFC turns the next stock card onto an empty waste by itself, which this server "
        "does only where a rule on this card says so.")
PROMISE = re.compile(r"replay(?:ed|s)? move by move (?:in PySolFC|there)", re.I)


def flat(text: str) -> str:
    return " ".join(text.split())


def promising_cards() -> list[str]:
    """Every card that promises the replay, and every PySolFC-exact variant's card."""
    exact = {spec.id for spec in specs() if spec.id.endswith("-pysol")}
    promised = {p.stem for p in CARDS.glob("*.md")
                if p.stem != "README" and PROMISE.search(flat(p.read_text(encoding="utf-8")))}
    return sorted(exact | promised)


def test_the_promise_is_found_on_every_pysolfc_exact_card() -> None:
    cards = promising_cards()
    assert {s.id for s in specs() if s.id.endswith("-pysol")} < set(cards)  # fortunes-favor too
    for name in cards:
        assert PROMISE.search(flat((CARDS / f"{name}.md").read_text(encoding="utf-8"))), name


@pytest.mark.parametrize("name", promising_cards())
def test_every_card_that_promises_a_pysolfc_replay_says_autodeal_must_be_off(name: str) -> None:
    text = flat((CARDS / f"{name}.md").read_text(encoding="utf-8"))
    assert NOTE in text
    # under "What it is", before the rules: where a reader meets the promise
    assert text.index(NOTE) < text.index("## Layout")


@pytest.mark.parametrize("doc", ["README.md", "seeds/rules/README.md"])
def test_every_paragraph_promising_a_pysolfc_replay_says_autodeal_must_be_off(doc: str) -> None:
    paragraphs = [flat(p) for p in re.split(r"\n\s*\n", (ROOT / doc).read_text(encoding="utf-8"))]
    promising = [p for p in paragraphs if PROMISE.search(p)]
    assert promising, f"{doc} no longer makes the promise: this test must follow where it went"
    for p in promising:
        assert "Autodeal off" in p and "on by default" in p, p
