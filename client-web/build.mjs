// Builds the client into dist/: app.js (bundled ES module), style.css (the shell's styles),
// app.css (the styles the game modules import: games/<game>/style.css) and index.html.
// `node build.mjs --watch` rebuilds on change (for development).
import { build, context } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";

const watch = process.argv.includes("--watch");
const options = {
  entryPoints: { app: "src/main.js", style: "src/style.css" },
  bundle: true,
  format: "esm",
  target: ["es2022"],
  outdir: "dist",
  minify: !watch,
  sourcemap: true,
  logLevel: "warning",
};

await rm("dist", { recursive: true, force: true });
await mkdir("dist", { recursive: true });
await copyFile("src/index.html", "dist/index.html");
await copyFile("src/favicon.svg", "dist/favicon.svg");
if (watch) {
  const ctx = await context(options);
  await ctx.watch();
  console.log("watching src/ …");
} else {
  await build(options);
}
