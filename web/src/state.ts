// What the page knows: the server's messages folded into one state (no I/O), as
// the terminal client's client/state.py folds them. The server is the only
// source of truth: this only remembers what it was told.
import { noticeLine, waitingOf, withChallenge } from "./friends";
import { type Msg, int, list, obj, str } from "./wire";

export type Dict = Record<string, unknown>;
export type Variant = { id: string; name: string; family: string; blurb: string };

// errors the player need not see: the server follows them with what fixes them
const QUIET = new Set(["stale_version", "stale_seq", "bad_token"]);

export class State {
  variants: Variant[] = [];
  identified: string | null = null;
  clockOffset = 0; // server clock minus this page's clock
  code: string | null = null;
  leftCode: string | null = null; // the room last left: its late messages must not bring it back
  me: number | null = null;
  room: Dict | null = null;
  view: Dict | null = null;
  v = 0;
  progress = new Map<number, Dict>();
  results: Dict | null = null;
  records = new Map<number, string[]>();
  rematchOffer: Dict | null = null;
  watching: string | null = null;
  ghost: Dict | null = null;
  replaying: Dict | null = null;
  dailyInfo = new Map<string, Dict>();
  board: Dict | null = null;
  queued: Dict | null = null; // waiting to be paired for a quick race (with since: this page's clock)
  profile: Dict | null = null;
  games: Dict | null = null; // the last page of a name's kept games (history.ts)
  kept: Dict | null = null; // a kept game's replay on screen (a replay answer with its name)
  arenas: Dict[] = [];
  arena: Dict | null = null;
  arenaRejoin = "";
  hint: Dict | null = null;
  analysis: Dict | null = null; // the last `analysis` answer (web/src/analysis.ts)
  notice = "";
  noticeError = false;
  claimedKey: { name: string; key: string } | null = null;
  recoveryCodes: string[] = []; // shown once, until the player has written them down
  devices: Dict[] = []; // the claimed name's device keys, as last listed
  linkCode: Dict | null = null; // the last link code made here
  friends: Dict | null = null; // the last friends list (friends.ts)
  challenges: Dict[] = []; // challenges waiting for this name's answer
  events: string[] = []; // lines for the live region, taken by the page

  serverNow(): number {
    return Date.now() + this.clockOffset;
  }

  tell(text: string, error = false): void {
    this.notice = text;
    this.noticeError = error;
  }

  leaveRoom(): void {
    if (this.code !== null) this.leftCode = this.code;
    this.code = null;
    this.me = null;
    this.room = null;
    this.watching = null;
    this.resetRace();
  }

  resetRace(): void {
    this.view = null;
    this.v = 0;
    this.progress = new Map();
    this.results = null;
    this.records = new Map();
    this.rematchOffer = null;
    this.ghost = null;
    this.replaying = null;
    this.hint = null;
    this.analysis = null;
  }

  variantName(id: unknown): string {
    const found = this.variants.find((v) => v.id === id);
    return found ? found.name : String(id ?? "");
  }

  playerName(n: number): string {
    for (const p of players(this)) if (p.player === n) return String(p.name);
    return `player ${n}`;
  }

  apply(msg: Msg): void {
    const time = int(msg.server_time);
    if (time !== null && (msg.t === "welcome" || msg.t === "room" || msg.t === "pong")) {
      this.clockOffset = time - Date.now();
    }
    const reducer = REDUCERS[msg.t];
    if (reducer) reducer(this, msg);
  }
}

type Reducer = (s: State, m: Msg) => void;

