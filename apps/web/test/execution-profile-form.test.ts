import { describe, expect, it } from "vitest";
import { apiFetch, HAS_CHROMIUM, loggedInPage, webStackPerFile } from "./stack.js";

// The create form's execution profile select in Chromium against a real server: the agent's
// profiles with full host access said, the default named, the choice stored with the session.

describe.skipIf(!HAS_CHROMIUM)("the execution profile of a new session, in Chromium", () => {
  const web = webStackPerFile();

  it("offers the profiles, warns about full host access, and creates a sandbox session", async () => {
    const { context, page } = await loggedInPage(web.browser, web.stack);
    const form = page.getByRole("form", { name: "New session" });
    const select = form.getByLabel("Execution profile");
    await expect
      .poll(() => select.locator("option").allTextContents())
      .toEqual([
        "the agent's default: native (full host access)",
        "native (full host access)",
        "sandbox (sandbox, no network)",
      ]);
    // The default is native: the form says what that means.
    await form.getByTestId("full-host-access").waitFor();
    await select.selectOption("sandbox");
    expect(await form.getByTestId("full-host-access").count()).toBe(0);

    await form.getByLabel("Workspace folder").fill(web.stack.workspace);
    await form.getByLabel("Title").fill("Sandboxed work");
    await form.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("heading", { name: "Sandboxed work" }).waitFor({ timeout: 90_000 });
    const id = decodeURIComponent(/#\/sessions\/([^/]+)$/.exec(page.url())?.[1] ?? "");
    const body = (await apiFetch(context, web.stack, `/api/sessions/${id}`)) as {
      session: { execution_profile: string };
    };
    expect(body.session.execution_profile).toBe("sandbox");
    await context.close();
  });
});
