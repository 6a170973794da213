import { redactRedisUrl } from "../state/redis-client.js";
import { type Check, type DoctorCheck, fail, ok, warn } from "./types.js";

const NAME = "config";

/**
 * What the configuration makes of this process (mode, storage, role) and the combinations that
 * start fine but break once API and workers run on separate machines.
 */
export const configCheck: Check = {
  name: NAME,
  async run({ config, role }) {
    const { redis, storage } = config;
    const mode = redis
      ? `redis (${redactRedisUrl(redis.url)}, prefix ${redis.prefix})`
      : "file (one process owns the data directory)";
    const where =
      storage.kind === "s3"
        ? `s3 (bucket ${storage.bucket}${storage.endpoint ? ` at ${storage.endpoint}` : ""})`
        : `fs (${config.dataDir}/renders)`;
    const out: DoctorCheck[] = [ok(NAME, `mode ${mode}; storage ${where}; role ${role}`)];
    if (redis && storage.kind === "fs") {
      out.push(
        warn(
          NAME,
          "redis is set with storage.kind fs: workers on other machines cannot share files",
          "use storage.kind s3, or run every process on this machine with one dataDir",
        ),
      );
    }
    if (redis && !config.baseUrl) {
      out.push(
        warn(
          NAME,
          `redis is set and baseUrl is not: workers write render addresses with it, and would use http://${config.host}:${config.port}`,
          "set baseUrl to the address clients reach the API at (for example https://render.example.com)",
        ),
      );
    }
    if (!redis && role !== "all") {
      // compose() refuses it: without Redis the queue belongs to the one process of the data directory.
      const command = role === "api" ? "renderkit serve --role api" : "renderkit worker";
      out.push(
        fail(
          NAME,
          `role ${role} needs redis: in file mode one process takes requests and renders them, and ${command} refuses to start`,
          "set redis.url in the config file (or RENDERKIT_REDIS_URL) to split API and worker processes, or run renderkit serve",
        ),
      );
    }
    return out;
  },
};
