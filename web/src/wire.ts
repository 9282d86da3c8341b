// The wire: one binary websocket frame per message, a msgpack map with a string
// `t` (docs/reference/protocol.md). The page holds no rules: it sends what the
// player asks and draws what the server answers.
import { decode, encode } from "@msgpack/msgpack";

export type Msg = { t: string; [field: string]: unknown };

export function pack(msg: Msg): Uint8Array<ArrayBuffer> {
  return encode(msg) as Uint8Array<ArrayBuffer>;
}

/** One server frame as a message, or null for anything else. */
export function unpack(data: unknown): Msg | null {
  if (!(data instanceof ArrayBuffer)) return null;
  try {
    const value = decode(new Uint8Array(data));
    if (value !== null && typeof value === "object" && !Array.isArray(value)
        && typeof (value as { t?: unknown }).t === "string") {
      return value as Msg;
    }
  } catch {
    // not msgpack: ignored like an unknown message
  }
  return null;
}

export function int(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) ? value : null;
}

export function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export function obj(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>) : null;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function strings(value: unknown): string[] {
  return list(value).filter((x): x is string => typeof x === "string");
}
