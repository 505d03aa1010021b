import { parseSkillFile, readSkillFile, type ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, shownPath, stringArg } from "../files/file-tool-support.js";

// "`use_skill` loads one skill's full instructions by name (files beside it are read on
// demand)": the SKILL.md is read again at each call, so an edit shows at once.

export function createUseSkillTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments({ name: stringArg("name") }, async function* ({ name }, ctx) {
    const catalog = ctx.place?.skills;
    if (!catalog) return yield* fail(ctx, "Skills are turned off for this agent (skills.enabled: false).");
    const skill = catalog.get(name.trim());
    if (!skill) {
      const known = catalog.list().map((s) => s.name);
      const list = known.length > 0 ? `Available skills: ${known.join(", ")}.` : "No skills are available.";
      return yield* fail(ctx, `No skill is named "${name}". ${list}`);
    }
    const read = await readSkillFile(skill.file);
    if (!read.ok) return yield* fail(ctx, `Cannot read ${shownPath(skill.file)}: ${read.error}.`);
    const parsed = parseSkillFile(read.text);
    if (!parsed.ok) return yield* fail(ctx, `${shownPath(skill.file)} cannot be used: ${parsed.error}.`);
    const header = [
      `# Skill: ${skill.name}`,
      `Loaded from ${shownPath(skill.file)}. Files it mentions are relative to ${shownPath(skill.dir)}; read them when the instructions call for them.`,
    ].join("\n");
    const body = parsed.skill.body.trim();
    return yield* answer(
      ctx,
      `${header}\n\n${body === "" ? "(the skill has no instructions beyond its description)" : body}`,
    );
  });

  return { name: definition.name, definition, execute };
}
