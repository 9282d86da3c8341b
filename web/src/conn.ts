// The connection: hello (or resume with the room's token, kept in this tab's
// sessionStorage), reconnecting by itself with backoff, and the move in flight
// sent again after a resume with its own seq, so a move the server took is
// never applied twice and one it never saw is not lost.
import { type Msg, int, pack, str, unpack } from "./wire";

const PROTOCOL = 1;
const TOKEN = "patience.token";
const NAME = "patience.name";
const DEVICE = "patience.device";
// close codes after which reconnecting would be wrong (client/connection.py's list)
const FINAL: Record<number, string> = {
  1000: "this seat was taken over by a newer connection (another tab?): reload to take it back",
  1008: "the server closed the connection: too many messages",
  1009: "the server closed the connection: a message was too large",
};

export type ConnStatus = "connecting" | "online" | "offline" | "closed";

export function storage(kind: "local" | "session"): Storage | null {
  try {
    return kind === "local" ? window.localStorage : window.sessionStorage;
  } catch {
    return null; // storage disabled: the page still plays, it only forgets
  }
}

export function savedName(): string {
  return storage("local")?.getItem(NAME) ?? "";
}

export function keyFor(name: string): string | null {
  return storage("local")?.getItem(`patience.key.${name.toLowerCase()}`) ?? null;
}

export function keepKey(name: string, key: string): void {
  storage("local")?.setItem(`patience.key.${name.toLowerCase()}`, key);
}

function device(): string {
  const store = storage("local");
  let id = store?.getItem(DEVICE) ?? "";
  if (!id) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    store?.setItem(DEVICE, id);
  }
  return id;
}

export class Conn {
  status: ConnStatus = "connecting";
  reason = "";
  attempt = 0;
  name: string;
  private ws: WebSocket | null = null;
  private timer: number | null = null;
  private inflight: Msg | null = null; // the last move not yet answered
  seq = 0;
  // numbers follow the race clock after a reload, as the terminal client's do:
  // a new page does not know the last seq the server took (client/requests.py)
  seqFloor: () => number = () => 0;

  constructor(name: string, private readonly onMessage: (msg: Msg) => void,
              private readonly onStatus: () => void) {
    this.name = name;
  }

  get token(): string | null {
    return storage("session")?.getItem(TOKEN) ?? null;
  }

  set token(value: string | null) {
    const store = storage("session");
    if (value) store?.setItem(TOKEN, value);
    else store?.removeItem(TOKEN);
  }

  open(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/`);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this.status = this.attempt ? "offline" : "connecting";
    ws.onopen = () => ws.send(pack(this.hello()));
    ws.onmessage = (event) => {
      const msg = unpack(event.data);
      if (msg !== null) this.received(msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      const final = FINAL[event.code];
      if (final !== undefined) {
        this.status = "closed";
        this.reason = final;
      } else {
        this.status = "offline";
        this.attempt += 1;
        const wait = Math.min(8000, 250 * 2 ** Math.min(this.attempt, 6)) * (0.5 + Math.random() / 2);
        this.timer = window.setTimeout(() => this.open(), wait);
      }
      this.onStatus();
    };
    this.onStatus();
  }

  /** A new hello under another name: a new connection (hello is once per connection). */
  /** The server says this connection plays ``name`` now (claimed or linked): no new hello. */
  adopt(name: string): void {
    this.name = name;
    storage("local")?.setItem(NAME, name);
  }

  rename(name: string): void {
    this.name = name;
    storage("local")?.setItem(NAME, name);
    this.token = null;
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
    this.attempt = 0;
    this.open();
  }

  private hello(): Msg {
    const msg: Msg = { t: "hello", proto: PROTOCOL, device: device() };
    if (this.name) msg.name = this.name;
    const key = this.name ? keyFor(this.name) : null;
    if (key) msg.key = key;
    const token = this.token;
    if (token) msg.token = token;
    return msg;
  }

  private received(msg: Msg): void {
    if (msg.t === "welcome") {
      this.status = "online";
      this.attempt = 0;
      this.reason = "";
    } else if (msg.t === "joined") {
      const token = str(msg.token);
      if (token) this.token = token;
    } else if (msg.t === "error" && msg.code === "bad_token") {
      this.token = null; // the room is gone: start again without it
      const ws = this.ws;
      if (ws) {
        this.ws = null;
        ws.close(1000);
        this.open();
      }
    } else if (msg.t === "view" || (msg.t === "error" && int(msg.seq) !== null)) {
      const seq = int(msg.seq);
      if (seq !== null && this.inflight !== null && seq >= (int(this.inflight.seq) ?? 0)) {
        this.inflight = null;
      } else if (msg.t === "view" && seq === null && this.inflight !== null) {
        // the view of a resume: the move in flight goes again, with its own seq
        // (the server answers a seq it has taken with the same answer)
        this.sendNow(this.inflight);
      }
    }
    this.onMessage(msg);
    this.onStatus();
  }

  send(msg: Msg): boolean {
    if (msg.t === "move" || msg.t === "undo" || msg.t === "resign") {
      this.seq = Math.max(this.seq + 1, this.seqFloor());
      // seq right after t, as the terminal client writes it: the same bytes
      // reach the server from either client (docs/design/web-client.md)
      const { t, seq: _unsent, ...fields } = msg;
      const numbered: Msg = { t, seq: this.seq, ...fields };
      this.inflight = numbered;
      return this.sendNow(numbered);
    }
    return this.sendNow(msg);
  }

  private sendNow(msg: Msg): boolean {
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN || this.status !== "online") return false;
    ws.send(pack(msg));
    return true;
  }

}
