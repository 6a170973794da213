import { NOT_NEEDED } from "./binaries.js";
import { runCommand } from "./run-command.js";
import { type Check, message, ok, warn } from "./types.js";

/** Font families pages rely on, how to recognise them in `fc-list`, and what breaks without them. */
const FAMILIES = [
  {
    family: "Liberation Sans",
    matches: (name: string) => name === "Liberation Sans",
    pkg: "fonts-liberation",
    without: "Arial, Helvetica and sans-serif text falls back to a font with other metrics (layouts shift)",
  },
  {
    family: "Noto Color Emoji",
    matches: (name: string) => name === "Noto Color Emoji",
    pkg: "fonts-noto-color-emoji",
    without: "emoji render as empty boxes",
  },
  {
    family: "Noto Sans CJK",
    // Installed as regional families: Noto Sans CJK JP, KR, SC, TC, HK.
    matches: (name: string) => name.startsWith("Noto Sans CJK"),
    pkg: "fonts-noto-cjk",
    without: "Chinese, Japanese and Korean text renders as empty boxes",
  },
] as const;

/** The fonts Chromium finds through fontconfig (`fc-list : family`), one line per family. */
export const fontsCheck: Check = {
  name: "fonts",
  async run(context) {
    if (context.role === "api") return [ok(this.name, NOT_NEEDED)];
    let listing: string;
    try {
      const result = await runCommand("fc-list", [":", "family"], { timeoutMs: context.timeoutMs, signal: context.signal });
      if (result.code !== 0) throw new Error(`fc-list exited with ${result.code}: ${result.stderr.trim().slice(0, 200)}`);
      listing = result.stdout;
    } catch (error) {
      const all = FAMILIES.map((f) => f.pkg).join(" ");
      return [warn(this.name, `cannot list fonts: ${message(error)}`, `apt-get install fontconfig ${all}`)];
    }
    // A line may name a family in several languages or styles: "Noto Sans CJK JP,Noto Sans CJK JP Regular".
    const names = new Set(listing.split("\n").flatMap((line) => line.split(",").map((name) => name.trim())));
    return FAMILIES.map(({ family, matches, pkg, without }) =>
      [...names].some(matches)
        ? ok(this.name, family)
        : warn(this.name, `${family} is missing: ${without}`, `apt-get install ${pkg}`),
    );
  },
};
