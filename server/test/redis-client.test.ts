import { describe, expect, it } from "vitest";
import { connectRedis, redactRedisUrl } from "../dist/state/redis-client.js";
import { refusal } from "./processes.js";

/**
 * Redis addresses in messages and logs: ioredis takes credentials in the userinfo and as query
 * parameters (`?password=`, `?username=`); neither may show.
 */

describe("redactRedisUrl", () => {
  it("hides the password of the userinfo", () => {
    const shown = redactRedisUrl("redis://:pw@h:6379");
    expect(shown).not.toContain("pw");
    expect(shown).toContain("h:6379");
  });

  it("hides password and username given as query parameters", () => {
    const shown = redactRedisUrl("redis://h:6379/0?password=pw&username=u");
    expect(shown).not.toContain("pw");
    expect(shown).not.toContain("=u");
    expect(shown).toContain("h:6379/0");
  });
});

describe("connectRedis", () => {
  it("an unreachable address with a password in the query: the message names the address without it", async () => {
    const error = await refusal(connectRedis("redis://127.0.0.1:1/0?password=hunter2", "t"));
    expect(error.message).toContain("Redis at redis://127.0.0.1:1/0");
    expect(error.message).toContain("is unreachable");
    expect(error.message).not.toContain("hunter2");
  });
});
