import { defineConfig } from "vite";

// The app is served by @penguin/server at "/" (see packages/server/src/web/serve-web.ts); its
// build is copied into the server's dist. JSX uses the automatic runtime of Vite's own transform,
// so no framework plugin is needed.
export default defineConfig({
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "react" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, target: "es2022" },
  server: {
    // `pnpm dev` against a server on the default port: the API and its cookie stay same-origin.
    proxy: { "/api": { target: "http://127.0.0.1:7364", changeOrigin: false } },
  },
});
