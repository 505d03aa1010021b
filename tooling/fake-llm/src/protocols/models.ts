/** The model a request is answered as when its body names none. */
export const DEFAULT_MODEL = "fake-model";

/**
 * `GET /v1/models`: OpenAI's list shape (`object: "list"`, entries with `object: "model"`,
 * `created`, `owned_by`), with the fields Anthropic's list adds (`type`, `display_name`,
 * `created_at`, `has_more`, `first_id`, `last_id`) so either SDK's `models.list()` reads it.
 */
export function modelListBody(models: readonly string[], createdAt: number): unknown {
  return {
    object: "list",
    data: models.map((id) => ({
      id,
      object: "model",
      created: createdAt,
      owned_by: "fake-llm",
      type: "model",
      display_name: id,
      created_at: new Date(createdAt * 1000).toISOString(),
    })),
    has_more: false,
    first_id: models[0] ?? null,
    last_id: models.at(-1) ?? null,
  };
}
