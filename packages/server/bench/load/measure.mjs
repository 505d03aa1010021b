// One measurement: N sessions, each watched by one SSE client, all tasks started at once.
import { apiClient, watch } from "./clients.mjs";

/**
 * Session i is created and its task started through instance `i % k` (so it runs there) and,
 * when `crossed`, watched through instance `(i + 1) % k`: with two instances every client then
 * watches a session the other instance runs, and every event it gets has crossed the relay.
 * Otherwise each client watches through the instance that runs its session.
 */
export async function measureLoad({ instances, crossed, token, workspace, sessions, createParser }) {
  const k = instances.length;
  const plan = Array.from({ length: sessions }, (_, i) => ({
    owner: instances[i % k],
    watcher: instances[(i + (crossed ? 1 : 0)) % k],
  }));

  for (const entry of plan) {
    const response = await apiClient(entry.owner.url, token)("/api/sessions", {
      method: "POST",
      body: JSON.stringify({ workspace, approval_mode: "allow-all" }),
    });
    if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
    entry.id = (await response.json()).session.id;
  }

  const delays = [];
  let events = 0;
  let bytes = 0;
  // A client is done at the `task_state` idle that follows its task_end (the last event of a
  // task), not at task_end itself: whether that one came in the same read as task_end would
  // otherwise decide whether it is counted.
  const perClient = plan.map(() => 0);
  const watchers = plan.map((entry, index) => {
    let taskEnded = false;
    return watch(
      `${entry.watcher.url}/api/sessions/${entry.id}/stream`,
      token,
      createParser,
      (event, size) => {
        events += 1;
        perClient[index] += 1;
        bytes += size;
        const message = JSON.parse(event.data);
        if (event.event !== undefined) {
          return taskEnded && message.type === "task_state" && message.state === "idle";
        }
        if (message.type === "model_msg" && message.payload.type === "partial_text") {
          delays.push(Date.now() - Date.parse(message.timestamp));
        }
        if (message.type === "event_msg" && message.payload.type === "task_end") taskEnded = true;
        return false;
      },
    );
  });
  try {
    await Promise.all(watchers.map((watcher) => watcher.ready));

    const started = performance.now();
    await Promise.all(
      plan.map(async (entry) => {
        const response = await apiClient(entry.owner.url, token)(`/api/sessions/${entry.id}/tasks`, {
          method: "POST",
          body: JSON.stringify({ input: "Go" }),
        });
        if (response.status !== 202) throw new Error(`task: ${response.status} ${await response.text()}`);
      }),
    );
    await Promise.all(watchers.map((watcher) => watcher.done));
    const seconds = (performance.now() - started) / 1000;

    delays.sort((a, b) => a - b);
    const pick = (q) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))];
    return {
      sessions,
      events,
      seconds: Number(seconds.toFixed(2)),
      events_per_second: Math.round(events / seconds),
      sse_mb: Number((bytes / 1e6).toFixed(1)),
      delay_p50_ms: pick(0.5),
      delay_p99_ms: pick(0.99),
      delay_max_ms: delays.at(-1),
      // Equal when every client got the whole task, whatever instance it watched through.
      events_per_client_min: Math.min(...perClient),
      events_per_client_max: Math.max(...perClient),
      relayed_clients: plan.filter((entry) => entry.owner !== entry.watcher).length,
    };
  } finally {
    for (const watcher of watchers) watcher.close();
  }
}
