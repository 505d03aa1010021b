import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFetch, HAS_CHROMIUM, launchChromium, loggedInPage, type Stack, startStack } from "./stack.js";
import { docScreenshot, loginAs } from "./team-helpers.js";

describe.skipIf(!HAS_CHROMIUM)("the team pages in Chromium: users, API tokens, account, usage", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("an admin creates a user, resets their password, disables and enables them; the nav shows Users", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    const nav = page.getByRole("navigation", { name: "Pages" });
    await nav.getByRole("link", { name: "Agents" }).click();
    await page.locator("main a[href^='#/agents/']").first().waitFor();
    await nav.getByRole("link", { name: "Users" }).click();
    await page.getByRole("heading", { name: "Users", level: 1 }).waitFor();

    const form = page.getByRole("form", { name: "New user" });
    await form.getByLabel("Username").fill("mia");
    await form.getByLabel("Initial password").fill("mia-initial-pass");
    await form.getByRole("button", { name: "Create user" }).click();
    const row = page.locator('[data-testid="user-row"][data-username="mia"]');
    await row.waitFor();
    expect(await row.textContent()).toContain("must change password");
    expect(await row.textContent()).toContain("never");

    // The member logs in once: the admin's list then says when.
    const member = await loginAs(browser, stack, {
      username: "mia",
      initial: "mia-initial-pass",
      password: "mia-own-password",
    });
    await member.context.close();
    await page.reload();
    await row.waitFor();
    await expect.poll(async () => row.locator("time").count()).toBe(1);
    expect(await row.textContent()).toContain("active");

    await row.getByRole("button", { name: "Reset the password of mia" }).click();
    await row.getByLabel("New initial password").fill("mia-reset-password");
    await row.getByRole("button", { name: "Set password" }).click();
    await expect.poll(() => row.textContent()).toContain("must change password");

    await row.getByRole("button", { name: "Disable mia" }).click();
    await expect.poll(() => row.textContent()).toContain("disabled");
    const refused = await fetch(new URL("/api/auth/login", stack.server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "mia", password: "mia-reset-password" }),
    });
    expect(refused.status).toBe(403);
    await row.getByRole("button", { name: "Enable mia" }).click();
    await expect.poll(() => row.textContent()).toContain("must change password");
    // The admin's own row offers nothing that would lock them out.
    const own = page.locator('[data-testid="user-row"][data-username="admin"]');
    expect(await own.getByRole("button").count()).toBe(0);
    await docScreenshot(page, "users");
    await context.close();
  });

  it("a member sees no admin links, makes an API token shown once, revokes it, and changes their password", async () => {
    const { context: adminContext } = await loggedInPage(browser, stack);
    await apiFetch(adminContext, stack, "/api/users", {
      json: { username: "noah", password: "noah-initial-pass" },
    });
    await adminContext.close();

    const { context, page } = await loginAs(browser, stack, {
      username: "noah",
      initial: "noah-initial-pass",
      password: "noah-own-password",
    });
    const nav = page.getByRole("navigation", { name: "Pages" });
    await nav.getByRole("link", { name: "Usage" }).waitFor();
    expect(await nav.getByRole("link", { name: "Users" }).count()).toBe(0);
    // The agents are listed, but not linked to their settings, which only admins may read.
    await nav.getByRole("link", { name: "Agents" }).click();
    await page.getByTestId("agent-row").first().waitFor();
    expect(await page.locator("main a[href^='#/agents/']").count()).toBe(0);
    // Typed by hand, the admins' page says so instead of failing.
    await page.goto(`${stack.server.url}/#/users`);
    expect(await page.getByRole("alert").textContent()).toContain("Only admins");

    await nav.getByRole("link", { name: "API tokens" }).click();
    const form = page.getByRole("form", { name: "New API token" });
    await form.getByLabel("Name").fill("laptop");
    await form.getByLabel("Expires after").selectOption("7 days");
    await form.getByRole("button", { name: "Create token" }).click();
    const secret = page.getByRole("region", { name: "New token" });
    const token = await secret.getByLabel("Token").inputValue();
    expect(token).toMatch(/^pgn_/);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.server.url });
    await secret.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => secret.getByRole("status").textContent()).toContain("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const me = await fetch(new URL("/api/auth/me", stack.server.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(200);
    const row = page.locator('[data-testid="token-row"][data-name="laptop"]');
    expect(await row.locator("time").count()).toBeGreaterThanOrEqual(2);
    await docScreenshot(page, "tokens");

    // Shown once: a reload lists the token but never its secret again.
    await page.reload();
    await row.waitFor();
    expect(await page.getByRole("region", { name: "New token" }).count()).toBe(0);
    expect(await page.content()).not.toContain(token);

    await row.getByRole("button", { name: "Revoke laptop" }).click();
    await expect.poll(() => row.count()).toBe(0);
    const revoked = await fetch(new URL("/api/auth/me", stack.server.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(401);

    await page.getByRole("link", { name: "Account: noah" }).click();
    await page.getByRole("heading", { name: "Account" }).waitFor();
    await page.getByLabel("Current password").fill("noah-own-password");
    await page.getByLabel("New password", { exact: true }).fill("noah-newer-password");
    await page.getByLabel("New password again").fill("noah-newer-password");
    await page.getByRole("button", { name: "Save password" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("changed");
    const relogin = await fetch(new URL("/api/auth/login", stack.server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "noah", password: "noah-newer-password" }),
    });
    expect(relogin.status).toBe(200);
    await context.close();
  });
});
