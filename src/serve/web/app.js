// app.js -- zerosim serve's page: the form into request JSON, POST /api/v1/call (compare and
// estimate), the table and SVG charts from their answers, the share link, the report
// download and the equivalent command line. No libraries; no inline script (the CSP forbids it).
"use strict";

// The settings: form field id (also the request key and the flag), its default, and whether
// it is a whole number. A setting at its default is left out of the request, the link and
// the command line, as the command line would leave it out.
const FIELDS = [
  ["model", null, false], ["hardware", null, false], ["gpus", "8", true],
  ["framework", "generic", false], ["strategy", "all", false], ["tp", "1", true], ["pp", "1", true],
  ["micro-batch", "1", true], ["seq-len", "2048", true], ["grad-accum", "1", true],
  ["precision", "bf16", false], ["checkpointing", "none", false], ["finetune", "full", false],
  ["offload-optimizer", "none", false], ["offload-params", "none", false], ["tokens", "", false],
];
const ALWAYS = new Set(["model", "hardware", "gpus"]);
// Uploads: the textarea, its file input, the "files" key and the flag and file name the
// command line would take.
const UPLOADS = [
  ["model-text", "model-file", "model", "--model", "config.json"],
  ["ds-text", "ds-file", "deepspeed", "--deepspeed", "ds_config.json"],
  ["launch-text", "launch-file", "config", "--config", "config.yaml"],
];
const GIB = 1024 * 1024 * 1024;
const $ = (id) => document.getElementById(id);

// The settings as given, in FIELDS order: [key, value] for each one not at its default.
function settings() {
  const out = [];
  for (const [key, def, whole] of FIELDS) {
    const v = $(key).value.trim();
    if (v === "" || (v === def && !ALWAYS.has(key))) continue;
    out.push([key, whole && /^[0-9]+$/.test(v) ? Number(v) : v]);
  }
  return out;
}

// The uploaded contents ({files key: text}) and the names the command line gives them.
function uploads() {
  const files = {}, names = {};
  for (const [text, input, key, , name] of UPLOADS) {
    const t = $(text).value;
    if (t.trim() === "") continue;
    files[key] = t;
    const f = $(input).files;
    names[key] = f && f.length ? f[0].name : name;
  }
  return { files, names };
}

// The request zs_call takes for command (uploads in "files", which the server writes to
// temporary files and names in the request).
function request(command) {
  const req = { command };
  for (const [k, v] of settings()) req[k] = v;
  const { files } = uploads();
  if (Object.keys(files).length) {
    req.files = files;
    if (files.model) delete req.model;
  }
  return req;
}

// A word as a POSIX shell reads it back.
function shellWord(s) {
  s = String(s);
  return /^[A-Za-z0-9_.,:\/=+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

function commandLine() {
  const { files, names } = uploads();
  const words = ["zerosim", "compare"];
  for (const [k, v] of settings()) {
    if (k === "model" && files.model) continue;
    words.push("--" + k, shellWord(v));
  }
  for (const [, , key, flag] of UPLOADS) if (files[key]) words.push(flag, shellWord(names[key]));
  return words.join(" ");
}

function shareLink() {
  const p = new URLSearchParams();
  for (const [k, v] of settings()) p.set(k, String(v));
  return location.origin + location.pathname + "#" + p.toString();
}

// Set the form from a share link's hash; unknown keys are ignored, so is a model or hardware
// name the catalog lacks (the request then names it and the answer says why).
function restore(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  for (const [key, def] of FIELDS) {
    const el = $(key);
    const v = p.has(key) ? p.get(key) : def;
    if (v === null) continue;
    if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === v)) {
      const o = document.createElement("option");
      o.value = o.textContent = v;
      el.appendChild(o);
    }
    el.value = v;
  }
}

async function call(req, signal) {
  const r = await fetch("/api/v1/call", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req), signal,
  });
  const text = await r.text();
  let json;
  try { json = JSON.parse(text); } catch (e) { throw new Error("HTTP " + r.status + ": not JSON"); }
  return json;
}

