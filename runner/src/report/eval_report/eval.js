// The eval report's drill-down: a problem's solutions × tests heatmap, drawn when the problem
// is opened (#problem/ID), from its embedded block (see page.rs for the format). Text from the
// data goes in with textContent only.
"use strict";
(function () {
  const el = dixit.el;
  const meta = dixit.data("dx-meta");
  const drill = document.getElementById("dx-drill");
  if (!meta || !drill) return;
  const verdicts = new Map(meta.verdicts);
  const verdict = (c) => verdicts.get(c) || "?";
  const bands = new Map(meta.bands);
  const band = (c) => bands.get(c) || "?";
  const plural = (n, w) => n + " " + w + (n === 1 ? "" : "s");

  function noteOf(p, row, col) {
    const s = p.notes[String(row)];
    if (!s) return "";
    const ch = s[col + 1];
    if (!ch || ch === " ") return "";
    return p.noteNames[meta.noteAlphabet.indexOf(ch)] || "";
  }

  function legend(entries, cls) {
    const ul = el("ul", { class: "dx-legend" });
    for (const [c, name] of entries) {
      ul.append(el("li", {}, el("span", { class: "sw " + cls + " " + cls + "-" + c }, c), name));
    }
    return ul;
  }

  function openProblem(k) {
    const p = dixit.data("dx-p-" + k);
    if (!p) return;
    const n = p.sols.length, m = p.tests.length;
    const passed = p.rows.map((r) => r.split("").filter((c) => c === "P").length);
    const failures = p.tests.map((_, j) =>
      p.rows.reduce((acc, r, i) => acc + (r[j] === "P" ? 0 : p.sols[i][1]), 0));
    const pool = p.sols.reduce((a, s) => a + s[1], 0);
    const correct = p.sols.reduce((a, s, i) => a + (p.hidden[i] === "P" ? s[1] : 0), 0);
    const bandCount = (b) => p.bands.split("").filter((c) => c === b).length;

    drill.replaceChildren();
    const order = el("select", { "aria-label": "order of rows and columns" },
      el("option", { value: "sorted" }, "correct solutions first, most tests passed first; tests by failures"),
      el("option", { value: "recorded" }, "as recorded"));
    const info = el("p", { class: "dx-cell-info", "aria-live": "polite" }, "Hover a cell to see it; click to show the code.");
    const detail = el("div", { class: "dx-detail" });
    const holder = el("div", { class: "dx-matrix-wrap" });
    drill.append(el("div", { class: "dx-drill", "data-problem": p.id },
      el("h3", {}, p.id),
      el("p", {},
        plural(n, "unique solution") + " (" + pool + " samples, " + correct + " correct) × " +
        plural(m, "unique test") + " (" + bandCount("I") + " IDEAL, " + bandCount("H") + " TOO_HARD, " +
        bandCount("E") + " TOO_EASY). Reference on the hidden tests: " + verdict(p.refHidden) + "."),
      el("p", { class: "dx-muted" },
        "Rows: solutions (H: the hidden tests); columns: generated tests. A column that fails " +
        "the correct solutions (at the top) is a wrong test; the band row says how the pool classified each test."),
      el("label", { class: "dx-noprint" }, "order: ", order),
      legend(meta.verdicts, "v"), legend(meta.bands, "b"),
      holder, info, detail));

    let rowOrder, colOrder, selected = null;
    function draw() {
      rowOrder = [...Array(n).keys()];
      colOrder = [...Array(m).keys()];
      if (order.value === "sorted") {
        rowOrder.sort((a, b) => (p.hidden[b] === "P") - (p.hidden[a] === "P") || passed[b] - passed[a] || a - b);
        colOrder.sort((a, b) => failures[a] - failures[b] || a - b);
      }
      const pick = (s) => colOrder.map((j) => s[j]).join("");
      const rows = [
        { label: "band", title: "the test's band over the pool", cells: pick(p.bands), cls: "b", annot: true },
        { label: "reference", title: "the reference solution", lead: [{ c: p.refHidden, cls: "v" }], cells: pick(p.ref), cls: "v", annot: true },
      ];
      for (const i of rowOrder) {
        const count = p.sols[i][1];
        rows.push({
          label: "s" + (i + 1) + (count > 1 ? " ×" + count : ""),
          title: "solution s" + (i + 1) + ": " + plural(count, "sample") + ", passes " + passed[i] + " of " + m + " tests, hidden: " + verdict(p.hidden[i]),
          lead: [{ c: p.hidden[i], cls: "v" }], cells: pick(p.rows[i]), cls: "v",
        });
      }
      const cols = colOrder.map((j) => ({
        label: "t" + (j + 1),
        title: "test t" + (j + 1) + ": " + band(p.bands[j]) + ", failed by " + failures[j] + " of " + pool + " samples",
      }));
      const table = dixit.matrix({
        corner: "solution \\ test", leadHeads: [{ label: "H", title: "the hidden tests" }], cols, rows,
      });
      dixit.onMatrix(table, hover, click);
      holder.replaceChildren(table);
    }
    // (solution index or -1 for the reference or null for the band row, test index or -1 for
    // the hidden tests) of a cell or header.
    function where(t) {
      const r = t.dataset.r !== undefined ? Number(t.dataset.r) : null;
      const col = t.dataset.lead !== undefined ? -1 : t.dataset.c !== undefined ? colOrder[Number(t.dataset.c)] : null;
      const sol = r === null ? undefined : r === 0 ? null : r === 1 ? -1 : rowOrder[r - 2];
      return [sol, col];
    }
    function describe(sol, col) {
      if (sol === null) return "test t" + (col + 1) + ": " + band(p.bands[col]);
      const who = sol === -1 ? "reference" : "s" + (sol + 1);
      const what = col === -1 ? "the hidden tests" : "t" + (col + 1);
      const c = sol === -1 ? (col === -1 ? p.refHidden : p.ref[col]) : (col === -1 ? p.hidden[sol] : p.rows[sol][col]);
      const note = noteOf(p, sol, col);
      return who + " × " + what + ": " + verdict(c) + (note ? " (" + note + ")" : "");
    }
    function hover(td) {
      const [sol, col] = where(td);
      if (sol === undefined || col === null) return;
      if (!td.title) td.title = describe(sol, col);
      info.textContent = td.title;
    }
    function solutionCode(sol) {
      if (sol === -1) return el("p", { class: "dx-muted" }, "The reference solution's code is in the corpus, not in the eval output.");
      const count = p.sols[sol][1];
      return dixit.code(p.prefix + p.sols[sol][0], "solution s" + (sol + 1) + " · " + plural(count, "sample") + " · hidden tests: " + verdict(p.hidden[sol]));
    }
    function testCode(col) {
      if (col === -1) return el("p", { class: "dx-muted" }, "The hidden tests are the problem's check function in the corpus.");
      return dixit.code(p.tests[col][0], "test t" + (col + 1) + " · " + plural(p.tests[col][1], "sample") + " · " + band(p.bands[col]) +
        " · reference: " + verdict(p.ref[col]) + " · failed by " + failures[col] + " of " + pool + " samples");
    }
    function click(t) {
      if (selected) selected.classList.remove("dx-selected");
      const [sol, col] = where(t);
      const parts = [];
      if (t.tagName === "TD" && sol !== undefined && sol !== null && col !== null) {
        parts.push(el("p", {}, el("strong", {}, describe(sol, col))));
        parts.push(el("div", { class: "dx-pair" }, solutionCode(sol), testCode(col)));
        selected = t;
        t.classList.add("dx-selected");
      } else if (sol !== undefined && sol !== null) {
        parts.push(solutionCode(sol));
      } else if (col !== null && col !== undefined) {
        parts.push(testCode(col));
      }
      if (parts.length) detail.replaceChildren(...parts);
    }
    order.addEventListener("change", draw);
    draw();
  }

  function route() {
    const m = location.hash.match(/^#problem\/(.+)$/);
    if (!m) return;
    let id;
    try { id = decodeURIComponent(m[1]); } catch (_) { return; }
    const k = meta.problems.indexOf(id);
    if (k < 0) return;
    openProblem(k);
    document.getElementById("problem").scrollIntoView();
  }
  window.addEventListener("hashchange", route);
  route();
})();
