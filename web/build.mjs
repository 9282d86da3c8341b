// Builds the page into dist/: the bundled, minified script (our TypeScript and
// its one library, @msgpack/msgpack), the style sheet, the HTML shell and the
// variants' rules cards (seeds/rules/, the same text the terminal client ships).
// dist/ is generated: git ignores it and the race server serves it.
import { build } from "esbuild";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "dist");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

await build({
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  outfile: join(out, "assets", "app.js"),
  legalComments: "none",
  logLevel: "warning",
});
await build({
  entryPoints: [join(here, "static", "style.css")],
  bundle: true,
  minify: true,
  outfile: join(out, "assets", "style.css"),
  logLevel: "warning",
});
cpSync(join(here, "static", "index.html"), join(out, "index.html"));
cpSync(join(here, "static", "icon.svg"), join(out, "assets", "icon.svg"));

const rulesDir = join(here, "..", "seeds", "rules");
const cards = {};
for (const name of readdirSync(rulesDir).sort()) {
  if (name.endsWith(".md") && name !== "README.md") {
    cards[name.slice(0, -3)] = readFileSync(join(rulesDir, name), "utf8");
  }
}
writeFileSync(join(out, "assets", "rules.json"), JSON.stringify(cards));
