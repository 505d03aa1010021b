import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlm, type FakeLlmScript, startFakeLlm } from "@penguin/fake-llm";
import { type RunningServer, startServer } from "@penguin/server";
import { saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

/** Debian's Chromium (`.ci/run` installs it with apt-get); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** The flags that run Debian's Chromium headless as root in a container, quiet and offline. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export const MODEL = "fake/fake-model";
export const NEW_PASSWORD = "a browser-chosen password";

/**
 * A real Penguin server (its packaged web app included) on 127.0.0.1:0 over a fresh data root,
 * whose project config points the model at fake-llm (OpenAI Chat Completions over real HTTP),
 * with one workspace folder its sessions may use.
 */
export interface Stack {
  server: RunningServer;
  llm: FakeLlm;
  dataRoot: string;
  workspace: string;
  /** The admin's password: the initial one until a test changes it. */
  password: string;
  close(): Promise<void>;
}

export async function startStack(
  script: FakeLlmScript = [],
  options: { idleReleaseMs?: number } = {},
): Promise<Stack> {
  const dataRoot = await mkdtemp(join(tmpdir(), "penguin-web-test-"));
  // Workspaces live outside the data root: the server refuses any inside it.
  const workspacesDir = await mkdtemp(join(tmpdir(), "penguin-web-workspaces-"));
  const root = join(workspacesDir, "workspaces");
  const workspace = join(root, "project");
  await mkdir(workspace, { recursive: true });
  const llm = await startFakeLlm({ script, apiKey: "sk-test" });
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      default_model: MODEL,
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-test",
          context_window: 100_000,
          prices: { input_per_mtok: 2, output_per_mtok: 10 },
        },
      ],
    }),
  );
  const server = await startServer({ dataRoot, port: 0, workspaceRoots: [root], ...options });
  const password = server.initialAdmin?.password;
  if (!password) throw new Error("a fresh server must report its initial admin password");
  return {
    server,
    llm,
    dataRoot,
    workspace,
    password,
    async close() {
      await server.close();
      await llm.close();
      await rm(dataRoot, { recursive: true, force: true });
      await rm(workspacesDir, { recursive: true, force: true });
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, timeout: 60_000, args: CHROMIUM_ARGS });
}

/**
 * The server (with fake-llm) and the Chromium of one test file: started before its tests, closed
 * after them. Its tests read `web.stack` and `web.browser`.
 */
export function webStackPerFile(): { stack: Stack; browser: Browser } {
  const web = {} as { stack: Stack; browser: Browser };
  beforeAll(async () => {
    web.stack = await startStack();
    web.browser = await launchChromium();
  });
  afterAll(async () => {
    await web.browser?.close();
    await web.stack?.close();
  });
  return web;
}

/**
 * A page logged in as the admin through the login form; the first login also goes through the
 * forced password change, after which `stack.password` is the new one.
 */
export async function loggedInPage(
  browser: Browser,
  stack: Stack,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  await page.goto(stack.server.url);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(stack.password);
  await page.getByRole("button", { name: "Log in" }).click();
  const landed = await Promise.race([
    page
      .getByRole("heading", { name: "Choose a password" })
      .waitFor()
      .then(() => "password" as const),
    page
      .getByRole("heading", { name: "New session" })
      .waitFor()
      .then(() => "sessions" as const),
  ]);
  if (landed === "password") {
    await page.getByLabel("Current password").fill(stack.password);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("New password again").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Save password" }).click();
    await page.getByRole("heading", { name: "New session" }).waitFor();
    stack.password = NEW_PASSWORD;
  }
  return { context, page };
}

/** `fetch` against the API with the page's session cookie, as the browser would send it. */
export async function apiFetch(
  context: BrowserContext,
  stack: Stack,
  path: string,
  init: { method?: string; json?: unknown } = {},
) {
  const cookie = (await context.cookies(stack.server.url)).find((c) => c.name === "penguin_session");
  if (!cookie) throw new Error("the page is not logged in");
  const headers: Record<string, string> = {
    cookie: `penguin_session=${cookie.value}`,
    origin: stack.server.url,
  };
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(new URL(path, stack.server.url), {
    method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<unknown>;
}

/** Creates a session through the page's form and waits for its chat view; returns its id. */
export async function createSessionInPage(
  page: Page,
  stack: Stack,
  options: { title: string; mode: "allow-all" | "always-ask" },
): Promise<string> {
  await page.goto(`${stack.server.url}/#/`);
  await page.getByLabel("Workspace folder").fill(stack.workspace);
  await page.getByLabel("Title").fill(options.title);
  await page.getByLabel("Approval mode").selectOption(options.mode);
  const created = page
    .waitForResponse(
      (r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/api/sessions",
      {
        timeout: 90_000,
      },
    )
    .then(
      (response) => `POST /api/sessions answered ${response.status()}`,
      (error: unknown) => `POST /api/sessions: ${error instanceof Error ? error.message : String(error)}`,
    );
  const clickedAt = Date.now();
  await page.getByRole("button", { name: "Create session" }).click();
  // A session's creation waits for its agent, trace and holder: on a loaded CI machine that has
  // taken longer than Playwright's 30 s default once; the test's own timeout is 120 s.
  try {
    await page.getByRole("heading", { name: options.title }).waitFor({ timeout: 90_000 });
  } catch (error) {
    // What the page did instead, so a failure on CI says where it stopped.
    const alerts = await page.getByRole("alert").allTextContents();
    const answer = await Promise.race([created, "no answer to POST /api/sessions"]);
    throw new Error(
      `no chat page titled "${options.title}" ${Date.now() - clickedAt} ms after Create session: ${answer}; ` +
        `page at ${page.url()}; alerts: ${JSON.stringify(alerts)}`,
      { cause: error },
    );
  }
  const match = /#\/sessions\/([^/]+)$/.exec(page.url());
  if (!match) throw new Error(`not on a chat page: ${page.url()}`);
  return decodeURIComponent(match[1]);
}

/** Types a task into the chat view and sends it. */
export async function sendTask(page: Page, text: string): Promise<void> {
  await page.getByPlaceholder(/Ask for something/).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** A tool call card of the chat view. */
export const toolCard = (page: Page, toolCallId: string) =>
  page.locator(`[data-testid="tool-call"][data-tool-call-id="${toolCallId}"]`);

/** An approval card (Allow / Deny) of the chat view. */
export const approvalCard = (page: Page, toolCallId: string) =>
  page.locator(`[data-testid="approval-card"][data-tool-call-id="${toolCallId}"]`);

/** An exec_command call as a fake-llm script writes it; `description` comes first, as the spec asks. */
export function execCall(id: string, description: string, cmd: string) {
  return { id, name: "exec_command", arguments: { description, cmd, yield_time_ms: 30_000 } };
}

/** Saves a full-page screenshot as `<SCREENSHOT_DIR>/<name>.png` when SCREENSHOT_DIR is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
