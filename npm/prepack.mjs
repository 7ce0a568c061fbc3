// Runs before `npm pack` and `npm publish` (package.json's `prepack`):
// refuses without a build (npm/build.sh makes pkg/), so no tarball ever
// lacks its WebAssembly, and copies the repository's license files in.
import { copyFileSync, existsSync } from "node:fs";

const here = (path) => new URL(path, import.meta.url);
const built = ["pkg/texpr_wasm.js", "pkg/texpr_wasm_bg.wasm"];
const missing = built.filter((f) => !existsSync(here(f)));
if (missing.length > 0) {
  console.error(`texpr: not built (no ${missing.join(", ")}): run npm/build.sh before packing`);
  process.exit(1);
}
for (const license of ["LICENSE-MIT", "LICENSE-APACHE"]) {
  copyFileSync(here(`../${license}`), here(license));
}
