import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

// The gateway serves index.html at / and every file of dist under /console/, so the client's
// own routes (/console/bots/...) can never shadow an API route.
export default defineConfig({
  base: "/console/",
  plugins: [preact()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Hashed file names: the gateway serves them immutable.
    assetsDir: "assets",
    target: "es2022",
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev -w console`: API calls go to a platform started with `npm start`.
    proxy: Object.fromEntries(
      ["/bots", "/promotion", "/kill-switches", "/kill-switch", "/auth", "/datasets", "/paper"].map(
        (p) => [p, "http://127.0.0.1:8080"],
      ),
    ),
  },
});
