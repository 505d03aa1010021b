/**
 * `sh -c 'script'`, `bash -lc "script"`, `sudo -u x sh -c …`, `find … -exec sh -c '…'`, `eval "script"`:
 * the script is a command line too, and the shell splitter parses it as one.
 */

/** Shells whose `-c` argument is a script of its own. */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
/** Commands that run the rest of their words as a command (`sudo rm …`, `env X=1 rm …`). */
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "nohup",
  "nice",
  "ionice",
  "time",
  "exec",
  "command",
  "builtin",
  "stdbuf",
  "setsid",
  "timeout",
  "xargs",
  "watch",
  "chroot",
  "su",
]);

/**
 * The scripts one simple command runs as command lines of their own, given its words (after quote
 * removal). Every word that names a shell is looked at, wherever it stands: finding more nested
 * parts only ever makes a decision stricter.
 */
export function nestedScripts(values: readonly string[]): string[] {
  let k = 0;
  // Skip assignments and wrappers (with their options) in front of the command.
  while (k < values.length) {
    const word = values[k];
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) k++;
    else if (WRAPPERS.has(basename(word))) {
      k++;
      while (k < values.length && (values[k].startsWith("-") || /^\d+[smhd]?$/.test(values[k]))) k++;
    } else break;
  }
  if (values[k] !== undefined && basename(values[k]) === "eval") {
    const script = values.slice(k + 1).join(" ");
    return script ? [script] : [];
  }
  const scripts: string[] = [];
  for (let s = 0; s < values.length; s++) {
    if (!SHELLS.has(basename(values[s]))) continue;
    const script = shellScriptOperand(values, s);
    if (script !== undefined) scripts.push(script);
  }
  return scripts;
}

/** The script of `sh [options] -c script`: the first operand after an option cluster holding `c`. */
function shellScriptOperand(values: readonly string[], shellIndex: number): string | undefined {
  for (let j = shellIndex + 1; j < values.length; j++) {
    const arg = values[j];
    if (!arg.startsWith("-") || arg === "-" || arg === "--") return undefined;
    if (!arg.startsWith("--") && arg.slice(1).includes("c")) {
      let s = j + 1;
      while (s < values.length && values[s].startsWith("-") && values[s] !== "-") s++;
      return values[s];
    }
  }
  return undefined;
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash < 0 ? word : word.slice(slash + 1);
}
