// The run report's drill-down: a click on a cell of the final coders × tests matrix shows, below
// it, the coder's verdict, the failure's evidence (what failed, where, the end of stderr), the
// command that runs it again, and the test's code; a click on a test's header shows the test; a click
// on a coder shows its standing. A link to a collapsed test (#test-3, a rejected proposal) opens
// it. Data comes from the embedded "dx-run" block (see page.rs) and is inserted as text only
// (dixit.el, dixit.code): agent output is hostile.
"use strict";
(function () {
  const { el, data, code, onMatrix } = window.dixit;

  // Opens the <details> a fragment names (or that holds it), then shows it.
  function reveal(id) {
    const target = id && document.getElementById(id);
    if (!target) return;
    for (let d = target.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    target.scrollIntoView({ block: "start" });
  }
  document.addEventListener("click", (e) => {
    const a = e.target.closest('a[href^="#"]');
    if (a) reveal(decodeURIComponent(a.getAttribute("href").slice(1)));
  });
  window.addEventListener("hashchange", () => reveal(decodeURIComponent(location.hash.slice(1))));
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));

  const wrap = document.getElementById("dx-final");
  const drill = document.getElementById("dx-cell-drill");
  if (!wrap || !drill) return;
  const table = wrap.querySelector("table.dx-matrix");
  const info = wrap.querySelector(".dx-cell-info");
  const run = data("dx-run");
  const link = (href, text) => el("a", { href: href }, text);

  function verdictText(cell) {
    if (!cell) return "not run";
    let s = run.verdicts[cell.v] || cell.v;
    if (cell.exit !== undefined) s += ", exit " + cell.exit;
    return s + " (seed " + cell.seed + ", fuel " + cell.fuel.toLocaleString("en") + ")";
  }

  // What failed, where, its message and the end of stderr (all journaled guest text: as text).
  function evidence(ev) {
    const box = el("div", { class: "dx-evidence" });
    const where = ev.line !== undefined ? (ev.file ? ev.file + ":" + ev.line : "line " + ev.line) : null;
    box.append(el("p", {}, el("strong", {}, ev.kind), where ? " at " + where : null));
    if (ev.code) box.append(el("pre", { class: "dx-cmd" }, ev.code));
    if (ev.message) box.append(el("pre", { class: "dx-msg" }, ev.message));
    if (ev.stderr) {
      box.append(el("details", {}, el("summary", {}, "stderr (its end)"), el("pre", { class: "dx-msg" }, ev.stderr)));
    }
    return box;
  }

  // The command that runs the cell again, with a button that copies it.
  function again(cmd) {
    const pre = el("pre", { class: "dx-cmd" }, cmd);
    const button = el("button", { type: "button", class: "dx-copy" }, "copy");
    button.addEventListener("click", () => {
      const done = () => { button.textContent = "copied"; };
      if (navigator.clipboard) {
        navigator.clipboard.writeText(cmd).then(done, () => window.getSelection().selectAllChildren(pre));
      } else {
        window.getSelection().selectAllChildren(pre);
      }
    });
    const where = cmd.includes("PROJECT/") ? " (PROJECT: the project's folder)" : "";
    return el("div", { class: "dx-again" }, el("p", {}, "Run it again, from the run directory" + where + ": ", button), pre);
  }

  function show(r, c) {
    drill.replaceChildren();
    const coder = r === null ? null : run.coders[r];
    const test = c === null ? null : run.tests[c];
    const head = [];
    if (coder !== null) head.push(coder);
    if (test) head.push("test " + test.n + " (" + test.file + " by " + test.author + ", round " + test.round + ")");
    drill.append(el("h3", {}, head.join(" × ")));
    if (coder !== null && test) {
      const cell = (run.cells[r] || [])[c];
      drill.append(el("p", { class: "dx-verdict" }, coder + ": " + verdictText(cell)));
      if (cell && cell.ev) drill.append(evidence(cell.ev));
      if (cell && cell.cmd) drill.append(again(cell.cmd));
    } else if (coder !== null) {
      const cells = run.cells[r] || [];
      const passed = cells.filter((x) => x && x.v === "P").length;
      drill.append(el("p", { class: "dx-verdict" }, coder + " passes " + passed + " of " + cells.length + " tests at the end."));
    }
    const links = el("p", {});
    if (coder !== null && run.impl[coder]) links.append(link("#" + run.impl[coder], coder + "'s implementation"), " · ");
    if (coder !== null) links.append(link("#attempts-" + coder.replace(/[^A-Za-z0-9-]/g, "_"), coder + "'s attempts"));
    if (test) links.append(" · ", link("#test-" + test.n, "test " + test.n + " in the suite"));
    drill.append(links);
    if (test) drill.append(code(test.source, test.file));
    drill.hidden = false;
    drill.dataset.r = r === null ? "" : r;
    drill.dataset.c = c === null ? "" : c;
  }

  onMatrix(table, (td) => { if (info) info.textContent = td.title || ""; }, (t) => {
    const r = t.dataset.r !== undefined ? Number(t.dataset.r) : null;
    const c = t.dataset.c !== undefined ? Number(t.dataset.c) : null;
    if (r === null && c === null) return;
    table.querySelectorAll(".dx-selected").forEach((x) => x.classList.remove("dx-selected"));
    t.classList.add("dx-selected");
    show(r, c);
  });
})();
