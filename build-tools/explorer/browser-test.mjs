// The explorer page in headless Chromium, driven through the DevTools
// protocol over a pipe (no port, no npm package): loads fragments and
// checks what each panel renders against the xla-shape CLI's output for the
// same input, drops module files on the memory panel, measures the page,
// and with --screenshots DIR saves a picture of each panel.
//
// node browser-test.mjs PAGE.html XLA_SHAPE_BINARY [--screenshots DIR]
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const args = process.argv.slice(2);
const shotsAt = args.indexOf("--screenshots");
const shots = shotsAt >= 0 ? resolve(args.splice(shotsAt, 2)[1]) : null;
const [pagePath, cliPath] = args.map((a) => resolve(a));
if (!cliPath) {
  console.error("usage: node browser-test.mjs PAGE.html XLA_SHAPE_BINARY [--screenshots DIR]");
  process.exit(2);
}
const golden = fileURLToPath(new URL("../../tests/golden/peak_memory/attention/", import.meta.url));
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const work = mkdtempSync(join(tmpdir(), "explorer-test-"));
if (shots) mkdirSync(shots, { recursive: true });

/** The CLI's `--json` reply (stdout) for `argv`; it may exit 1 for an input it rejects. */
function cli(...argv) {
  let out;
  try {
    out = execFileSync(cliPath, [...argv, "--json"], { encoding: "utf8", maxBuffer: 1 << 28 });
  } catch (error) {
    out = error.stdout;
  }
  return JSON.parse(out);
}

// ---- the DevTools protocol over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-separated JSON)

