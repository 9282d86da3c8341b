"""``patience``: the terminal client (prompt_toolkit wiring only).

The screen is one formatted-text window whose content is the screen model from
:func:`client.screens.render`. The model is recomputed after every key, every
server message and every clock tick, and the terminal is redrawn only when the
model differs from the last one. Keys go through :func:`client.screens.press`;
the commands it returns are carried out by :func:`client.commands.run`.

``c`` on a daily's results copies the share line to the clipboard with OSC 52
(terminals that allow it) and keeps it to print on the terminal after quitting,
where it can be copied by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import getpass
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the heavy imports happen in main(), after the arguments are checked
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPressEvent
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone
    from prompt_toolkit.output import Output

    from .connection import ClientSession
    from .text import Screen
    from .ui import UI, Command

__all__ = ["DEFAULT_SERVER", "RaceApp", "STYLE", "main", "parse_args"]

DEFAULT_SERVER: Final = os.environ.get("PATIENCE_SERVER", "ws://127.0.0.1:8765")
TICK_S: Final = 0.2  # how often the clock is looked at (a frame is drawn only on change)

STYLE: Final = {
    "title": "bold",
    "clock": "bold",
    "rule": "#888888",
    "dim": "#888888",
    "label": "bold",
    "target": "bold reverse ansigreen",
    "selected": "bold reverse ansiyellow",
    "mustfill": "bold ansimagenta",
    "next": "bold underline ansicyan",
    "card.red": "bg:#ffffff #cc0000 bold",
    "card.black": "bg:#ffffff #000000 bold",
    "card": "bg:#ffffff #000000",
    "top": "underline",  # a pile's top card: the one that moves
    "empty": "#888888",
    "bar.done": "ansigreen",
    "bar.todo": "#555555",
    "me": "bold",
    "error": "ansired bold",
    "warn": "ansiyellow bold",
    "info": "ansicyan",
    "hint": "ansiyellow",
    "prompt": "bold",
    "cursor": "reverse",
    "cursorline": "reverse",
    "code": "bold reverse",
    "countdown": "bold ansiyellow",
}


def _default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # no user name in this environment
        name = ""
    return (name or "player")[:24]


KEY_ON_COMMAND_LINE: Final = ("patience: warning: a key given with --key can be read by every user of this "
                               "machine (ps); use --key-file FILE, $PATIENCE_KEY or --ask-key")


def _read_key(p: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """The key from --key-file, --ask-key, --key (warned against) or $PATIENCE_KEY, in that order.

    A key is a password: a command line is readable by every user of the machine,
    a file of mode 0600 or the environment only by its owner.
    """
    given = [flag for flag, on in (("--key-file", args.key_file is not None), ("--ask-key", args.ask_key),
                                   ("--key", args.key is not None)) if on]
    if len(given) > 1:
        p.error(f"give the key one way only, not {' and '.join(given)}")
    key: str | None
    if args.key_file is not None:
        try:
            if args.key_file == "-":
                key = sys.stdin.readline()
            else:
                with open(args.key_file, encoding="utf-8") as fh:
                    key = fh.readline()
        except OSError as exc:
            p.error(f"cannot read the key file {args.key_file}: {exc.strerror or exc}")
    elif args.ask_key:
        key = getpass.getpass("key of your claimed name: ")
    elif args.key is not None:
        print(KEY_ON_COMMAND_LINE, file=sys.stderr)
        key = args.key
    else:
        key = os.environ.get("PATIENCE_KEY") or None
    if key is None:
        return None
    key = key.strip()
    if not 1 <= len(key) <= 64:
        p.error("a key has 1 to 64 characters")
    return key


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="patience", description="Race patience games from your terminal.")
    p.add_argument("--server", default=DEFAULT_SERVER,
                   help=f"the server's websocket address (default: {DEFAULT_SERVER}, or $PATIENCE_SERVER)")
    p.add_argument("--name", default=None, help="the name opponents see (default: your user name)")
    p.add_argument("--ascii", action="store_true", help="letters instead of suit glyphs (S H D C)")
    p.add_argument("--records", default=".", metavar="DIR",
                   help="where s on a results screen saves your game's record (default: here)")
    p.add_argument("--key-file", default=None, metavar="FILE",
                   help="read the key of your claimed name from FILE ('-': standard input), e.g. on another "
                        "computer (it is in keys.json in the config directory of the one that claimed it); "
                        "kept once the server takes it. $PATIENCE_KEY works too")
    p.add_argument("--ask-key", action="store_true", help="type the key of your claimed name at a prompt")
    p.add_argument("--accept-bots", action="store_true",
                   help="quick races may pair you with bot accounts (programs from outside, rated apart)")
    p.add_argument("--key", default=None, help=argparse.SUPPRESS)  # visible in ps: warned against
    p.add_argument("--link", default=None, metavar="CODE",
                   help="give this computer a key of --name's own with a link code made on a device where "
                        "you play under it (d in its lobby, then l)")
    p.add_argument("--recover", default=None, metavar="CODE",
                   help="take --name back with one of its recovery codes (each works once; every other "
                        "device's key is revoked)")
    p.add_argument("--config-dir", default=None, help=argparse.SUPPRESS)  # tests: where tokens live
    args = p.parse_args(argv)
    name = (args.name if args.name is not None else _default_name()).strip()
    if not name or len(name) > 24:
        p.error("--name must be 1 to 24 characters")
    args.name = name
    args.key = _read_key(p, args)
    if args.link and args.recover:
        p.error("give --link or --recover, not both")
    if "://" not in args.server:  # host:port is enough
        args.server = "ws://" + args.server
    return args


def _now_ms() -> int:
    return int(time.time() * 1000)


def key_name(event: KeyPressEvent) -> str:
    """A prompt_toolkit key press as the plain string :func:`client.screens.press` expects."""
    from prompt_toolkit.keys import Keys

    key = event.key_sequence[0].key
    names = {Keys.Enter: "enter", Keys.ControlM: "enter", Keys.ControlJ: "enter", Keys.Escape: "escape",
             Keys.Backspace: "backspace", Keys.ControlH: "backspace", Keys.Up: "up", Keys.Down: "down",
             Keys.Left: "left", Keys.Right: "right", Keys.Tab: "tab", Keys.ControlC: "c-c"}
    if isinstance(key, Keys):
        return names.get(key, "")
    return event.data if len(event.data) == 1 else ""


class RaceApp:
    """The prompt_toolkit application around a :class:`ClientSession`."""

    def __init__(self, session: ClientSession, *, ascii_only: bool = False,
                 input: Input | None = None, output: Output | None = None) -> None:
        from prompt_toolkit.application import Application
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.keys import Keys
        from prompt_toolkit.layout import Layout, Window
        from prompt_toolkit.layout.controls import FormattedTextControl
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.styles import Style

        from .ui import UI

        self.session = session
        self.ascii_only = ascii_only
        self.ui: UI = UI()
        self.model: Screen = ()
        self.frames = 0  # how many times the model changed (and a redraw was asked for)
        self.quitting = False
        self.printouts: list[str] = []  # lines to print on the terminal after quitting
        self.records_dir = Path(".")  # where s on a results screen saves records (--records)
        self._mode = "lobby"
        self._notices = 0  # the state's notices_given when last drawn
        self._tasks: set[asyncio.Task[Any]] = set()
        kb = KeyBindings()

        @kb.add(Keys.Any)
        @kb.add(Keys.Enter)
        @kb.add(Keys.Escape)
        @kb.add(Keys.Backspace)
        @kb.add(Keys.Up)
        @kb.add(Keys.Down)
        @kb.add(Keys.Left)
        @kb.add(Keys.Right)
        @kb.add(Keys.Tab)
        @kb.add(Keys.ControlC)
        def _(event: KeyPressEvent) -> NotImplementedOrNone:
            name = key_name(event)
            if name:
                self.on_key(name)
            return NotImplemented  # on_key asks for a redraw only if the screen changed

        control = FormattedTextControl(self._fragments, focusable=True, show_cursor=False)
        depth = ColorDepth.DEPTH_1_BIT if os.environ.get("NO_COLOR") else None
        self.app: Application[int] = Application(
            layout=Layout(Window(control, wrap_lines=False)), key_bindings=kb, full_screen=True,
            style=Style.from_dict(STYLE), input=input, output=output, color_depth=depth,
            mouse_support=False,
        )
        self.app.ttimeoutlen = 0.05  # Esc answers at once
        self.app.timeoutlen = 0.05

    # -- drawing --------------------------------------------------------------------
    def _size(self) -> tuple[int, int | None]:
        """The terminal's columns and rows (80 and no limit when it cannot say)."""
        try:
            size = self.app.output.get_size()
            return max(size.columns, 40), max(size.rows, 10)
        except Exception:  # no terminal size (e.g. a dummy output)
            return 80, None

    def refresh(self) -> bool:
        """Recompute the screen model; ask for a redraw only if it changed."""
        from .screens import render
        from .state import mode
        from .ui import settle

        state = self.session.state
        if state.notices_given != self._notices:  # the answer came: the note that waited for it goes
            self._notices = state.notices_given
            if self.ui.note:
                self.ui = replace(self.ui, note="")
        current = mode(state)
        if current != self._mode:  # a new screen: drop selections, hints and notices of the old one
            self._mode = current
            self.ui = settle(self.ui, current)
            self.session.state.expire_notice()
            self._board_on_screen()
        width, height = self._size()
        model = render(self.session.state, self.ui, now_ms=_now_ms(), width=width, height=height,
                       ascii_only=self.ascii_only)
        if model == self.model:
            return False
        self.model = model
        self.frames += 1
        self.app.invalidate()
        return True

    def _fragments(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for i, line in enumerate(self.model):
            if i:
                out.append(("", "\n"))
            out.extend(line)
        return out

    # -- input ------------------------------------------------------------------------
    def on_key(self, key: str) -> None:
        from .screens import press
        from .state import mode
        from .ui import context_of

        state = self.session.state
        menu = self.ui.menu
        self.ui, commands = press(self.ui, key, mode=mode(state), view=state.view, ctx=context_of(state),
                                  state=state, size=self._size())
        if self.ui.menu != menu:  # another lobby screen: the last one's notice stays with it
            state.tell("")
        self._board_on_screen()
        if commands:
            self._spawn(self.do_all(commands))
        self.refresh()

    def _board_on_screen(self) -> None:
        """A board that left the screen is no longer re-asked for when it changes."""
        if self.ui.menu != "board" or self._mode != "lobby":
            self.session.unwatch_board()

    async def do_all(self, commands: list[Command]) -> None:
        for command in commands:  # in order: ``leave`` then ``board`` after a daily
            await self.do(command)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def do(self, command: Command) -> None:
        s = self.session
        name, arg = command.name, command.arg
        if name == "quit":
            self.quitting = True
            if self.app.is_running:
                self.app.exit(result=0)
            return
        if name == "share":
            self.share(arg)
        else:
            from .commands import Doer, run

            await run(Doer(s, self.records_dir), command)
        self.refresh()

    def share(self, text: str) -> None:
        """Copy a line to the clipboard (OSC 52) and keep it to print after quitting."""
        from .text import clean

        line = clean(text, 200)
        if line not in self.printouts:
            self.printouts.append(line)
        payload = base64.b64encode(line.encode()).decode()
        with contextlib.suppress(Exception):  # a terminal that cannot take it just ignores it
            self.app.output.write_raw(f"\x1b]52;c;{payload}\x07")
            self.app.output.flush()

    # -- running ------------------------------------------------------------------------
    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self.refresh()

    async def run(self) -> int:
        self.session.on_change = self.refresh
        self.refresh()
        ticker = asyncio.get_running_loop().create_task(self._ticker())
        try:
            result = await self.app.run_async()
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            self.session.on_change = None
        return result or 0


def _preload_ui() -> None:
    """Import what the first frame needs (start-up time: this overlaps the connection)."""
    import importlib

    for module in ("prompt_toolkit.application", "prompt_toolkit.key_binding", "prompt_toolkit.layout",
                   "prompt_toolkit.layout.controls", "prompt_toolkit.output", "prompt_toolkit.styles",
                   "client.screens"):
        importlib.import_module(module)


async def run(args: argparse.Namespace) -> int:
    from .config import CommitmentBook, KeyStore, ServerBook, TokenStore, install_id
    from .connection import ClientSession, ServerUnreachable

    session = ClientSession(args.server, args.name, tokens=TokenStore(args.config_dir),
                            keys=KeyStore(args.config_dir), commitments=CommitmentBook(args.config_dir),
                            servers=ServerBook(args.config_dir),
                            key=args.key, device=install_id(args.config_dir),
                            redeem=("link", args.link) if args.link else
                            ("recover", args.recover) if args.recover else None)
    session.accept_bots = args.accept_bots
    try:
        # the terminal library loads in a thread while the handshake waits on the network
        await asyncio.gather(session.connect(), asyncio.to_thread(_preload_ui))
    except ServerUnreachable as exc:
        print(f"patience: {exc}", file=sys.stderr)
        return 1
    app = RaceApp(session, ascii_only=args.ascii)
    app.records_dir = Path(args.records)
    try:
        return await app.run()
    finally:
        await session.close()
        for line in app.printouts:
            print(line)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
