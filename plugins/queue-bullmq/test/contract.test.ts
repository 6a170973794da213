import { queueContract } from "@renderkit/core/testing";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { useRedis } from "../../../test/helpers/redis.js";
import { freshQueueName, makeQueue } from "./helpers.js";

const redis = useRedis();
const cleanup = useCleanup();

// The same behavioural checks as the memory and fs queues, each test on a queue name of its own.
queueContract({ name: "bullmq", make: () => makeQueue(cleanup, redis, { queueName: freshQueueName() }) });