function el(tag, attrs, text) {
  const svg = ["svg", "rect", "line", "text", "title", "g"].includes(tag);
  const e = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const gib = (b) => (b / GIB).toFixed(2) + " GiB";
const label = (r) => r.strategy + (r.framework && r.framework !== "generic" ? " (" + r.framework + ")" : "");
const keyOf = (r) => r.strategy + "/" + r.framework;

function cell(tr, text, v, cls) {
  const td = el("td", v === undefined ? {} : { "data-v": String(v) }, text);
  if (cls) td.className = cls;
  tr.appendChild(td);
}

function renderTable(d) {
  const body = $("compare").tBodies[0];
  body.replaceChildren();
  for (const r of d.results) {
    const tr = el("tr", { "data-key": keyOf(r) });
    cell(tr, label(r));
    if (!r.applicable) {
      cell(tr, "n/a");
      for (let i = 0; i < 6; i++) cell(tr, "");
      body.appendChild(tr);
      continue;
    }
    cell(tr, r.fits ? "yes" : "no", r.fits, r.fits ? "yes" : "no");
    cell(tr, gib(r.memory_bytes.total), r.memory_bytes.total);
    cell(tr, String(r.max_micro_batch), r.max_micro_batch);
    cell(tr, String(r.max_micro_batch_with_recompute), r.max_micro_batch_with_recompute);
    cell(tr, r.min_gpus ? String(r.min_gpus) : "none", r.min_gpus);
    const b = r.best;
    cell(tr, b ? b.gpus + " GPUs, tp " + b.tp + " pp " + b.pp + " mb " + b.micro_batch + ": " +
      Math.round(b.tokens_per_second).toLocaleString("en-US") + " tokens/s" : "none",
      b ? b.tokens_per_second : "");
    const c = r.cost && r.cost.dollars;
    cell(tr, c === null || c === undefined ? "—" : "$" + Math.round(c).toLocaleString("en-US") + " (" +
      Math.round(r.cost.gpu_hours).toLocaleString("en-US") + " GPU-h)", c === null ? "" : c);
    body.appendChild(tr);
  }
}

// Horizontal stacked bars, one per row: rows [{label, segs: [[name, value]...], note}], a
// vertical line at limit when given, values formatted by fmt.
function barChart(svg, rows, names, limit, limitText, fmt) {
  const W = 860, left = 170, right = 170, top = 28, h = 20, gap = 8;
  const H = top + rows.length * (h + gap) + (limit ? 24 : 10);
  svg.replaceChildren();
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  // The scale ends past the largest bar, or at 3 x the limit: longer bars are cut there (their
  // totals still written), so the HBM line stays readable beside a 1 TiB DDP bar.
  const largest = Math.max(...rows.map((r) => r.segs.reduce((a, s) => a + s[1], 0)), 0);
  const max = (limit ? Math.min(Math.max(largest, limit * 1.08), limit * 3) : largest) || 1;
  const sx = (v) => (Math.min(v, max) / max) * (W - left - right);
  let lx = left;
  names.forEach((n, i) => {
    svg.appendChild(el("rect", { x: lx, y: 6, width: 10, height: 10, class: "s" + i }));
    svg.appendChild(el("text", { x: lx + 14, y: 15, class: "swatch-label" }, n));
    lx += 24 + n.length * 6.5;
  });
  rows.forEach((r, k) => {
    const y = top + k * (h + gap);
    svg.appendChild(el("text", { x: 4, y: y + 14 }, r.label));
    let total = 0;
    r.segs.forEach(([n, v], i) => {
      if (!(v > 0)) return;
      const x0 = left + sx(total), x1 = left + sx(total + v);
      total += v;
      if (x1 <= x0) return;
      const rect = el("rect", { x: x0, y, width: Math.max(x1 - x0, 0.5), height: h, class: "s" + i });
      rect.appendChild(el("title", {}, r.label + ": " + n + " " + fmt(v)));
      svg.appendChild(rect);
    });
    const cut = total > max ? " \u00bb" : "";
    svg.appendChild(el("text", { x: left + sx(total) + 4, y: y + 14, "data-total": String(total) },
      cut + fmt(total) + (r.note || "")));
  });
  if (limit) {
    const x = left + sx(limit);
    svg.appendChild(el("line", { x1: x, x2: x, y1: top - 4, y2: H - 18, class: "hbm" }));
    svg.appendChild(el("text", { x: x + 4, y: H - 6 }, limitText));
  }
}

function renderMemory(d) {
  const rows = d.results.filter((r) => r.applicable).map((r) => {
    const m = r.memory_bytes;
    const acts = m.activations + m.logits;
    const other = m.total - m.parameters - m.gradients - m.optimizer_states - acts;
    return { label: label(r), segs: [["parameters", m.parameters], ["gradients", m.gradients],
      ["optimizer states", m.optimizer_states], ["activations", acts], ["buffers and overhead", other]],
      note: r.fits ? "" : " (does not fit)" };
  });
  const hbm = d.hardware.hbm_bytes;
  barChart($("memory-chart"), rows, ["parameters", "gradients", "optimizer states", "activations",
    "buffers and overhead"], hbm, "HBM " + gib(hbm), gib);
}

function renderTime(e) {
  const names = ["compute", "communication (exposed)", "optimizer", "pipeline bubble", "offload", "framework"];
  const keys = ["compute", "communication_exposed", "optimizer", "bubble", "offload", "framework_overhead"];
  const rows = e.results.filter((r) => r.applicable && r.step_time_seconds).map((r) => ({
    label: r.label || label(r), segs: keys.map((k, i) => [names[i], r.step_time_seconds[k] || 0]),
    note: r.fits ? "" : " (does not fit)",
  }));
  barChart($("time-chart"), rows, names, 0, "", (s) => s.toFixed(3) + " s");
}

function status(text, state) {
  const s = $("status");
  s.textContent = text;
  s.dataset.state = state;
  s.className = state === "error" ? "error" : "";
}

let seq = 0, inflight = null, timer = null;

// Recompute: compare and estimate for the settings now, the answers of older requests dropped.
async function update() {
  const req = request("compare"), my = ++seq, key = JSON.stringify(req);
  if (inflight) inflight.abort();
  inflight = new AbortController();
  $("cli").textContent = commandLine();
  $("share").value = shareLink();
  history.replaceState(null, "", "#" + $("share").value.split("#")[1]);
  status("computing…", "busy");
  try {
    const [d, e] = await Promise.all([call(req, inflight.signal), call(request("estimate"), inflight.signal)]);
    if (my !== seq) return;
    if (d.error) {
      $("compare").tBodies[0].replaceChildren();
      $("memory-chart").replaceChildren();
      $("time-chart").replaceChildren();
      status(d.error.message, "error");
      $("status").dataset.request = key;
      return;
    }
    renderTable(d);
    renderMemory(d);
    if (!e.error) renderTime(e); else $("time-chart").replaceChildren();
    status(d.model.name + " (" + (d.model.parameters / 1e9).toFixed(2) + "B parameters) on " + d.training.gpus +
      " x " + d.hardware.gpu + ", " + gib(d.hardware.hbm_bytes) + " each", "done");
    $("status").dataset.request = key;
  } catch (err) {
    if (err.name !== "AbortError" && my === seq) status(String(err.message || err), "error");
  }
}

// The report page from POST /api/v1/report, saved as the attachment it is sent as.
async function download() {
  const r = await fetch("/api/v1/report", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request("report")),
  });
  if (!r.ok) {
    const e = await r.json().catch(() => ({}));
    status(e.error ? e.error.message : "report: HTTP " + r.status, "error");
    return;
  }
  const url = URL.createObjectURL(await r.blob());
  const a = el("a", { href: url, download: "zerosim-report.html" });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function later() {
  clearTimeout(timer);
  timer = setTimeout(update, 150);
}

