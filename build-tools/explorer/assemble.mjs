// Assembles the explorer's single page: crates/explorer/web/index.html with
// its style, wasm-bindgen's glue, the WebAssembly (base64) and the page's
// script inlined, so that the page works opened from disk (a page opened
// from disk may not fetch its WebAssembly or load a worker from a file).
//
// node assemble.mjs GLUE.js MODULE.wasm OUT.html
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [glueFile, wasmFile, outFile] = process.argv.slice(2);
if (!outFile) {
  console.error("usage: node assemble.mjs GLUE.js MODULE.wasm OUT.html");
  process.exit(2);
}
const web = (name) => readFileSync(fileURLToPath(new URL(`../../crates/explorer/web/${name}`, import.meta.url)), "utf8");
// Inside <script>, `</script` would end the element: written `<\/script`.
const inline = (text) => text.replace(/<\/(script)/gi, "<\\/$1");
const glue = readFileSync(glueFile, "utf8");
const wasm = readFileSync(wasmFile).toString("base64");
const app = [
  `const WASM_BASE64 = "${wasm}";`,
  `const WORKER_SOURCE = ${JSON.stringify(`${glue}\n${web("worker.js")}`)};`,
  web("explorer.js"),
].join("\n");
let page = web("index.html");
for (const [marker, text] of [["/*CSS*/", web("explorer.css")], ["/*GLUE*/", glue], ["/*APP*/", app]]) {
  const at = page.indexOf(marker);
  if (at < 0) throw new Error(`index.html has no ${marker}`);
  page = page.slice(0, at) + inline(text) + page.slice(at + marker.length);
}
writeFileSync(outFile, page);
console.log(`${outFile}: ${page.length} bytes`);
