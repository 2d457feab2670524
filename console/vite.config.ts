// The console's build: one page, its script and style with content hashes under
// assets/, written to dist/ (committed: the server embeds it, so a checkout serves the
// console without Node). The TypeScript client's browser entry is used from source.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  resolve: {
    alias: {
      "@flotilla/client/web": fileURLToPath(new URL("../client/typescript/src/web.ts", import.meta.url)),
    },
    // One copy of the runtime for the client's sources and the console.
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect"],
  },
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The server's CSP allows no inline script or style.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
