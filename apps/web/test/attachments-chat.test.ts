import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSessionInPage, HAS_CHROMIUM, loggedInPage, sendTask, webStackPerFile } from "./stack.js";

// Files attached to a message, as the CLI's --attach: an image goes to the model as an image, a
// text file as its content under its name; anything else is refused with the reason.

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe.skipIf(!HAS_CHROMIUM)("attachments in Chromium", () => {
  const web = webStackPerFile();

  it("an image and a text file picked, one dropped, a binary refused: the session gets the image and the model the texts", async () => {
    web.stack.llm.setScript({ turns: [{ text: "I see a pixel and two notes." }] });
    const { context, page } = await loggedInPage(web.browser, web.stack);
    await createSessionInPage(page, web.stack, { title: "Attachments", mode: "allow-all" });

    await page.getByTestId("attach-input").setInputFiles([
      { name: "pixel.png", mimeType: "image/png", buffer: PNG },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("first note\n") },
      { name: "blob.bin", mimeType: "application/octet-stream", buffer: Buffer.from([0, 1, 2, 0, 255]) },
    ]);
    await page.getByRole("alert").filter({ hasText: "blob.bin is not a text file or an image" }).waitFor();
    // Dropped onto the message box, as from a file manager.
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["second note\n"], "dropped.md", { type: "text/markdown" }));
      const form = document.querySelector('form[aria-label="Message"]');
      form?.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    });
    const list = page.getByRole("list", { name: "Attached files" });
    await expect.poll(() => list.getByTestId("attachment").count()).toBe(3);
    expect(await list.textContent()).toContain("dropped.md");
    // One removed before sending.
    await page
      .getByTestId("attach-input")
      .setInputFiles([{ name: "extra.txt", mimeType: "text/plain", buffer: Buffer.from("x") }]);
    await expect.poll(() => list.getByTestId("attachment").count()).toBe(4);
    await page.getByRole("button", { name: "Remove extra.txt" }).click();
    await expect.poll(() => list.getByTestId("attachment").count()).toBe(3);

    await sendTask(page, "What did I attach?");
    await page.getByText("I see a pixel and two notes.").waitFor();
    const body = JSON.stringify(web.stack.llm.requests.at(-1));
    // The session's model reads text only: the image is kept in the session's scratchpad and the
    // model told where (as for the CLI's --attach), the very bytes that were picked.
    const saved = /\[attached image: ([^\]]+\.png)\]/.exec(body)?.[1];
    expect(saved).toBeDefined();
    expect(readFileSync(saved ?? "")).toEqual(PNG);
    expect(body).toContain("Attached file notes.txt");
    expect(body).toContain("first note");
    expect(body).toContain("Attached file dropped.md");
    expect(body).not.toContain("extra.txt");
    // Sent: the list is empty for the next message.
    expect(await page.getByTestId("attachment").count()).toBe(0);
    await context.close();
  });
});
