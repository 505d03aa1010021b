import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

/**
 * Checks answers of the server against its own OpenAPI document: every response the route tests
 * receive through `request` (helpers.ts) or `SseClient` passes through here, and a status or a
 * body the document does not describe fails the test that received it.
 */

interface MediaType {
  schema: object;
}
interface DocumentedResponse {
  description: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, DocumentedResponse>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

interface Template {
  path: string;
  pattern: RegExp;
  /** Literal segments: among several matching templates the most literal one is Hono's route. */
  literalSegments: number;
  operations: Record<string, Operation>;
}

interface Registered {
  templates: Template[];
  validators: Map<string, ValidateFunction>;
}

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const servers = new Map<string, Registered>();

/** Statuses any path may get before routing: not logged in, or a Host that is not the server's. */
const BEFORE_ROUTING = new Set([401, 421]);

function templatesOf(document: OpenApiDocument): Template[] {
  return Object.entries(document.paths).map(([path, operations]) => {
    const segments = path.split("/").filter(Boolean);
    const source = segments
      .map((segment) => (segment.startsWith("{") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    return {
      path,
      // Hono routes strictly: `/api/health/` is not `/api/health`.
      pattern: new RegExp(`^/${source}$`),
      literalSegments: segments.filter((segment) => !segment.startsWith("{")).length,
      operations,
    };
  });
}

/** Starts checking the answers of the server at `baseUrl` against `document`. */
export function checkResponsesAgainst(baseUrl: string, document: Record<string, unknown>): void {
  servers.set(new URL(baseUrl).origin, {
    templates: templatesOf(document as unknown as OpenApiDocument),
    validators: new Map(),
  });
}

export function stopCheckingResponses(baseUrl: string): void {
  servers.delete(new URL(baseUrl).origin);
}

function isErrorBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string";
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * What is wrong with an answer according to the document, or undefined when it matches. `body`
 * is undefined when it was not read (a live stream).
 */
export function openApiMismatch(
  method: string,
  url: string,
  answer: { status: number; contentType: string; body: string | undefined },
): string | undefined {
  const target = new URL(url);
  const server = servers.get(target.origin);
  if (!server) return undefined;
  const verb = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  const where = `${method.toUpperCase()} ${target.pathname} → ${answer.status}`;
  const isJson = /^application\/(?:[\w.+-]+\+)?json\b/i.test(answer.contentType);
  const parsed = answer.body !== undefined && isJson ? parseJson(answer.body) : undefined;
  if (parsed && !parsed.ok) return `${where}: the body is not valid JSON`;
  const json = parsed?.ok ? parsed.value : undefined;

  // Not an API path: the web app's files, outside the document.
  if (!target.pathname.startsWith("/api/") && target.pathname !== "/api") return undefined;

  const matching = server.templates
    .filter((template) => template.pattern.test(target.pathname))
    .sort((a, b) => b.literalSegments - a.literalSegments);
  const template = matching.find((candidate) => candidate.operations[verb] !== undefined);
  if (!template) {
    const expected = matching.length === 0 ? [...BEFORE_ROUTING, 404] : [...BEFORE_ROUTING, 405];
    if (!expected.includes(answer.status)) {
      return `${where}: ${matching.length === 0 ? "no documented path" : "a method the path does not document"} must get ${expected.join(" or ")}`;
    }
    if (answer.body !== undefined && verb !== "head" && !isErrorBody(json))
      return `${where}: not an error body`;
    return undefined;
  }

  const operation = template.operations[verb];
  const documented = operation.responses[String(answer.status)];
  if (!documented) {
    return `${where}: status ${answer.status} is not documented for ${verb} ${template.path} (documented: ${Object.keys(operation.responses).join(", ")})`;
  }
  const schema = documented.content?.["application/json"]?.schema;
  if (schema === undefined) {
    if (answer.status === 204 && answer.body !== undefined && answer.body !== "") {
      return `${where}: a 204 with a body`;
    }
    return undefined;
  }
  if (method.toUpperCase() === "HEAD" || answer.body === undefined) return undefined;
  if (!isJson)
    return `${where}: documented as application/json, sent ${answer.contentType || "no content type"}`;
  const key = `${verb} ${template.path} ${answer.status}`;
  let validate = server.validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    server.validators.set(key, validate);
  }
  if (!validate(json)) {
    return `${where}: the body does not match the documented schema: ${ajv.errorsText(validate.errors)}; body ${answer.body.slice(0, 500)}`;
  }
  return undefined;
}

/** Throws when `response` (to `method url`) disagrees with the document of its server. */
export async function assertDocumentedResponse(
  method: string,
  url: string,
  response: Response,
): Promise<void> {
  const contentType = response.headers.get("content-type") ?? "";
  // A live stream never ends and a HEAD answer has no body: only their status is checked.
  const unread = contentType.startsWith("text/event-stream") || method.toUpperCase() === "HEAD";
  const body = unread ? undefined : await response.clone().text();
  const problem = openApiMismatch(method, url, { status: response.status, contentType, body });
  if (problem !== undefined) throw new Error(`the answer disagrees with the OpenAPI document: ${problem}`);
}
