import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ChatEventSchema, ChatFinalSchema } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { EventStreamItemSchema } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { sseFrame } from "./server-stream.js";

describe("sseFrame", () => {
  it("names a oneof message's event by the case that is set and sends that case's JSON", () => {
    const token = create(ChatEventSchema, { kind: { case: "token", value: { text: "Hi" } } });
    expect(sseFrame(ChatEventSchema, token)).toBe('event: token\ndata: {"text":"Hi"}\n\n');
    const call = create(ChatEventSchema, {
      kind: { case: "toolCall", value: { callId: "c1", tool: "bots.list", arguments: {} } },
    });
    expect(sseFrame(ChatEventSchema, call)).toMatch(/^event: tool_call\ndata: \{"call_id":"c1"/);
  });

  it("sends any other message whole as a message event, one line of JSON", () => {
    const final = create(ChatFinalSchema, { text: "two\nlines", tokensUsed: 3n });
    const frame = sseFrame(ChatFinalSchema, final);
    expect(frame.startsWith("event: message\ndata: ")).toBe(true);
    expect(frame.split("\n")).toHaveLength(4);
    expect(JSON.parse(frame.split("\n")[1]!.slice(6))).toMatchObject({
      text: "two\nlines",
      tokens_used: "3",
    });
  });

  it("gives an event carrying a stream_id that id, so a reconnecting client resumes after it", () => {
    const item = create(EventStreamItemSchema, {
      kind: { case: "notification", value: { streamId: "42", type: "killswitch.engaged" } },
    });
    expect(sseFrame(EventStreamItemSchema, item)).toMatch(
      /^id: 42\nevent: notification\ndata: \{"stream_id":"42"/,
    );
  });
});
