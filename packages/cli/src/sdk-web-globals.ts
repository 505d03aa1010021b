/**
 * What the provider SDKs' modules get in the CLI's bundle for the web globals `Headers` and
 * `FormData` (tsup.config.ts, sdkWebGlobals). Node's are undici's, and the first touch of either
 * loads all of Node's `fetch`: tens of milliseconds before a session's first request, which
 * Penguin's provider fetch (over node:http) does not otherwise need.
 */
export { FetchHeaders as Headers } from "@penguin/core";

/**
 * The SDKs ask whether a request body is a `FormData` (Penguin's never is: it sends JSON), and make
 * one only to upload a file, which Penguin never asks of them.
 */
export class FormData {
  constructor() {
    throw new TypeError("the Penguin CLI does not upload files through a provider SDK");
  }
}