function fill(select, names, pick) {
  for (const n of names) select.appendChild(el("option", { value: n }, n));
  select.value = names.includes(pick) ? pick : names[0];
}

async function copy(text) {
  try { await navigator.clipboard.writeText(text); } catch (e) { /* not allowed here: select it instead */ }
}

async function start() {
  const [m, h] = await Promise.all([fetch("/api/v1/models"), fetch("/api/v1/hardware")].map((p) =>
    p.then((r) => r.json())));
  fill($("model"), m.models || [], "llama-2-7b");
  fill($("hardware"), h.hardware || [], "a100-80gb");
  if (location.hash.length > 1) restore(location.hash);
  $("settings").addEventListener("input", later);
  $("settings").addEventListener("change", later);
  for (const [text, input] of UPLOADS)
    $(input).addEventListener("change", () => {
      const f = $(input).files[0];
      if (!f) return;
      f.text().then((t) => { $(text).value = t; later(); });
    });
  window.addEventListener("hashchange", () => {
    if ("#" + $("share").value.split("#")[1] === location.hash) return;
    restore(location.hash);
    later();
  });
  $("copy-share").addEventListener("click", () => copy($("share").value));
  $("copy-cli").addEventListener("click", () => copy($("cli").textContent));
  $("download").addEventListener("click", () => download().catch((e) => status(String(e), "error")));
  update();
}

document.addEventListener("DOMContentLoaded", () => start().catch((e) => status(String(e), "error")));
