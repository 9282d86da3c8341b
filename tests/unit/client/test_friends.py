"""The terminal client's friends screen: its keys, the commands they send, and
what the friends list and the notices leave in the state (pure)."""

from __future__ import annotations

from client.keys import UI, Command, context_of
from client.screens import press, render
from client.state import RaceState, apply
from client.text import text_lines
from tests.unit.client.test_competition import lobby
from tests.unit.client.test_screen import T0
from tests.unit.client.test_screen_fit import friends_state


def keys(state: RaceState, seq: list[str], ui: UI) -> tuple[UI, list[Command]]:
    sent: list[Command] = []
    for key in seq:
        ui, more = press(ui, key, mode="lobby", state=state, ctx=context_of(state))
        sent += more
    return ui, sent


def shown(state: RaceState, ui: UI) -> str:
    return "\n".join(text_lines(render(state, ui, now_ms=T0, width=80, height=24)))


def test_f_in_the_lobby_opens_the_list_and_asks_for_it() -> None:
    st = lobby(True)
    ui, sent = keys(st, ["f"], UI())
    assert ui.menu == "friends" and sent == [Command("friends")]
    guest = lobby(False)
    ui, sent = keys(guest, ["f"], UI())
    assert ui.menu == "friends" and sent == []
    assert "claimed names" in shown(guest, ui)
    _, sent = keys(guest, ["u"], ui)  # a guest's keys ask nothing of the server
    assert sent == []


def test_follow_block_and_challenge_send_the_name_typed() -> None:
    st = lobby(True)
    ui = UI(menu="friends")
    for key, kind in (("f", "follow"), ("u", "unfollow"), ("b", "block"), ("n", "unblock")):
        _, sent = keys(st, [key, "b", "o", "b", "enter"], ui)
        assert sent == [Command(kind, "bob")], kind
    # a challenge: the variant first, then the name
    ui, sent = keys(st, ["c"], ui)
    assert ui.menu == "pick" and ui.purpose == "challenge" and sent == []
    ui, sent = keys(st, ["enter"], ui)
    assert ui.text_purpose == "challenge" and ui.menu == "friends"
    ui, sent = keys(st, ["b", "o", "b", "enter"], ui)
    assert sent == [Command("challenge", "bob", kind=st.variants[0].id)] and ui.menu == "friends"


def test_the_list_shows_who_is_online_where_and_the_challenges_waiting() -> None:
    st = friends_state(following=3, waiting=2)
    text = shown(st, UI(menu="friends"))
    assert "online, in room K7QX2M" in text and "offline" in text
    assert "online, in the lobby" in text  # the third: online, in no room
    st.friends = {**(st.friends or {}), "following": [{"name": "eve", "online": True, "in_room": True,
                                                        "room": None}]}
    assert "eve" in shown(st, UI(menu="friends")) and "online, in a room" in shown(st, UI(menu="friends"))
    assert "Challenges waiting" in text and "Annabelle-the-Quick" in text
    assert "blocked: pest0" in text
    # a accepts the first waiting, x declines it
    first = st.challenges[0]["name"]
    _, sent = keys(st, ["a"], UI(menu="friends"))
    assert sent == [Command("challenge_answer", first, 1)]
    _, sent = keys(st, ["x"], UI(menu="friends"))
    assert sent == [Command("challenge_answer", first, 0)]


def test_each_notice_is_told_on_the_screen() -> None:
    st = lobby(True)
    for msg, words in (
            ({"kind": "challenge", "name": "bob", "variant": "czarina", "expires_at": T0},
             "bob challenges you"),
            ({"kind": "challenge_declined", "name": "bob"}, "bob declined"),
            ({"kind": "challenge_accepted", "name": "bob", "code": "K7QX2M"}, "room K7QX2M"),
            ({"kind": "friend_online", "name": "bob"}, "bob is online"),
            ({"kind": "arena_soon", "id": "A", "name": "Evening", "starts_at": T0},
             "Evening starts in a minute"),
            ({"kind": "season_ending", "season": "2026-12-01", "ends_at": T0},
             "the season ends 1970-01-01 00:16 UTC")):
        apply(st, {"t": "notice", **msg}, T0)
        assert words in st.notice, (msg, st.notice)
    assert [c["name"] for c in st.challenges] == ["bob"]
    apply(st, {"t": "notice", "kind": "nonsense"}, T0)  # an unknown kind: nothing told
    assert "the season" in st.notice
