/**
 * The wire between the host and a strategy's sandboxed process, over the child's stdin/stdout.
 * A frame is a 4-byte little-endian payload length, a 1-byte kind, then the payload. Bars travel
 * as raw Float64 columns (a block per round trip, so the boundary is crossed once per block, not
 * once per bar); everything else is JSON. Shared by the host and the child's bootstrap.
 */

export const FRAME_HEADER_BYTES = 5;

export const enum Kind {
  /** host -> child, JSON InitRequest: load the runtime and the strategy, resolve params, run init. */
  Init = 1,
  /** host -> child: u32 JSON length, JSON BlockMeta, zero padding to 8 bytes, Float64 columns. */
  Block = 2,
  /** host -> child, JSON BlockMeta: go on over the rows of the last block the child holds. */
  Continue = 3,
  /** host -> child, empty: answer the runtime's snapshot. */
  Snapshot = 4,
  /** host -> child, empty: run onStop, answer, and exit. */
  Stop = 5,
  /** host -> child, JSON ResumeMeta: the portfolio a strategy waiting at a bar asked for. */
  Resume = 6,
  /** host -> child, JSON: a model's outputs ({ ok: { outputs } } or { fail }), the reply to ModelCall. */
  ModelResult = 7,
  /** child -> host, JSON: the strategy asks, mid-call, for a model's inference (ctx.model). */
  ModelCall = 0x82,
  /** child -> host, JSON: the runtime's answer ({ ok } or { fail }). */
  Answer = 0x81,
  /**
   * child -> host, JSON LogLine: a strategy's log line, sent as it is written, so a call a limit
   * kills keeps the lines it wrote before.
   */
  Log = 0x83,
}

/**
 * The columns of a block as sent: the time column (rows), then for each field in FIELDS each
 * symbol's column (rows each), in universe order. A symbol without a bar at a row has NaN there.
 */
export const FIELDS = ["open", "high", "low", "close", "volume"] as const;

export function columnsLength(rows: number, symbols: number): number {
  return rows * (1 + FIELDS.length * symbols);
}

export function frame(kind: Kind, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + payload.byteLength);
  new DataView(out.buffer).setUint32(0, payload.byteLength, true);
  out[4] = kind;
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

export function jsonFrame(kind: Kind, value: unknown): Uint8Array {
  return frame(kind, new TextEncoder().encode(JSON.stringify(value)));
}

/** A Block frame's payload: the JSON meta, padded so the columns start 8-byte aligned. */
export function blockPayload(meta: unknown, columns: Float64Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(meta));
  const head = 4 + json.byteLength;
  const offset = Math.ceil(head / 8) * 8;
  const out = new Uint8Array(offset + columns.byteLength);
  new DataView(out.buffer).setUint32(0, json.byteLength, true);
  out.set(json, 4);
  out.set(new Uint8Array(columns.buffer, columns.byteOffset, columns.byteLength), offset);
  return out;
}

/**
 * A whole Block frame in one buffer, the columns copied once from where they lie (each a
 * Float64Array in the order `columnsLength` counts): the same bytes as
 * `frame(Kind.Block, blockPayload(meta, concatenated columns))`, without the two copies between.
 */
export function blockFrame(meta: unknown, columns: readonly Float64Array[]): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(meta));
  const offset = Math.ceil((4 + json.byteLength) / 8) * 8;
  let bytes = 0;
  for (const c of columns) bytes += c.byteLength;
  const payload = offset + bytes;
  const out = new Uint8Array(FRAME_HEADER_BYTES + payload);
  const view = new DataView(out.buffer);
  view.setUint32(0, payload, true);
  out[4] = Kind.Block;
  view.setUint32(FRAME_HEADER_BYTES, json.byteLength, true);
  out.set(json, FRAME_HEADER_BYTES + 4);
  let at = FRAME_HEADER_BYTES + offset;
  for (const c of columns) {
    out.set(new Uint8Array(c.buffer, c.byteOffset, c.byteLength), at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Splits a Block payload into its meta and columns: a view of the payload's bytes when they are
 * 8-byte aligned (the columns then live as long as the payload's buffer is not reused).
 */
export function parseBlockPayload(payload: Uint8Array): { meta: string; columns: Float64Array } {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const jsonLength = view.getUint32(0, true);
  const meta = new TextDecoder().decode(payload.subarray(4, 4 + jsonLength));
  const offset = Math.ceil((4 + jsonLength) / 8) * 8;
  const bytes = payload.byteLength - offset;
  if ((payload.byteOffset + offset) % 8 === 0)
    return {
      meta,
      columns: new Float64Array(payload.buffer, payload.byteOffset + offset, bytes / 8),
    };
  // Copied into a fresh aligned buffer: the payload's own offset is not a multiple of 8.
  const columns = new Float64Array(bytes / 8);
  new Uint8Array(columns.buffer).set(payload.subarray(offset));
  return { meta, columns };
}
