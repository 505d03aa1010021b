/**
 * The command lines that only print the version or the help: "`penguin --version` and `--help`
 * stay under 1.5× `node -e 0`", so they skip the one-file build and print what the build rendered
 * (light-output.ts). `version`: `-V`, `--version`; `help`: `-h`, `--help`, `help`; `usage`: no
 * arguments at all (commander prints the help on stderr with the usage exit code).
 */
export type LightInvocation = "version" | "help" | "usage";

const LIGHT_FLAGS: ReadonlyMap<string, LightInvocation> = new Map([
  ["-V", "version"],
  ["--version", "version"],
  ["-h", "help"],
  ["--help", "help"],
  ["help", "help"],
]);

/** What a command line only prints, or undefined for every other command line. */
export function lightInvocation(args: readonly string[]): LightInvocation | undefined {
  if (args.length === 0) return "usage";
  return args.length === 1 ? LIGHT_FLAGS.get(args[0] ?? "") : undefined;
}
