import { type ImageUrlPayload, isPayload, modelMsg, userText } from "@penguin/protocol";
import { findModel, type ProjectConfig, parseModelRef } from "@penguin/state";
import type { DescribeImageFn } from "../environment/types.js";
import { createModelAdapter } from "../models/registry.js";
import type { ModelAdapter } from "../models/types.js";
import { requestTimeouts } from "./model-choice.js";

// "Text-only models get describe_image: the image plus a prompt are forwarded to the Project's
// configured vision_model, whose text answer becomes the tool output."

/**
 * Output cap of one vision request when the model entry sets none. A description is short, but
 * Anthropic requires a cap and reasoning models spend part of it before they answer.
 */
export const VISION_MAX_TOKENS = 8_192;

export interface VisionModelOptions {
  env?: NodeJS.ProcessEnv;
  /** Used instead of the project's `vision_model` (tests, programs that bring their own adapter). */
  adapter?: ModelAdapter;
  /** The agent's `model.timeoutMs`, for the vision model's requests too. */
  timeoutMs?: number;
}

/**
 * The `describeImage` of a text-only session: one request to the project's `vision_model` with
 * the image (an `image_url` message) and the prompt as text, no tools, no thinking; its text is
 * the answer. Undefined when no vision model is configured (describe_image then says how to set
 * one). The adapter is made on first use, so a vision model that cannot be reached (no key)
 * fails the tool call with the reason instead of the whole session.
 */
export function describeImageWith(
  project: ProjectConfig,
  options: VisionModelOptions = {},
): DescribeImageFn | undefined {
  const ref = project.vision_model;
  if (options.adapter === undefined && ref === undefined) return undefined;
  let adapter = options.adapter;
  let maxTokens = VISION_MAX_TOKENS;
  if (ref !== undefined) {
    const parsed = parseModelRef(ref);
    const entry = parsed ? findModel(project, parsed.provider, parsed.modelId) : undefined;
    if (entry?.max_tokens !== undefined) maxTokens = entry.max_tokens;
  }

  return async (image, prompt, signal) => {
    if (adapter === undefined) {
      const created = createModelAdapter(ref!, {
        project,
        env: options.env,
        ...requestTimeouts(options.timeoutMs),
      });
      if (!created.ok)
        return { ok: false, error: `the vision model ${ref} cannot be used: ${created.error}` };
      adapter = created.adapter;
    }
    const stream = adapter.stream({
      systemPrompt: "",
      messages: [
        modelMsg<ImageUrlPayload>({ type: "image_url", role: "user", image_url: image.dataUrl }),
        userText(prompt, { sender: "user" }),
      ],
      tools: [],
      thinkingLevel: "none",
      maxTokens,
      signal,
    });
    const texts: string[] = [];
    while (true) {
      const step = await stream.next();
      if (step.done) {
        const outcome = step.value;
        if (outcome.status !== "completed")
          return { ok: false, error: outcome.errorMessage ?? `the request ended ${outcome.status}` };
        return { ok: true, text: texts.join("") };
      }
      if (isPayload(step.value, "text")) texts.push(step.value.payload.text);
    }
  };
}
