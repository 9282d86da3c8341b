// The page's core: the state, the connection, what the player has picked, and
// drawing the screen again after every message (focus kept on the control that
// had it). The screens are lobby.ts and play.ts; the keys are keys.ts.
import { chooseMove, drawAction, legalMoves, targets } from "./board";
import { type Conn, keepKey } from "./conn";
import { clock } from "./dom";
import { type BoardAsk, askBoard } from "./ladder";
import { State, mode } from "./state";
import { type Msg, int, obj } from "./wire";

export type Screen = "menu" | "pick" | "join" | "watch" | "ghost" | "claim" | "solo" | "boards"
  | "board" | "arenas" | "name" | "profile" | "profile-name" | "devices" | "friends";
export type Purpose = "quick" | "create" | "browse" | "daily" | "solo" | "board-daily" | "board-rating"
  | "board-wins";

export type UI = {
  screen: Screen;
  purpose: Purpose;
  variant: string; // the variant picked for a solo game (then the deal number)
  pending: string | null; // the pile picked as a move's source
  rules: string | null; // the variant whose rules card is open
  replay: boolean; // the replay screen is open over the results
  confirm: boolean; // resigning asks first (X, then y; or the two buttons)
  board: BoardAsk | null; // the board on screen (or last on screen: a profile goes back to it)
  profileOf: string; // the name whose profile is asked for
  note: string;
};

export class App {
  readonly state = new State();
  ui: UI = { screen: "menu", purpose: "quick", variant: "", pending: null, rules: null, replay: false, confirm: false,
    board: null, profileOf: "", note: "" };
  conn!: Conn;
  joinCode: string | null; // from a /r/CODE link: joined once the server greets us
  rulesText: Record<string, string> | null = null;
  draw: () => void = () => {};
  private lastMode = "";

  constructor(joinCode: string | null) {
    this.joinCode = joinCode;
  }

  received(msg: Msg): void {
    this.state.apply(msg);
    if (msg.t === "welcome") {
      if (this.joinCode && msg.resumed !== true) {
        this.send({ t: "join", code: this.joinCode });
      }
      this.joinCode = null;
      if (this.state.arenaRejoin) {
        this.send({ t: "arena_join", id: this.state.arenaRejoin });
        this.state.arenaRejoin = "";
      }
    } else if ((msg.t === "claimed" || msg.t === "linked" || msg.t === "rotated") && this.state.claimedKey) {
      // the name's key for this browser: kept, and the name played under from now on
      keepKey(this.state.claimedKey.name, this.state.claimedKey.key);
      this.conn.adopt(this.state.claimedKey.name);
      if (msg.t === "claimed") this.ui = { ...this.ui, screen: "devices" }; // its recovery codes, once
      if (msg.t !== "rotated") this.send({ t: "devices" }); // the devices screen lists them at once
    } else if (msg.t === "board_changed" && this.ui.screen === "board" && this.ui.board) {
      askBoard(this, this.ui.board);
    } else if (msg.t === "rematch") {
      this.ui.pending = null;
    } else if (msg.t === "error" && msg.code === "no_room" && this.state.code === null) {
      history.replaceState(null, "", "/");
    }
    const now = mode(this.state);
    if (now !== this.lastMode) {
      this.lastMode = now;
      this.ui.pending = null;
      this.ui.confirm = false;
      if (now !== "lobby") this.ui.note = "";
      if (!this.state.noticeError || now === "lobby") this.state.tell(""); // notices belong to their screen
      if (now === "lobby" && !this.state.watching) this.setPath("/");
    }
    if (this.state.code && !this.state.watching && now !== "lobby") this.setPath(`/r/${this.state.code}`);
    this.draw();
  }

  private setPath(path: string): void {
    if (location.pathname !== path) history.replaceState(null, "", path);
  }

  send(msg: Msg): boolean {
    const sent = this.conn.send(msg);
    if (!sent) this.state.tell("offline: that was not sent (the page reconnects by itself)", true);
    return sent;
  }

