/**
 * The command lines that only print the version or the help: "`penguin --version` and `--help`
 * stay under 1.5× `node -e 0`", so they skip the one-file build (reading it and its code cache
 * costs more than the few modules they need).
 */
const LIGHT_FLAGS = new Set(["-V", "--version", "-h", "--help", "help"]);

export function isLightInvocation(args: readonly string[]): boolean {
  return args.length === 0 || (args.length === 1 && LIGHT_FLAGS.has(args[0] ?? ""));
}
