// Type-checks each dashboard JSON as Grafana's published dashboard model
// (@grafana/grafana-foundation-sdk's dashboard.Dashboard, generated from
// Grafana's own schema): the JSON is written into a TypeScript file as an
// object literal assigned to that type, so TypeScript's excess-property and
// type checks apply to every field, nested panels and targets included.
// usage: node check.mjs OUT_DIR DASHBOARD.json...   (exit 1 on any error)
// OUT_DIR must be inside this folder: the generated files import the SDK
// from its node_modules.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ts = require("typescript");
const [outDir, ...files] = process.argv.slice(2);
// The SDK's types as the JSON a dashboard file holds: its enums are
// TypeScript enums, which a string in JSON ("thresholds") is not, so each
// enum becomes the union of its values; a panel target (the SDK's abstract
// Dataquery) is the Prometheus data source's query, the only one these
// dashboards use. Everything else (field names, required fields, types,
// nesting) is checked as the SDK declares it.
const PRELUDE = `import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import type { dataquery as PromQuery } from "@grafana/grafana-foundation-sdk/prometheus";
import type { Dataquery } from "@grafana/grafana-foundation-sdk/cog";
type AsJson<T> =
  T extends Dataquery ? AsJson<Omit<PromQuery, "_implementsDataqueryVariant">> :
  T extends string ? \`\${T}\` :
  T extends number ? number :
  T extends boolean ? boolean :
  T extends (infer U)[] ? AsJson<U>[] :
  T extends object ? { [K in keyof T]: AsJson<T[K]> } :
  T;
`;
fs.mkdirSync(outDir, { recursive: true });
const roots = files.map((f, i) => {
  const json = fs.readFileSync(f, "utf8");
  const out = path.join(outDir, `dashboard${i}.ts`);
  fs.writeFileSync(
    out,
    `// ${path.basename(f)}\n` + PRELUDE + `export const dashboard: AsJson<Dashboard> = ${json};\n`,
  );
  return out;
});
const program = ts.createProgram(roots, {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
  typeRoots: [],
  baseUrl: path.dirname(new URL(import.meta.url).pathname),
});
const diags = ts.getPreEmitDiagnostics(program);
for (const d of diags) {
  const where = d.file ? `${files[roots.indexOf(d.file.fileName)] ?? d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line}` : "";
  console.log(`${where}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n  ")}`);
}
console.log(`${files.length} dashboard(s), ${diags.length} problem(s)`);
process.exit(diags.length ? 1 : 0);
