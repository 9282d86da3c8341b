"""The budgets of code guesses: per name (whatever the address) and per address
(whatever the name), each refusal spending nothing."""

from __future__ import annotations

from server.ops.limits import Address, ConnectionLimits, Limits, NameBook


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limits(clock: Clock, names: NameBook, guesses_per_hour: int = 10**6) -> ConnectionLimits:
    address = Address("a", Limits(guesses_per_hour=guesses_per_hour), clock())
    return ConnectionLimits(address, clock, names)


def test_a_name_gets_its_burst_then_one_guess_every_five_minutes_whatever_the_address() -> None:
    clock = Clock()
    names = NameBook(clock, burst=4, per_hour=12)
    first, second = limits(clock, names), limits(clock, names)
    assert [first.take_guess("Ann") for _ in range(2)] == [0, 0]
    assert [second.take_guess("ann") for _ in range(2)] == [0, 0]  # the same name, any case
    wait = second.take_guess("ANN")
    assert 299 < wait <= 300
    assert first.take_guess("bob") == 0  # another name has its own
    clock.now += 300
    assert first.take_guess("ann") == 0
    assert first.take_guess("ann") > 0


def test_an_address_gets_its_burst_whatever_the_name_and_a_refusal_spends_nothing() -> None:
    clock = Clock()
    names = NameBook(clock)
    conn = limits(clock, names, guesses_per_hour=30)  # a burst of 10
    assert all(conn.take_guess(f"n{i}") == 0 for i in range(10))
    assert conn.take_guess("n10") > 0
    # the refused guess spent nothing of the name's budget
    clock.now += 120  # one guess back for the address (30 an hour)
    assert conn.take_guess("n10") == 0


def test_the_name_table_is_bounded_and_forgets_names_whose_budget_is_full_again() -> None:
    clock = Clock()
    names = NameBook(clock, max_entries=3, burst=4, per_hour=12)
    conn = limits(clock, names)
    for n in ("a", "b", "c", "d"):
        conn.take_guess(n)
    assert len(names) == 3
    clock.now += names.idle_s + 1
    conn.take_guess("e")
    assert len(names) == 1
