import { describe, expect, it } from "vitest";
import { ConnectError } from "@connectrpc/connect";
import { errorDetailOf } from "../errors/index.js";
import { decodePageToken, encodePageToken, type PagedList } from "./page-token.js";
import { pageSize } from "./page-size.js";
import { pageOf } from "./page.js";

const bots = (filters: PagedList["filters"] = {}): PagedList => ({
  list: "bots",
  filters,
  keys: ["timestamp", "uuid"],
});
const KEYS = ["2026-11-25T06:41:20.123456Z", "6f1c2a4e-0b1d-4c7e-9a55-1d2e3f4a5b6c"];

function refusal(fn: () => unknown): { code: string; field: unknown; message: string } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof ConnectError)) throw err;
    const d = errorDetailOf(err);
    return { code: d.code, field: d.details.field, message: err.rawMessage };
  }
  throw new Error("not refused");
}

describe("page tokens", () => {
  it("round-trip the last row's keys, microseconds intact, as URL-safe text", () => {
    const token = encodePageToken(bots({ status: "draft" }), KEYS);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(bots({ status: "draft" }), token)).toEqual(KEYS);
  });

  it("no token is the first page", () => {
    expect(decodePageToken(bots(), "")).toBeUndefined();
  });

  it("filters compare by value, in any order; unset filters equal absent ones", () => {
    const token = encodePageToken(bots({ a: "1", b: 2, c: undefined }), KEYS);
    expect(decodePageToken(bots({ b: 2, a: "1", c: "" }), token)).toEqual(KEYS);
  });

  it("refuse malformed, foreign, other-filter and tampered tokens as 400 naming page_token", () => {
    const token = encodePageToken(bots({ status: "draft" }), KEYS);
    const cases = [
      () => decodePageToken(bots({ status: "draft" }), "not a token!"),
      () => decodePageToken(bots({ status: "draft" }), token.slice(0, -3)),
      () => decodePageToken(bots({ status: "draft" }), Buffer.from("[1,2]").toString("base64url")),
      () => decodePageToken({ ...bots({ status: "draft" }), list: "bot_versions" }, token),
      () => decodePageToken(bots({ status: "active" }), token),
      () => decodePageToken(bots(), token),
      () =>
        decodePageToken(
          bots({ status: "draft" }),
          encodePageToken(bots({ status: "draft" }), ["2026-11-25 06:41:20", KEYS[1]!]),
        ),
      () =>
        decodePageToken(
          bots({ status: "draft" }),
          encodePageToken(bots({ status: "draft" }), ["2026-13-45T00:00:00.000000Z", KEYS[1]!]),
        ),
      () =>
        decodePageToken(
          bots({ status: "draft" }),
          encodePageToken(bots({ status: "draft" }), [KEYS[0]!, "'; drop table bots; --"]),
        ),
    ];
    for (const c of cases)
      expect(refusal(c)).toMatchObject({ code: "invalid_parameter", field: "page_token" });
    expect(refusal(cases[3]!).message).toMatch(/another list \(bots\)/);
    expect(refusal(cases[4]!).message).toMatch(/other filters/);
  });
});

describe("page size", () => {
  it("0 means 100, 1 to 1000 as asked, anything else a 400 naming limit", () => {
    expect(pageSize(0)).toBe(100);
    expect(pageSize(1)).toBe(1);
    expect(pageSize(1000)).toBe(1000);
    expect(refusal(() => pageSize(1001))).toMatchObject({
      code: "invalid_parameter",
      field: "limit",
    });
    expect(refusal(() => pageSize(-1))).toMatchObject({
      code: "invalid_parameter",
      field: "limit",
    });
  });
});

describe("pageOf", () => {
  it("keeps size rows and a token only when the query found one more", () => {
    const list = bots();
    const rows = [1, 2, 3].map((n) => ({ n }));
    const key = (r: { n: number }) => [KEYS[0]!, `00000000-0000-4000-8000-00000000000${r.n}`];
    expect(pageOf(rows, 3, list, key)).toEqual({ items: rows, nextPageToken: "" });
    const cut = pageOf(rows, 2, list, key);
    expect(cut.items).toEqual(rows.slice(0, 2));
    expect(decodePageToken(list, cut.nextPageToken)).toEqual(key(rows[1]!));
  });
});