const REDUCERS: Record<string, Reducer> = {
  welcome(s, m) {
    s.variants = list(m.variants).map(obj).filter((v): v is Dict => v !== null)
      .map((v) => ({ id: String(v.id ?? ""), name: String(v.name ?? v.id ?? ""),
        family: String(v.family ?? ""), blurb: String(v.blurb ?? "") }))
      .filter((v) => v.id);
    s.identified = str(m.identified);
    if (s.arena && s.arena.member === true && s.arena.phase !== "finished") {
      s.arenaRejoin = String(s.arena.id ?? ""); // membership is the connection's
    }
    if (s.arena) s.arena = { ...s.arena, member: false };
    if (s.queued) { // the queue is the connection's: a new one is not put back in it
      s.queued = null;
      s.tell("the connection dropped: you left the quick-race queue (ask for a quick race again)");
    }
  },
  joined(s, m) {
    const code = str(m.code);
    if (code !== null) {
      if (code !== s.code) {
        s.resetRace();
        s.room = null;
        if (s.noticeError) s.tell("");
      }
      s.code = code;
      s.watching = null;
    }
    s.me = int(m.player);
    s.queued = null; // the pairing's room (or the bot's): the wait is over
  },
  room(s, m) {
    const code = str(m.code);
    if (code !== null && s.code !== null && s.code !== code) return; // a room we left for another
    // ... or for the lobby: the room's last update (a seat going offline as the race
    // ends) can come after the leave, and must not put the page back in that room
    if (s.code === null && code !== null && code === s.leftCode) return;
    const before = s.room;
    s.room = { ...m };
    if (s.code === null && code !== null) s.code = code;
    const phase = str(m.phase);
    if (before && before.phase !== phase && phase === "countdown") s.events.push("the race starts soon");
  },
  view(s, m) {
    const view = obj(m.view);
    if (view) {
      const was = s.view;
      s.view = view;
      s.v = int(m.v) ?? 0;
      s.hint = null;
      if (m.seq !== null && m.seq !== undefined && s.noticeError) s.tell("");
      if (was === null) s.events.push("the race has started: your cards are dealt");
      if (view.status !== "in_progress" && (was === null || was.status !== view.status)) {
        s.events.push(`your game: ${String(view.status)}`);
      }
    }
  },
  progress(s, m) {
    const n = int(m.player);
    if (n === null) return;
    const known = s.progress.get(n);
    if ((int(m.moves) ?? 0) < (int(known?.moves) ?? 0)) return; // out of order: never go back
    s.progress.set(n, { ...m });
    const name = s.playerName(n);
    if (m.status !== "in_progress" && known?.status !== m.status) {
      s.events.push(`${name}: ${String(m.status)}`);
    } else if (known === undefined || known.foundation_cards !== m.foundation_cards) {
      s.events.push(`${name}: ${String(m.foundation_cards)} of ${String(m.total_cards)} cards home`);
    }
  },
  results(s, m) {
    s.results = { ...m };
    if (s.noticeError) s.tell("");
    const first = obj(list(m.ranking)[0]);
    s.events.push(first ? `results: ${String(first.name)} is first` : "results are in");
  },
  record(s, m) {
    const record = obj(m.record);
    const n = int(m.player);
    if (record && n !== null) s.records.set(n, list(record.moves).map(String));
  },
  watching(s, m) {
    const code = str(m.code);
    if (code) {
      s.leaveRoom();
      s.code = code;
      s.watching = code;
    }
  },
  ghost(s, m) {
    if (m.code === s.code) s.ghost = { ...m };
  },
  replay(s, m) {
    if (str(m.name) && obj(m.view)) s.kept = { ...m }; // a kept game's (game_replay)
    else if (m.code === s.code && obj(m.view)) s.replaying = { ...m, with: s.replaying?.with ?? null };
  },
  rematch_offer(s, m) {
    if (m.code === s.code) s.rematchOffer = { ...m };
  },
  rematch(s, m) {
    if (str(m.code)) {
      s.tell(`rematch in room ${String(m.code)}`);
      s.events.push("everyone accepted: the rematch is on");
    }
  },
  claimed(s, m) {
    const name = str(m.name);
    const key = str(m.key);
    if (name && key) {
      s.claimedKey = { name, key };
      s.identified = name;
      s.recoveryCodes = list(m.recovery).filter((c): c is string => typeof c === "string").slice(0, 16);
      s.tell(`the name ${name} is yours on this server: its key is kept in this browser`);
    }
  },
  linked(s, m) {
    const name = str(m.name);
    const key = str(m.key);
    if (name && key) {
      s.claimedKey = { name, key };
      s.identified = name;
      s.devices = [];
      s.linkCode = null;
      s.tell(m.how === "recovery" ? `this browser plays as ${name} again; every other device's key is revoked`
        : `this browser plays as ${name} now, with a key of its own`);
    }
  },
  rotated(s, m) {
    const name = str(m.name);
    const key = str(m.key);
    if (name && key) {
      s.claimedKey = { name, key };
      s.tell("this browser has a new key: the old one proves nothing now");
    }
  },
  recovery_codes(s, m) {
    s.recoveryCodes = list(m.codes).filter((c): c is string => typeof c === "string").slice(0, 16);
  },
  link_code(s, m) {
    if (str(m.code)) s.linkCode = { ...m };
  },
  devices(s, m) {
    s.devices = list(m.devices).map(obj).filter((x): x is Dict => x !== null).slice(0, 16);
  },
  daily_info(s, m) {
    const variant = str(m.variant);
    if (variant) s.dailyInfo.set(variant, { ...m });
  },
  board(s, m) {
    s.board = { ...m };
  },
  queued(s, m) {
    s.queued = { ...m, since: Date.now() };
    s.tell("");
    s.events.push("waiting for players near your rating");
  },
  unqueued(s) {
    if (s.queued) s.events.push("you left the quick-race queue");
    s.queued = null;
    s.tell("you left the quick-race queue");
  },
  profile(s, m) {
    s.profile = { ...m };
  },
  games(s, m) {
    s.games = { ...m };
  },
  arenas(s, m) {
    s.arenas = list(m.arenas).map(obj).filter((a): a is Dict => a !== null);
  },
  arena(s, m) {
    s.arena = { ...m };
  },
  hint(s, m) {
    s.hint = { ...m };
    const move = str(m.move);
    if (int(m.v) !== s.v) s.tell("that hint was for an earlier position: ask again");
    else if (move && str(m.why)) s.tell(`hint: ${move}: ${str(m.why)}`);
    else if (move) s.tell(`hint: ${move} (the game can still be won after it)`);
    else if (m.result === "lost") s.tell("no line wins from here: undo a move");
    else s.tell("no hint: the solver found no sure line in the time it has");
  },
  reported(s, m) {
    s.tell(`Your report of ${String(m.name ?? "")} is with the moderators.`);
  },
  friends(s, m) {
    s.friends = { ...m };
    s.challenges = waitingOf(m);
  },
  challenge_sent(s, m) {
    s.tell(`challenge sent to ${String(m.name ?? "").slice(0, 24)}: it waits two minutes for the answer`);
  },
  notice(s, m) {
    if (m.kind === "challenge") s.challenges = withChallenge(s.challenges, m);
    const line = noticeLine(m, (id) => s.variantName(id));
    if (line) {
      s.tell(line);
      s.events.push(line);
    }
  },
  error(s, m) {
    const code = String(m.code ?? "");
    if (!QUIET.has(code)) {
      s.tell(String(m.message ?? code), true);
      s.events.push(String(m.message ?? code));
    }
  },
  analysis(s, m) {
    s.analysis = { ...m };
  },
};

