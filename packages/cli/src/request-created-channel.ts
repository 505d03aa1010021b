/** Node's `fetch` (undici) announces each request it creates here, before it connects. */
export const REQUEST_CREATED_CHANNEL = "undici:request:create";
