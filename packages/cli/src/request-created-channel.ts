/**
 * The diagnostics channels on which Node announces each HTTP request it creates, before it
 * connects: node:http's, which the provider SDKs' requests go through (Penguin's provider fetch,
 * @penguin/core), and Node's `fetch`'s (undici), which a tool or an MCP server's HTTP transport
 * may use.
 */
export const HTTP_REQUEST_CREATED_CHANNEL = "http.client.request.start";
export const FETCH_REQUEST_CREATED_CHANNEL = "undici:request:create";
export const REQUEST_CREATED_CHANNELS = [HTTP_REQUEST_CREATED_CHANNEL, FETCH_REQUEST_CREATED_CHANNEL];
