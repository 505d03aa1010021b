import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerMetrics } from "./prometheus.js";

// "Prometheus metrics on a separate loopback-only listener": the API's host and its auth do not
// apply here, so it is never reachable from another machine whatever `--host` says, and it
// serves nothing but `GET /metrics` (no session, user or path is in what it serves).

/** The only address the metrics listener binds. */
export const METRICS_HOST = "127.0.0.1";
export const METRICS_PATH = "/metrics";

export interface MetricsListener {
  /** `http://127.0.0.1:<port>/metrics`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `metrics` on 127.0.0.1:`port` (0 picks a free port). */
export async function startMetricsListener(metrics: ServerMetrics, port: number): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== METRICS_PATH) {
      res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served here\n");
      return;
    }
    metrics.exposition().then(
      (text) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { "content-type": "text/plain" }).end("metrics could not be collected\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, METRICS_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${METRICS_HOST}:${bound}${METRICS_PATH}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
