// Text as Biome formats it, so that `npm run lint` and the generators' --check agree.
import { spawnSync } from "node:child_process";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** `text` formatted as Biome formats the file at `path` (absolute, or relative to the repository). */
export function biomeFormat(text, path) {
  const biome = spawnSync(
    join(ROOT, "node_modules", ".bin", "biome"),
    ["format", `--stdin-file-path=${relative(ROOT, join(ROOT, path))}`],
    {
      cwd: ROOT,
      input: text,
      encoding: "utf8",
    },
  );
  if (biome.status !== 0) throw new Error(`biome format failed: ${biome.stderr || biome.error}`);
  return biome.stdout;
}
