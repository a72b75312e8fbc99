import { create } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, type ServiceImpl } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { BotSchema, BotsService, type GetBotRequest } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { lazyTransport } from "./lazy-transport.js";

describe("lazyTransport", () => {
  it("builds its transport on the first call, once, and answers as that transport does", async () => {
    let built = 0;
    const getBot = (req: GetBotRequest) => ({
      ...create(BotSchema, { id: `id-of-${req.botRef}` }),
    });
    const client = createClient(
      BotsService,
      lazyTransport(() => {
        built++;
        return createRouterTransport((router) => {
          router.service(BotsService, { getBot } as unknown as Partial<
            ServiceImpl<typeof BotsService>
          >);
        });
      }),
    );
    expect(built).toBe(0);
    const answers = await Promise.all(["a", "b"].map((botRef) => client.getBot({ botRef })));
    expect(answers.map((a) => a.id)).toEqual(["id-of-a", "id-of-b"]);
    await client.getBot({ botRef: "c" });
    expect(built).toBe(1);
  });
});
