import { ConfigError } from "./error.js";
import { writableBuckets } from "./project-s3.js";
import type { ServerConfig } from "./types.js";

/**
 * Refuses a configuration in which one project could write or read another's objects, or the
 * server's: two projects that can write the same bucket (their own or one they are allowed) with
 * prefixes where one starts with the other, and a project that can write the server's storage
 * bucket with the empty prefix (its keys could be the server's renders, served under
 * `/renders/`). Buckets are compared by name, whatever their endpoints: wary, never wrong.
 */
export function checkTenancy(config: Pick<ServerConfig, "projects" | "storage">): void {
  const writers = config.projects.flatMap((project, i) =>
    project.s3
      ? [{ at: `projects[${i}].s3`, id: project.id, prefix: project.s3.prefix, buckets: writableBuckets(project.s3) }]
      : [],
  );
  const serverBucket = config.storage.kind === "s3" ? config.storage.bucket : undefined;
  writers.forEach((a, i) => {
    if (serverBucket !== undefined && a.prefix === "" && a.buckets.includes(serverBucket)) {
      throw new ConfigError(
        `${a.at}.prefix is "" but project ${a.id} can write the server's storage bucket "${serverBucket}": its keys could be the server's own renders; give it a prefix such as "${a.id}/"`,
      );
    }
    for (const b of writers.slice(0, i)) {
      const shared = a.buckets.find((bucket) => b.buckets.includes(bucket));
      if (shared === undefined || !(a.prefix.startsWith(b.prefix) || b.prefix.startsWith(a.prefix))) continue;
      throw new ConfigError(
        `${a.at}.prefix "${a.prefix}" and ${b.at}.prefix "${b.prefix}" overlap, and both projects can write bucket "${shared}": one could overwrite or read the other's objects; give each project a prefix that does not start with the other's`,
      );
    }
  });
}