  // -- moves -------------------------------------------------------------------------------
  move(text: string): void {
    this.ui.pending = null;
    this.send({ t: "move", move: text, v: this.state.v });
    this.draw();
  }

  /** A pile picked by click, key or drop: the source, or the target of the picked source. */
  pick(pile: string): void {
    const view = this.state.view;
    if (view === null) return;
    if (pile === "s" && this.ui.pending === null) {
      if (legalMoves(view).some((m) => m.startsWith("s-"))) this.ui.pending = "s";
      else this.draw_();
      this.draw();
      return;
    }
    const pending = this.ui.pending;
    if (pending === null) {
      this.ui.pending = pile;
      this.state.tell(legalMoves(view).some((m) => m.startsWith(`${pile}-`)) ? "" : `no legal move from ${pile}`);
    } else if (pending === pile) {
      this.ui.pending = null;
    } else {
      this.move(chooseMove(pending, pile, legalMoves(view)));
      return;
    }
    this.draw();
  }

  /** f: the one foundation the picked card may go to. */
  foundation(): void {
    const view = this.state.view;
    if (!view) return;
    if (this.ui.pending !== null) {
      const options = [...targets(view, this.ui.pending)].filter((t) => t.startsWith("f")).sort();
      if (options.length >= 1) {
        this.move(chooseMove(this.ui.pending, options[0]!, legalMoves(view)));
        return;
      }
      this.state.tell(`no foundation takes the card of ${this.ui.pending}`);
    } else {
      const from = legalMoves(view).find((m) => m.startsWith("f"));
      if (from) this.ui.pending = from.split("-")[0]!;
      else this.state.tell("pick a pile first, then f sends its card to the foundation");
    }
    this.draw();
  }

  draw_(): void {
    const view = this.state.view;
    if (!view) return;
    const legal = legalMoves(view);
    if (legal.includes("redeal") && !legal.includes("draw") && !legal.includes("deal")) {
      const left = int(view.passes_left);
      this.state.tell(`the stock is empty: redeal (R) turns the waste over${left ? ` (${left} left)` : ""}`);
      this.draw();
      return;
    }
    this.move(drawAction(view));
  }

  resign(): void {
    this.ui.confirm = false;
    this.send({ t: "resign" });
    this.draw();
  }

  // -- requests ----------------------------------------------------------------------------
  /** Leave the quick-race queue: the server answers `unqueued` (or the room, if the pairing came first). */
  unqueue(): void {
    this.send({ t: "leave" });
  }

  leave(): void {
    this.send({ t: "leave" });
    this.state.leaveRoom();
    this.ui = { ...this.ui, screen: "menu", pending: null, replay: false, note: "" };
    this.received({ t: "_left" });
  }

  async openRules(variant: string): Promise<void> {
    this.ui.rules = variant;
    if (this.rulesText === null) {
      try {
        const answer = await fetch("/assets/rules.json");
        this.rulesText = (await answer.json()) as Record<string, string>;
      } catch {
        this.rulesText = {};
      }
    }
    this.draw();
  }

  // -- the clock line, drawn every quarter second without drawing the screen again --------
  clockText(): string {
    const s = this.state;
    const room = s.room ?? {};
    const now = s.serverNow();
    const starts = int(room.starts_at);
    const ends = int(room.ends_at);
    const m = mode(s);
    const queued = s.queued;
    if (m === "lobby" && queued) return `waiting ${Math.floor((Date.now() - (int(queued.since) ?? Date.now())) / 1000)} s`;
    // the race's first view comes at its start: from then on the race clock, whatever this clock says
    if (m === "countdown" && starts !== null && now < starts) {
      return `starts in ${Math.ceil((starts - now) / 1000)} s` + (ends !== null ? ` · race ${clock(ends - starts)}` : "");
    }
    if (m === "race" && ends !== null && starts !== null) {
      return `${clock(ends - now)} left · ${clock(Math.max(0, now - starts))} gone`;
    }
    return "";
  }

  raceStart(): number | null {
    return int(obj(this.state.room)?.starts_at);
  }
}
