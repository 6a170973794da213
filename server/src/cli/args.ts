import { parseArgs } from "node:util";

export type ArgOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>;
export type ArgValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** Exit codes: 0 done, 1 failed while running, 2 bad usage or invalid configuration/options. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage text of the command that was misused (printed after the message). */
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** Thrown to end early with `usage` on stdout and exit code 0 (`<command> --help`). */
export class HelpRequested extends Error {
  constructor(readonly usage: string) {
    super("help");
  }
}

export const out = (text: string): void => {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};

/** Parses a command's flags (plus `--config` and `-h/--help`); `--help` ends with the command's usage. */
export function parse(
  args: string[],
  options: ArgOptions,
  usage: string,
  allowPositionals = false,
): { values: ArgValues; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args,
      options: { ...options, config: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals,
      strict: true,
    });
    if (parsed.values.help) throw new HelpRequested(usage);
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    if (error instanceof HelpRequested) throw error;
    // `--help` anywhere wins over other mistakes on the same line.
    if (args.includes("--help") || args.includes("-h")) throw new HelpRequested(usage);
    throw new UsageError((error as Error).message, usage);
  }
}
