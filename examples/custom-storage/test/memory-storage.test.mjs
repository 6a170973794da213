// The core's storage contract, as every storage runs it (the built-in file storage does too).
import { storageContract } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../memory-storage.mjs";

storageContract({ name: "MemoryStorage", make: () => new MemoryStorage() });

describe("MemoryStorage budget", () => {
  it("refuses a put beyond maxBytes and keeps what it had; replacing an object counts only the difference", async () => {
    const storage = new MemoryStorage({ maxBytes: 10 });
    await storage.put("a.txt", Buffer.from("12345678"), { contentType: "text/plain" });
    await expect(storage.put("b.txt", Buffer.from("123"), { contentType: "text/plain" })).rejects.toThrow(/full/);
    await storage.put("a.txt", Buffer.from("1234567890"), { contentType: "text/plain" });
    expect(storage.usedBytes).toBe(10);
    await storage.delete("a.txt");
    expect(storage.usedBytes).toBe(0);
  });
});
