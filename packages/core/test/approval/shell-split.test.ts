// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is a parameter expansion
import { describe, expect, it } from "vitest";
import { normalizedText, splitShellCommand } from "../../src/approval/shell-split.js";

const partsOf = (text: string) => splitShellCommand(text).parts.map((p) => p.words.map((w) => w.value));

describe("splitShellCommand", () => {
  it("splits pipelines and &&, ||, ; and & chains into simple commands", () => {
    expect(partsOf("ls -la | grep x && echo ok || echo no; pwd & date")).toEqual([
      ["ls", "-la"],
      ["grep", "x"],
      ["echo", "ok"],
      ["echo", "no"],
      ["pwd"],
      ["date"],
    ]);
  });

  it("does not split at operators inside quotes or after a backslash", () => {
    expect(partsOf(`echo "a && b; c | d" 'e || f' g\\;h`)).toEqual([
      ["echo", "a && b; c | d", "e || f", "g;h"],
    ]);
  });

  it("splits at newlines and skips comments", () => {
    expect(partsOf("cd src # go there; rm -rf /\nmake")).toEqual([["cd", "src"], ["make"]]);
  });

  it("keeps a line continuation inside one command", () => {
    expect(partsOf("echo one \\\n two")).toEqual([["echo", "one", "two"]]);
  });

  it("reports the commands of subshells, $( ), backticks and process substitutions as parts", () => {
    const parts = partsOf("(cd /tmp && rm x) ; echo $(whoami) `id -u` ; diff <(ls a) >(cat)");
    expect(parts).toContainEqual(["cd", "/tmp"]);
    expect(parts).toContainEqual(["rm", "x"]);
    expect(parts).toContainEqual(["whoami"]);
    expect(parts).toContainEqual(["id", "-u"]);
    expect(parts).toContainEqual(["ls", "a"]);
    expect(parts).toContainEqual(["cat"]);
  });

  it("parses the script of sh -c, bash -lc, sudo … sh -c and eval", () => {
    expect(partsOf("sh -c 'rm -rf /tmp/x && ls'")).toEqual([
      ["sh", "-c", "rm -rf /tmp/x && ls"],
      ["rm", "-rf", "/tmp/x"],
      ["ls"],
    ]);
    expect(partsOf(`sudo -u root bash -lc "echo hi | tee f"`)).toContainEqual(["tee", "f"]);
    expect(partsOf(`eval "git push; rm a"`)).toContainEqual(["rm", "a"]);
    expect(partsOf(`bash -c "sh -c 'touch deep'"`)).toContainEqual(["touch", "deep"]);
  });

  it("treats $'…' and double-quote escapes like the shell does", () => {
    expect(partsOf(`printf $'a\\tb' "x\\"y" "\\$HOME"`)).toEqual([["printf", "a\tb", 'x"y', "$HOME"]]);
  });

  it("records redirections apart from the words, including fd and here-doc forms", () => {
    const { parts } = splitShellCommand("cat <<EOF > out.txt 2>&1\nrm -rf /\nEOF\necho done");
    expect(parts.map((p) => p.words.map((w) => w.value))).toEqual([["cat"], ["echo", "done"]]);
    expect(parts[0].redirects).toEqual([
      { op: "<<", target: "EOF" },
      { op: ">", target: "out.txt" },
      { op: "2>&", target: "1" },
    ]);
  });

  it("handles redirections glued to words (echo hi>/dev/sda)", () => {
    const [part] = splitShellCommand("echo hi>/dev/sda").parts;
    expect(part.words.map((w) => w.value)).toEqual(["echo", "hi"]);
    expect(part.redirects).toEqual([{ op: ">", target: "/dev/sda" }]);
  });

  it("says when the text is not a whole command (an open quote or substitution)", () => {
    expect(splitShellCommand(`echo "unterminated`).complete).toBe(false);
    expect(splitShellCommand("echo $(ls").complete).toBe(false);
    expect(splitShellCommand("echo 'it''s' fine").complete).toBe(true);
  });

  it("reports the commands inside ${…} words, quoted or not, at any depth", () => {
    expect(partsOf("echo ${X:=$(rm -rf y)}")).toContainEqual(["rm", "-rf", "y"]);
    expect(partsOf("echo ${X:-$(rm -rf /)}")).toContainEqual(["rm", "-rf", "/"]);
    expect(partsOf("echo ${X:-\\$(not run)}")).toEqual([["echo", "${X:-\\$(not run)}"]]);
    expect(partsOf('echo "${X:-`id -u`}"')).toContainEqual(["id", "-u"]);
    expect(partsOf("echo ${X:-${Y:-$(touch deep)}}")).toContainEqual(["touch", "deep"]);
    expect(partsOf("cat ${F:-<(ls secrets)}")).toContainEqual(["ls", "secrets"]);
    expect(partsOf(`echo "\${X:-"$(whoami)"}"`)).toContainEqual(["whoami"]);
  });

  it("reports the commands inside $(( … )) and (( … )) arithmetic", () => {
    expect(partsOf("echo $(( $(touch p) ))")).toContainEqual(["touch", "p"]);
    expect(partsOf("echo $(( 1 + $(wc -l < f) ))")).toContainEqual(["wc", "-l"]);
    expect(partsOf("echo $(( 2 * $(( 1 + `id -u` )) ))")).toContainEqual(["id", "-u"]);
    expect(partsOf("(( n = $(rm x) ))")).toContainEqual(["rm", "x"]);
  });

  it("keeps arithmetic and parameter expansions without a substitution in one command", () => {
    expect(splitShellCommand("echo $(( (1 + 2) * 3 ))")).toMatchObject({
      parts: [{ words: [{ value: "echo" }, { value: "$(( (1 + 2) * 3 ))" }] }],
      complete: true,
    });
    expect(partsOf("echo ${#var} ${var%%pat} ${var/#a/b} ${arr[@]:1:2}")).toEqual([
      ["echo", "${#var}", "${var%%pat}", "${var/#a/b}", "${arr[@]:1:2}"],
    ]);
    expect(partsOf('echo "${HOME}/x"')).toEqual([["echo", "${HOME}/x"]]);
  });

  it("marks a substitution left open inside ${…} or $(( … )) as incomplete", () => {
    expect(splitShellCommand("echo ${X:-$(ls}").complete).toBe(false);
    expect(splitShellCommand("echo $(( 1 + `id ))").complete).toBe(false);
  });

  it("never loops or throws on hostile input", () => {
    for (const text of [
      "",
      ")",
      "((",
      "<",
      ">>>",
      "&>",
      "|||",
      "\\",
      "$",
      "$(",
      "`",
      "'",
      '"',
      "a()",
      "{ ; }",
    ]) {
      expect(() => splitShellCommand(text)).not.toThrow();
    }
  });

  it("drops needless quotes in the normalized text but keeps meaningful ones", () => {
    const [quotedRoot] = splitShellCommand(`rm -rf "/"`).parts;
    expect(normalizedText(quotedRoot)).toBe("rm -rf /");
    const [echo] = splitShellCommand(`echo "rm -rf /"`).parts;
    expect(normalizedText(echo)).toBe(`echo "rm -rf /"`);
  });
});
