// The benchmark's HTTP and SSE clients.

/** The admin's API token: logs in with the initial password, changes it (required), mints a token. */
export async function bearerToken(url, initialPassword) {
  const post = (path, body, cookie) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
  const login = await post("/api/auth/login", { username: "admin", password: initialPassword });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
  const cookie = login.headers.getSetCookie()[0].split(";")[0];
  await post(
    "/api/auth/password",
    { current_password: initialPassword, new_password: "bench password 123" },
    cookie,
  );
  const minted = await post("/api/tokens", { name: "bench" }, cookie);
  if (minted.status !== 201) throw new Error(`token: ${minted.status} ${await minted.text()}`);
  return (await minted.json()).token;
}

/** `fetch` of an API path on `url` as the token's user, JSON bodies. */
export function apiClient(url, token) {
  return (path, init = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    });
}

/**
 * One SSE client: `ready` once the stream answered 200, `done` when `onEvent` returns true
 * (the task's end); events after that one are not handed on. A refused stream, or one that ends before that, rejects both: a client that saw
 * nothing must fail the run, not shrink its figures.
 */
export function watch(url, token, createParser, onEvent) {
  const abort = new AbortController();
  let markReady;
  let refuse;
  const ready = new Promise((resolve, reject) => {
    markReady = resolve;
    refuse = reject;
  });
  const done = (async () => {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    if (response.status !== 200) {
      throw new Error(`stream ${url}: ${response.status} ${await response.text()}`);
    }
    markReady();
    let finished = false;
    const parser = createParser({
      onEvent: (event) => {
        if (!finished && onEvent(event, event.data.length) === true) finished = true;
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (finished) return;
    }
    throw new Error(`stream ${url} ended before its task did`);
  })();
  done.catch(refuse);
  return { ready, done, close: () => abort.abort() };
}
