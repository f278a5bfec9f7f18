import { describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { ApiError, badRequest } from "../../apimachinery/errors.js";
import { toApiError } from "../../handlers/errors.js";
import { jsonCodec, yamlCodec } from "../../encoding/codec.js";
import { CodecSet } from "../../encoding/negotiate.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { recoveryFilter } from "./recovery.js";

const codecs = new CodecSet([jsonCodec, yamlCodec]);

function setup(headers: Record<string, string> = {}) {
  const log = vi.fn();
  const filter = recoveryFilter({ toApiError, codecs, log });
  return { log, filter, ...recordingContext({ headers }) };
}

describe("recovery filter", () => {
  it("stays out of the way when nothing is thrown", async () => {
    const { filter, ctx, rec, log } = setup();
    await filter(ctx, async () => {
      ctx.ex.head(200, {});
      ctx.ex.end("ok");
    });
    expect(rec.status).toBe(200);
    expect(rec.body()).toBe("ok");
    expect(log).not.toHaveBeenCalled();
  });

  it("writes a thrown ApiError as its Status", async () => {
    const { filter, ctx, rec, log } = setup();
    await filter(ctx, async () => {
      throw badRequest("no good");
    });
    expect(rec.status).toBe(400);
    expect(rec.json()).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "no good", reason: "BadRequest", code: 400 });
    expect(log).not.toHaveBeenCalled();
  });

  it("writes the Status in the negotiated encoding", async () => {
    const { filter, ctx, rec } = setup({ accept: "application/yaml" });
    await filter(ctx, async () => {
      throw badRequest("no good");
    });
    expect(rec.headers["content-type"]).toBe("application/yaml");
    expect(parse(rec.body())).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
  });

  it("turns anything else into 500 InternalError and reports it, without rejecting", async () => {
    const { filter, ctx, rec, log } = setup();
    await expect(
      filter(ctx, async () => {
        throw new TypeError("boom");
      }),
    ).resolves.toBeUndefined();
    expect(rec.status).toBe(500);
    expect(rec.json()).toMatchObject({ reason: "InternalError", message: "Internal error occurred: boom", code: 500 });
    expect(log).toHaveBeenCalledOnce();
  });

  it("converts with the injected toApiError: the one conversion point", async () => {
    class Conflicting extends Error {}
    const filter = recoveryFilter({
      codecs,
      log: () => undefined,
      toApiError: (e) => (e instanceof Conflicting ? new ApiError(409, "Conflict", "from the domain") : toApiError(e)),
    });
    const { ctx, rec } = recordingContext();
    await filter(ctx, async () => {
      throw new Conflicting();
    });
    expect(rec.status).toBe(409);
    expect(rec.json().message).toBe("from the domain");
  });

  it("sends the warnings collected so far with the error", async () => {
    const { filter, ctx, rec } = setup();
    await filter(ctx, async () => {
      ctx.warnings.push("unknown field");
      throw badRequest("no good");
    });
    expect(rec.headers["warning"]).toEqual(['299 - "unknown field"']);
  });

  it("ends a response already under way instead of writing a second head", async () => {
    const { filter, ctx, rec } = setup();
    await filter(ctx, async () => {
      ctx.ex.head(200, { "content-type": "application/json" });
      ctx.ex.write("{");
      throw new Error("stream broke");
    });
    expect(rec.status).toBe(200);
    expect(rec.ended).toBe(true);
    expect(rec.body()).toBe("{");
  });

  it("writes to the exchange it was given even when a later stage swapped ctx.ex", async () => {
    const { filter, ctx, rec } = setup();
    await filter(ctx, async () => {
      ctx.ex = { ...ctx.ex, head: () => undefined } as never;
      throw badRequest("x");
    });
    expect(rec.status).toBe(400);
  });
});
