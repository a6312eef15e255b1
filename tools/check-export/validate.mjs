// Validate a corpus with ajv against the harness's bundled schemas, and
// count where its verdict differs from the harness validator's.
//
// Usage: node validate.mjs BUNDLE STANDALONE_DIR CORPUS_FILE...
//
// BUNDLE is `harness schemas --bundle`; STANDALONE_DIR holds `harness
// schemas NAME` as NAME.json for every NAME. Each CORPUS_FILE line is
// {"schema": NAME, "valid": the harness validator's verdict, "doc": the
// document}. Every document is validated twice, against the bundle's
// definition and against the standalone schema; any verdict that differs
// from the harness's is printed. Exit status 1 when one differs or a schema
// does not compile.
//
// ajv runs with its defaults (strict mode), told three things a draft-07
// validator must be told: the harness's annotation keywords (x-spec-fields,
// x-spec-oneof, x-spec-types, x-spec-pattern) are annotations; the two
// standard formats the schemas use, uri and date-time, are checked
// (ajv-formats), as the harness validator checks them; the harness's own
// formats (party-id, price, ...) are annotations.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import Ajv from "ajv";
import addFormats from "ajv-formats";

function newAjv(formats) {
  // strictTypes is "log" by default: the if/then rules name properties
  // without "type": "object", which draft-07 allows; keep the log quiet.
  const ajv = new Ajv({ strictTypes: false, allErrors: false });
  ajv.addVocabulary(["x-spec-fields", "x-spec-oneof", "x-spec-types", "x-spec-pattern"]);
  addFormats(ajv, ["uri", "date-time"]);
  for (const f of formats) {
    if (f !== "uri" && f !== "date-time") ajv.addFormat(f, true);
  }
  return ajv;
}

// formatsOf lists every format a schema names.
function formatsOf(schema, out = new Set()) {
  if (Array.isArray(schema)) {
    schema.forEach((s) => formatsOf(s, out));
  } else if (schema && typeof schema === "object") {
    for (const [k, v] of Object.entries(schema)) {
      if (k === "format" && typeof v === "string") out.add(v);
      else formatsOf(v, out);
    }
  }
  return out;
}

async function main(argv) {
  if (argv.length < 3) {
    console.error("usage: node validate.mjs BUNDLE STANDALONE_DIR CORPUS_FILE...");
    return 2;
  }
  const [bundlePath, standaloneDir, ...corpusFiles] = argv;
  const bundle = JSON.parse(fs.readFileSync(bundlePath, "utf8"));
  const formats = formatsOf(bundle);
  const ajv = newAjv(formats);
  ajv.addSchema(bundle);
  const standaloneAjv = newAjv(formats);
  const byBundle = new Map();
  const standalone = new Map();
  const validators = (name) => {
    if (!byBundle.has(name)) {
      const v = ajv.getSchema(`${bundle.$id}#/definitions/${name}`);
      if (!v) throw new Error(`the bundle has no definition ${name}`);
      byBundle.set(name, v);
      const schema = JSON.parse(fs.readFileSync(path.join(standaloneDir, `${name}.json`), "utf8"));
      standalone.set(name, standaloneAjv.compile(schema));
    }
    return [byBundle.get(name), standalone.get(name)];
  };

  let documents = 0;
  let differences = 0;
  for (const file of corpusFiles) {
    const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    let number = 0;
    for await (const line of lines) {
      number++;
      const c = JSON.parse(line);
      documents++;
      const [b, s] = validators(c.schema);
      for (const [label, v] of [["bundle", b], ["standalone", s]]) {
        const valid = v(c.doc);
        if (valid !== c.valid) {
          differences++;
          console.log(`ajv (${label}): ${path.basename(file)}:${number}: ${c.schema}: valid=${valid}, harness valid=${c.valid}: ` +
            `${JSON.stringify(c.doc).slice(0, 160)} ${valid ? "" : ajv.errorsText(v.errors)}`);
        }
      }
    }
  }
  const version = JSON.parse(fs.readFileSync(new URL("./node_modules/ajv/package.json", import.meta.url), "utf8")).version;
  console.log(`ajv ${version}: ${documents} documents, ${byBundle.size} schemas, bundle and standalone: ` +
    `${differences} differences from harness validate`);
  return differences ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
