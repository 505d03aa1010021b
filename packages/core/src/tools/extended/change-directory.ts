import { stat } from "node:fs/promises";
import {
  AGENTS_MD_FILE,
  discoverSkills,
  formatRules,
  readAgentsMd,
  readRules,
  type ToolDefinitionConfig,
  workspaceSkillsDir,
} from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { describeUnknownHookTools } from "../../hooks/hook-set.js";
import { type WorkspaceAgentsLoad, workspaceAgentsWarnings } from "../../named-agents/catalog.js";
import { type WorkspaceHandlersLoad, workspaceHandlersWarnings } from "../../notices/handlers.js";
import { answer, fail } from "../call-text.js";
import { describeFsError, executeWithArguments, pathArg, shownPath } from "../files/file-tool-support.js";

// "change_directory (moves the agent's current directory, which becomes the default for command
// tools and for relative paths of file tools, and loads that directory's AGENTS.md, rules
// (.agents/rules/*.md), skills and hooks, returning what it loaded in its output rather than
// rewriting the system prompt, which would break prompt caching; … it must be called alone in
// its tool round, and says so when it is not)".

export function createChangeDirectoryTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments({ target: pathArg("path") }, async function* ({ target }, ctx) {
    const place = ctx.place;
    if (!place)
      return yield* fail(
        ctx,
        "change_directory is not available here: there is no current directory to change.",
      );
    const stay = `Nothing changed: the current directory is still ${shownPath(place.directory.path)}.`;

    // The other calls of the round started in the old directory; moving under them would make
    // their relative paths ambiguous, so the move happens only in a round of its own.
    const others = ctx.roundCalls
      ? (await ctx.roundCalls()).filter((call) => call.tool_call_id !== ctx.toolCallId)
      : [];
    if (ctx.signal?.aborted) return yield* fail(ctx, stay);
    if (others.length > 0) {
      const names = others.map((call) => call.name).join(", ");
      return yield* fail(
        ctx,
        `change_directory must be called alone in its tool round; this round also called ${names}. ${stay} Call change_directory again, with no other call beside it.`,
      );
    }

    try {
      const info = await stat(target);
      if (!info.isDirectory()) return yield* fail(ctx, `${shownPath(target)} is not a directory. ${stay}`);
    } catch (error) {
      return yield* fail(ctx, `${describeFsError("enter", target, error)} ${stay}`);
    }

    const sections: string[] = [];
    // Hooks first: a broken hooks file the user opted in to stops the move.
    const hooks = place.hooks ? await place.hooks.loadFrom(target) : { status: "none" as const };
    if (hooks.status === "invalid") {
      return yield* fail(
        ctx,
        `The hooks file ${shownPath(hooks.file)} is invalid:\n${hooks.message}\n${stay}`,
      );
    }

    place.directory.moveTo(target);
    const shown = shownPath(target);
    sections.push(
      `Current directory: ${shown}\nRelative paths and commands start here from now on; the workspace is still ${shownPath(place.directory.root)}.`,
    );

    const agentsMd = await readAgentsMd(target);
    sections.push(
      agentsMd === undefined || agentsMd.trim() === ""
        ? `No ${AGENTS_MD_FILE} here.`
        : `# ${AGENTS_MD_FILE} (${shown.replace(/\/$/, "")}/${AGENTS_MD_FILE})\nFollow it while you work here, unless the user says otherwise.\n[agents_md]\n${agentsMd.trimEnd()}\n[/agents_md]`,
    );

    const rules = await readRules(target);
    if (rules.length > 0) sections.push(`# Rules (.agents/rules)\n${formatRules(rules)}`);

    if (place.skills) {
      const found = await discoverSkills(workspaceSkillsDir(target), "workspace");
      const { added, shadowed } = place.skills.add(found.skills);
      const lines = [
        ...added.map((skill) => `- ${skill.name}: ${skill.description}`),
        ...shadowed.map(({ entry: skill, by }) =>
          by.file === skill.file
            ? ""
            : `- ${skill.name} is not added: the skill of that name from ${shownPath(by.file)} stays.`,
        ),
        ...found.problems.map((problem) => `- skipped ${problem}`),
      ].filter((line) => line !== "");
      const already = found.skills.filter((s) => !added.includes(s) && !shadowed.some((x) => x.entry === s));
      if (already.length > 0) lines.push(`- already available: ${already.map((s) => s.name).join(", ")}`);
      if (lines.length > 0) sections.push(`# Skills here (load one with use_skill)\n${lines.join("\n")}`);
    }

    if (place.agents) {
      const section = namedAgentsSection(await place.agents.loadWorkspace(target));
      if (section) sections.push(section);
    }

    if (place.handlers) {
      const section = handlersSection(await place.handlers.loadWorkspace(target));
      if (section) sections.push(section);
    }

    if (hooks.status === "loaded" && (hooks.labels.length > 0 || hooks.rejected.length > 0)) {
      const lines: string[] = [];
      if (hooks.labels.length > 0)
        lines.push(`These hooks now run around your tool calls: ${hooks.labels.join(", ")}.`);
      // A directory's hooks cannot break the session: one that names an unknown tool (it would
      // never run) is left out, with a warning the model can pass on.
      if (hooks.rejected.length > 0) {
        lines.push(
          `Warning: not loaded from ${shownPath(hooks.file)}: ${describeUnknownHookTools(hooks.rejected)}. The session's tools are: ${place.hooks?.describeTools() ?? "unknown"}.`,
        );
      }
      sections.push(`# Hooks\n${lines.join("\n")}`);
    } else if (hooks.status === "ignored") {
      sections.push(
        `# Hooks\n${shownPath(hooks.file)} is not used: workspace hooks run only when the user sets hooks.allow_workspace_hooks.`,
      );
    }
    return yield* answer(ctx, sections.join("\n\n"));
  });

  return { name: definition.name, definition, execute };
}

/**
 * What the model learns about a directory's named agents: those added (the prompt listed the
 * first ones; these are new), and why others were not.
 */
function namedAgentsSection(load: WorkspaceAgentsLoad): string | undefined {
  if (load.status === "none") return undefined;
  const lines =
    load.status === "loaded" ? load.added.map((agent) => `- ${agent.name}: ${agent.description}`) : [];
  lines.push(...workspaceAgentsWarnings(load).map((warning) => `- ${warning.message}`));
  return lines.length > 0 ? `# Named agents here\n${lines.join("\n")}` : undefined;
}

/** What the model learns about a directory's event handlers: the notice types they now take. */
function handlersSection(load: WorkspaceHandlersLoad): string | undefined {
  if (load.status === "none") return undefined;
  const lines =
    load.status === "loaded"
      ? load.added.map(
          (handler) => `- ${handler.name}: notices of type ${handler.type} (${handler.delivery})`,
        )
      : [];
  lines.push(...workspaceHandlersWarnings(load).map((warning) => `- ${warning.message}`));
  return lines.length > 0 ? `# Event handlers here\n${lines.join("\n")}` : undefined;
}
