import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";

/** "compaction.max_context_length … 256000": a request this large triggers a compaction. */
export const DEFAULT_COMPACTION_MAX_CONTEXT_LENGTH = 256_000;
/** "compaction.max_session_turns … -1": off; a positive number compacts after that many turns. */
export const DEFAULT_COMPACTION_MAX_SESSION_TURNS = -1;
export const COMPACTION_MODES = ["summarize", "discard"] as const;
export type CompactionMode = (typeof COMPACTION_MODES)[number];
/** "compaction.mode … summarize". */
export const DEFAULT_COMPACTION_MODE: CompactionMode = "summarize";

/**
 * The request that asks the model for a summary (the last user message of the compaction
 * request). The engine keeps the text between the first `[summary]` and its `[/summary]`.
 */
export const DEFAULT_COMPACTION_PROMPT = `The conversation so far is about to be replaced by a summary, because the context window is filling up. Do not call any tool now. Write the summary that you will continue from, between [summary] and [/summary], covering:
- the user's requests and goals in this session, in their own words where it matters;
- what has been done: files read, created or changed (with paths), commands run and what they showed;
- decisions made and why, constraints and preferences the user stated;
- errors met and how they were resolved, or that they are still open;
- the current state of the work and the exact next steps.
Keep names, paths, identifiers and numbers exact. Answer with the [summary] block only.`;

/**
 * The schema of `compaction` in system_config.yaml (when and how a long session's context is
 * compacted), built on the first call: configuration is checked only when read.
 */
export const compactionSchemas = onFirstUse(() => {
  const CompactionSettingsSchema = z.strictObject({
    max_context_length: z.number().int().positive().default(DEFAULT_COMPACTION_MAX_CONTEXT_LENGTH),
    max_session_turns: z
      .number()
      .int()
      .refine((n) => n === -1 || n > 0, "use a positive number of turns, or -1 to never compact by turns")
      .default(DEFAULT_COMPACTION_MAX_SESSION_TURNS),
    mode: z.enum(COMPACTION_MODES).default(DEFAULT_COMPACTION_MODE),
    prompt: z
      .string()
      .refine((text) => text.trim() !== "", "compaction.prompt is empty; remove the key to use the default")
      .optional(),
  });
  return { CompactionSettingsSchema };
});
type Schemas = ReturnType<typeof compactionSchemas>;

export type CompactionSettings = z.output<Schemas["CompactionSettingsSchema"]>;