export type Mode = "lobby" | "room" | "countdown" | "race" | "results";

export function mode(s: State): Mode {
  if (s.code === null) return "lobby";
  if (s.results !== null) return "results";
  if (s.view !== null) return "race";
  const room = s.room ?? {};
  if (room.phase === "countdown" || int(room.starts_at) !== null) return "countdown";
  return "room";
}

export type Seat = { player: number; name: string; ready: boolean; connected: boolean; bot: number;
  claimed: boolean; ghost: boolean; botAccount: boolean };

export function players(s: State): Seat[] {
  const out: Seat[] = [];
  list(s.room?.players).forEach((entry, i) => {
    const p = obj(entry);
    if (!p || p.left === true) return;
    out.push({ player: int(p.player) ?? i + 1, name: String(p.name ?? `player ${i + 1}`),
      ready: p.ready === true, connected: p.connected !== false, bot: int(p.bot) ?? 0,
      claimed: p.claimed === true, ghost: false, botAccount: p.bot_account === true });
  });
  const ghost = s.ghost;
  if (ghost && int(ghost.player) !== null && out.length) {
    out.push({ player: int(ghost.player) ?? 0, name: `ghost: ${String(ghost.name ?? "?")}`,
      ready: true, connected: true, bot: 0, claimed: false, ghost: true, botAccount: false });
  }
  return out;
}
