/**
 * Variables that change what every Node process does before its first line runs. The start-up
 * benchmarks time Node processes against `node -e 0` and must time them as a user's machine starts
 * them: `NODE_EXTRA_CA_CERTS` (set on machines behind a TLS proxy, this one among them) makes every
 * Node 20 process read and parse a certificate bundle at start, some 75 ms here, which `node -e 0`
 * pays too, so every ratio to it would shrink; `NODE_OPTIONS` can add flags, preloads or a profiler.
 * The model is fake-llm on plain HTTP: no certificate is needed.
 */
const NODE_START_VARIABLES = ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"] as const;

/** This process's environment without the variables that change a Node start, with `overrides`. */
export function nodeStartEnv(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides };
  for (const name of NODE_START_VARIABLES) delete env[name];
  return env;
}
