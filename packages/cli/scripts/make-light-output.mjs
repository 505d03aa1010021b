// After the build: writes what `penguin --version` and `penguin --help` print to
// `dist/light-output.json`, rendered from the built command tree (src/render-light-output.ts), so
// the binary prints them without loading it (src/launch/light-output.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderLightOutput } from "../dist/render-light-output.js";

const dist = join(import.meta.dirname, "..", "dist");
writeFileSync(join(dist, "light-output.json"), `${JSON.stringify(renderLightOutput(), null, 2)}\n`);