const browser = spawn(chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage", `--user-data-dir=${join(work, "profile")}`, "--remote-debugging-pipe",
  "--window-size=1280,900", "about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let browserLog = "";
browser.stderr.on("data", (d) => (browserLog += d));
const toBrowser = browser.stdio[3];
let nextId = 0;
const waiting = new Map();
const listeners = [];
let buffered = "";
browser.stdio[4].on("data", (chunk) => {
  buffered += chunk.toString("utf8");
  let end;
  while ((end = buffered.indexOf("\0")) >= 0) {
    const message = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (message.id !== undefined && waiting.has(message.id)) {
      const { resolve: done, reject, method } = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else done(message.result);
    } else {
      for (const listen of listeners) listen(message);
    }
  }
});

function send(method, params = {}, sessionId) {
  const id = ++nextId;
  toBrowser.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
  return new Promise((done, reject) => waiting.set(id, { resolve: done, reject, method }));
}

let session;
const page = (method, params) => send(method, params, session);

/** The value of `expression` in the page (awaited). */
async function evaluate(expression) {
  const { result, exceptionDetails } = await page("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

async function until(expression, what, seconds = 30) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await evaluate(expression);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const requests = [];
async function open(fragment = "") {
  await page("Page.navigate", { url: "about:blank" });
  await page("Page.navigate", { url: `${pathToFileURL(pagePath)}${fragment}` });
  await until("window.explorer && (explorer.ready || explorer.failed)", "the page to start");
  const failed = await evaluate("explorer.failed || ''");
  if (failed) throw new Error(`the page did not start: ${failed}`);
}

const text = (id) => evaluate(`document.getElementById(${JSON.stringify(id)}).textContent`);
/** The cells of table `id`'s rows after its header. */
const rows = (id) => evaluate(`Array.from(document.getElementById(${JSON.stringify(id)}).rows).slice(1).map((r) => Array.from(r.cells, (c) => c.textContent))`);
const list = (values) => (values == null ? "none" : `[${values.join(",")}]`);
const fragment = (params) => `#${Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`;

// ---- checks

const results = [];
async function check(name, body) {
  try {
    await body();
    results.push([name, null]);
    console.log(`ok - ${name}`);
  } catch (error) {
    results.push([name, error]);
    console.log(`not ok - ${name}: ${error.message}`);
  }
}

function equal(actual, expected, what) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${what}: got ${a}, want ${e}`);
}

function below(value, limit, what) {
  if (!(value < limit)) throw new Error(`${what}: ${value} is not under ${limit}`);
}

async function screenshot(sectionId, name) {
  if (!shots) return;
  const box = await evaluate(`(() => { const r = document.getElementById(${JSON.stringify(sectionId)}).getBoundingClientRect(); return { x: 0, y: r.top + scrollY, width: document.documentElement.clientWidth, height: r.height }; })()`);
  const { data } = await page("Page.captureScreenshot", { format: "png", captureBeyondViewport: true, clip: { ...box, scale: 1 } });
  writeFileSync(join(shots, `explorer-${name}.png`), Buffer.from(data, "base64"));
}

/** Drops files (name → content) on the drop zone as a person's drag would, through a DataTransfer. */
function drop(files) {
  return evaluate(`(() => {
    const transfer = new DataTransfer();
    for (const [name, content] of Object.entries(${JSON.stringify(files)})) transfer.items.add(new File([content], name));
    document.getElementById("drop-zone").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  })()`);
}

/** Chooses the file `path` in the file input, as a person's file dialog would. */
async function choose(path) {
  await evaluate("explorer.timings.memory = undefined");
  const { root } = await page("DOM.getDocument", {});
  const { nodeId } = await page("DOM.querySelector", { nodeId: root.nodeId, selector: "#file-input" });
  await page("DOM.setFileInputFiles", { nodeId, files: [path] });
}

/** Checks the memory panel against `hlo ... --json` of the CLI. */
async function checkMemory(expected) {
  await until("explorer.timings.memory", "the module to be read", 120);
  equal(await text("memory-error"), "", "the error line");
  equal(Number(await evaluate(`document.getElementById("memory-peak").dataset.peakBytes`)), expected.peak_bytes, "peak bytes");
  const shown = await rows("memory-buffers");
  equal(shown.map((r) => [r[0], Number(r[4])]).sort(), expected.live_at_peak.map((b) => [b.name, b.bytes]).sort(), "the buffers live at the peak");
  if (expected.groups) {
    const sources = await rows("memory-sources");
    equal(sources.map((r) => [r[0].startsWith("(no source") ? null : r[0], Number(r[1]), Number(r[2])]),
      expected.groups.source.map((g) => [g.key, g.bytes, g.buffers]), "the bytes at the peak by source line");
  }
  const flame = await evaluate(`document.querySelector("#memory-flame svg title").textContent`);
  if (!flame.startsWith("peak memory by Python stack")) throw new Error(`the flame graph's title: ${flame}`);
  const root = await evaluate(`Array.from(document.querySelectorAll("#memory-flame rect title")).map((t) => t.textContent).find((t) => t.startsWith("all: peak"))`);
  if (!root || !root.includes(`(${expected.peak_bytes} bytes, 100.0% of the peak)`)) throw new Error(`the flame graph's root: ${root}`);
}

async function main() {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  ({ sessionId: session } = await send("Target.attachToTarget", { targetId, flatten: true }));
  await page("Page.enable");
  await page("Runtime.enable");
  await page("Network.enable");
  await page("Emulation.setDeviceMetricsOverride", { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false });
  listeners.push((m) => {
    if (m.method === "Network.requestWillBeSent") requests.push(m.params.request.url);
  });

  await check("the WebAssembly is under 2 MB compressed", async () => {
    const html = readFileSync(pagePath, "utf8");
    const base64 = html.match(/const WASM_BASE64 = "([^"]*)"/)[1];
    const size = gzipSync(Buffer.from(base64, "base64"), { level: 9 }).length;
    console.log(`# WebAssembly: ${Buffer.from(base64, "base64").length} bytes, ${size} gzipped; page ${html.length} bytes`);
    below(size, 2 << 20, "gzipped bytes");
  });

  const tiled = "f32[3,5]{0,1:T(2,2)}";
  let firstShape = Infinity;
  await check("shape: memory order, sizes and strides as the CLI's", async () => {
    // Three loads: the best tells the page's speed on a machine busy with other work.
    for (let load = 0; load < 3; load++) {
      await open(fragment({ shape: tiled }));
      const timings = await evaluate("explorer.timings");
      firstShape = Math.min(firstShape, timings.firstShape);
      console.log(`# first shape rendered ${timings.firstShape.toFixed(0)} ms after navigation start (WebAssembly ready at ${timings.wasm.toFixed(0)} ms)`);
    }
    equal(await evaluate(`document.getElementById("shape-input").value`), tiled, "the shape read from the fragment");
    const order = cli("order", tiled).order.map((i) => (i === null ? "·" : i)).join(" ");
    equal(await text("shape-order"), order, "memory order");
    const explained = cli("explain", tiled);
    const facts = Object.fromEntries(await evaluate(`Array.from(document.getElementById("shape-facts").rows, (r) => [r.cells[0].textContent, r.cells[1].textContent])`));
    equal(Number(facts["buffer size"]), explained.buffer_size, "buffer size");
    equal(facts["strides"], list(explained.strides), "strides");
    equal(Number(facts["byte size"]), explained.byte_size, "byte size");
    await until(`document.querySelector("#shape-picture svg")`, "the picture");
  });

  await check("shape: first render under 300 ms after load", async () => {
    below(firstShape, 300, "the best of three loads, milliseconds");
  });

  await check("shape: typing redraws, and the fragment follows", async () => {
    await evaluate(`(() => { const input = document.getElementById("shape-input"); input.value = "bf16[4,6]{0,1}"; input.dispatchEvent(new Event("input")); })()`);
    equal(await text("shape-order"), cli("order", "bf16[4,6]{0,1}").order.join(" "), "memory order");
    equal(decodeURIComponent(await evaluate("location.hash")), "#shape=bf16[4,6]{0,1}&sharding={devices=[1,2]<=[2]}", "the fragment");
    await screenshot("shape-panel", "shape");
  });

  await check("shape: XLA's message for an invalid shape", async () => {
    const bad = "f32[2,3]{0,1,2}";
    await open(fragment({ shape: bad }));
    equal(await text("shape-error"), cli("explain", bad).error, "the message");
  });

  const sharded = { shape: "f32[6,8]", sharding: "{devices=[2,2]<=[4]}", to: "{devices=[4,1]<=[4]}" };
  await check("sharding: each device's box and bytes as the CLI's", async () => {
    await open(fragment(sharded));
    const report = cli("shard", sharded.shape, sharded.sharding);
    equal(await rows("sharding-devices"), report.devices.map((d) => [String(d.device), list(d.tile), list(d.offsets), list(d.limits), String(d.bytes)]), "the devices");
    await until(`document.querySelector("#sharding-picture svg")`, "the picture");
  });

  await check("sharding: a reshard's pieces as the CLI's", async () => {
    const plan = cli("reshard", sharded.shape, sharded.sharding, sharded.to);
    equal(await rows("reshard-pieces"), plan.pieces.map((p) => [String(p.from), String(p.to), list(p.offsets), list(p.limits), String(p.bytes)]), "the pieces");
    const summary = await text("reshard-summary");
    if (!summary.startsWith(`${plan.bytes_moved} bytes move between devices, ${plan.bytes_kept} bytes stay`)) throw new Error(`summary: ${summary}`);
  });

  await check("sharding: the parser's message for a bad sharding", async () => {
    await open(fragment({ shape: "f32[4]", sharding: "{devices=[2}" }));
    equal(await text("sharding-error"), cli("shard", "f32[4]", "{devices=[2}").error, "the message");
  });

  // jax 0.12's lowered.as_text() of jit(f, in_shardings=NamedSharding(Mesh(devices.reshape(2, 4), ("a", "b")), P("b", "a"))).
  const mesh = 'sdy.mesh @mesh = <["a"=2, "b"=4]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 4 : i64}]}}';
  const shardy = { shape: "f32[8,16]", format: "sdy", sharding: '#sdy.sharding<@mesh, [{"b"}, {"a"}]>', mesh, to: '#sdy.sharding<@mesh, [{"a", "b"}, {}]>' };
  await check("sharding: a Shardy sharding over its mesh as the CLI's", async () => {
    await open(fragment(shardy));
    equal(await evaluate(`document.getElementById("mesh-row").hidden`), false, "the mesh field shown");
    const converted = cli("sharding", "--mesh", mesh, shardy.sharding).sharding;
    equal(await text("sharding-converted"), `as XLA's HloSharding: ${converted}`, "the HloSharding");
    const report = cli("shard", shardy.shape, shardy.sharding, "--mesh", mesh);
    equal(await rows("sharding-devices"), report.devices.map((d) => [String(d.device), list(d.tile), list(d.offsets), list(d.limits), String(d.bytes)]), "the devices");
    const axes = "mesh a=2 \u00b7 b=4";
    if (!cli("draw", shardy.shape, "--sharding", shardy.sharding, "--mesh", mesh).svg.includes(axes)) throw new Error("the CLI's picture names no axes");
    const picture = await until(`document.querySelector("#sharding-picture svg")?.textContent`, "the picture");
    if (!picture.includes(axes)) throw new Error(`the picture does not name the mesh's axes: ${picture.slice(0, 200)}`);
    const plan = cli("reshard", shardy.shape, shardy.sharding, shardy.to, "--mesh", mesh);
    equal(await rows("reshard-pieces"), plan.pieces.map((p) => [String(p.from), String(p.to), list(p.offsets), list(p.limits), String(p.bytes)]), "the reshard's pieces");
    await screenshot("sharding-panel", "sharding");
  });

  await check("sharding: the fragment carries the format and the mesh", async () => {
    const smaller = '<["a"=4, "b"=2]>';
    await evaluate(`(() => { const input = document.getElementById("mesh-input"); input.value = ${JSON.stringify(smaller)}; input.dispatchEvent(new Event("input")); })()`);
    const params = new URLSearchParams((await evaluate("location.hash")).slice(1));
    equal([params.get("format"), params.get("mesh"), params.get("sharding")], ["sdy", smaller, shardy.sharding], "the fragment's format, mesh and sharding");
    const report = cli("shard", shardy.shape, shardy.sharding, "--mesh", smaller);
    equal(await rows("sharding-devices"), report.devices.map((d) => [String(d.device), list(d.tile), list(d.offsets), list(d.limits), String(d.bytes)]), "the devices over the new mesh");
    await evaluate(`(() => { const select = document.getElementById("sharding-format"); select.value = "hlo"; select.dispatchEvent(new Event("change")); })()`);
    equal(await evaluate(`document.getElementById("mesh-row").hidden`), true, "the mesh field hidden for HloSharding");
    const hlo = new URLSearchParams((await evaluate("location.hash")).slice(1));
    equal([hlo.has("format"), hlo.has("mesh")], [false, false], "format and mesh in an HloSharding fragment");
  });

  await check("sharding: choosing Shardy gives an example over its mesh", async () => {
    await open();
    await evaluate(`(() => { const select = document.getElementById("sharding-format"); select.value = "sdy"; select.dispatchEvent(new Event("change")); })()`);
    const [shape, sharding, meshText] = await evaluate(`["shape-input", "sharding-input", "mesh-input"].map((id) => document.getElementById(id).value)`);
    if (!sharding.startsWith("#sdy.sharding<@mesh") || !meshText.startsWith("sdy.mesh @mesh")) throw new Error(`the example: ${sharding} over ${meshText}`);
    equal(await text("sharding-error"), "", "the error line");
    const report = cli("shard", shape, sharding, "--mesh", meshText);
    equal(await rows("sharding-devices"), report.devices.map((d) => [String(d.device), list(d.tile), list(d.offsets), list(d.limits), String(d.bytes)]), "the devices");
  });

  await check("sharding: Shardy's verifier message as the CLI's", async () => {
    const twice = '#sdy.sharding<@mesh, [{"a"}, {"a"}]>';
    await open(fragment({ shape: "f32[8,16]", format: "sdy", sharding: twice, mesh }));
    const expected = cli("shard", "f32[8,16]", twice, "--mesh", mesh).error;
    equal(expected, 'duplicate axis ref: "a"', "the CLI's message");
    equal(await text("sharding-error"), expected, "the message");
  });

  await check("memory: a dropped module's peak and buffers as the CLI's", async () => {
    await open();
    await drop({ "compiled.txt": readFileSync(join(golden, "compiled.txt"), "utf8") });
    await checkMemory(cli("hlo", join(golden, "compiled.txt"), "--peak", "--by", "source"));
    equal(await evaluate(`document.getElementById("memory-warnings").hidden`), true, "no warning line");
  });

  await check("memory: hovering a buffer of the timeline names it", async () => {
    const at = await evaluate(`(() => { const rect = Array.from(document.querySelectorAll("#memory-timeline rect")).find((r) => r.querySelector("title")); rect.scrollIntoView({ block: "center" }); const b = rect.getBoundingClientRect(); return { x: b.left + b.width / 2, y: b.top + b.height / 2, title: rect.querySelector("title").textContent }; })()`);
    await page("Input.dispatchMouseEvent", { type: "mouseMoved", x: at.x, y: at.y });
    await until(`!document.getElementById("memory-tip").hidden`, "the tip");
    equal(await text("memory-tip"), at.title, "the tip");
    await evaluate(`(() => { const s = document.getElementById("buffer-search"); s.value = "args"; s.dispatchEvent(new Event("input")); })()`);
    const names = (await rows("memory-buffers")).map((r) => r[0]);
    if (!names.length || !names.every((n) => n.includes("args"))) throw new Error(`searched rows: ${names}`);
    await evaluate(`(() => { const s = document.getElementById("buffer-search"); s.value = ""; s.dispatchEvent(new Event("input")); })()`);
    await page("Input.dispatchMouseEvent", { type: "mouseMoved", x: at.x, y: at.y });
    await screenshot("memory-panel", "memory");
  });

  await check("memory: an HloProto dump chosen in the file dialog", async () => {
    const dump = join(golden, "after_optimizations.hlo.pb");
    await choose(dump);
    await checkMemory(cli("hlo", dump, "--by", "source"));
  });

  await check("memory: a 10 MB module's timeline under 3 s", async () => {
    const module = join(work, "ten_megabytes.txt");
    writeFileSync(module, tenMegabyteModule());
    await choose(module);
    // The page answers while the worker reads: the longest wait for an answer.
    let longest = 0;
    while (!(await evaluate("Boolean(explorer.timings.memory)"))) {
      const asked = performance.now();
      await evaluate("1");
      longest = Math.max(longest, performance.now() - asked);
      await new Promise((r) => setTimeout(r, 10));
    }
    await checkMemory(cli("hlo", module, "--peak"));
    const timings = await evaluate("explorer.timings.memory");
    console.log(`# 10 MB module: read in the worker in ${timings.read.toFixed(0)} ms, shown ${timings.total.toFixed(0)} ms after it was chosen; the page answered within ${longest.toFixed(0)} ms meanwhile`);
    below(timings.total, 3000, "milliseconds");
    below(longest, 500, "the page's longest wait while the worker read, milliseconds");
  });

  await check("memory: an opcode XLA does not know warned of as the CLI does", async () => {
    const module = "HloModule m, is_scheduled=true\nENTRY e {\n  p = f32[256] parameter(0)\n  ROOT n = f32[256] frobnicate(p)\n}\n";
    const file = join(work, "frobnicate.txt");
    writeFileSync(file, module);
    const expected = cli("hlo", file, "--peak");
    equal(expected.warnings.length, 1, "the CLI's warnings");
    await open();
    await drop({ "frobnicate.txt": module });
    await checkMemory(expected);
    equal(await text("memory-warnings"), expected.warnings.map((w) => `warning: ${w}`).join("\n"), "the warning line");
  });

  await check("nothing is fetched from the network", async () => {
    const outside = requests.filter((url) => !/^(file|data|blob|about):/.test(url));
    equal(outside, [], "requests");
  });
}

/** A scheduled module of about 10 MB: layers of elementwise ops over two parameters. */
function tenMegabyteModule() {
  const lines = ["HloModule ten_megabytes, is_scheduled=true", "", "ENTRY main {",
    "  p0 = f32[256,128]{1,0} parameter(0)", "  p1 = f32[256,128]{1,0} parameter(1)"];
  let previous = "p0";
  let size = 0;
  for (let i = 0; size < 10 << 20; i++) {
    const op = ["add", "multiply", "subtract", "maximum"][i % 4];
    const line = `  value.${i} = f32[256,128]{1,0} ${op}(${previous}, p1), metadata={op_name="jit(f)/layer_${i}/${op}" source_file="model.py" source_line=${i}}`;
    lines.push(line);
    size += line.length + 1;
    previous = `value.${i}`;
  }
  lines.push(`  ROOT out = f32[256,128]{1,0} negate(${previous})`, "}", "");
  return lines.join("\n");
}

let status = 0;
try {
  await main();
} catch (error) {
  console.log(`not ok - the browser: ${error.message}\n${browserLog.slice(-2000)}`);
  results.push(["the browser", error]);
}
const failed = results.filter(([, error]) => error).length;
console.log(`explorer: ${results.length - failed} passed, ${failed} failed`);
if (failed) status = 1;
// The profile is removed once the browser has stopped writing it.
const exited = new Promise((done) => browser.once("exit", done));
browser.kill();
await Promise.race([exited, new Promise((done) => setTimeout(done, 10000))]);
try {
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
} catch (error) {
  console.log(`# could not remove ${work}: ${error.message}`);
}
process.exit(status);
