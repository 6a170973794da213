import { queueContract } from "@renderkit/core/testing";
import { afterAll, beforeAll } from "vitest";
import { startRedis, type TestRedis } from "../../../test/helpers/redis.js";
import { type Cleanup, freshQueueName, makeQueue, runCleanup } from "./helpers.js";

let redis: TestRedis;
const cleanup: Cleanup = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await runCleanup(cleanup);
  await redis?.stop();
});

// The same behavioural checks as the memory and fs queues, each test on a queue name of its own.
queueContract("bullmq", () => makeQueue(cleanup, redis, { queueName: freshQueueName() }));
