// The comparison page's drill-down: a problem's changed cells (#changed/ID), each showing B's
// verdict, outlined where A's differs, with the code of a solution and a test on click.
"use strict";
(function () {
  const el = dixit.el;
  const meta = dixit.data("dx-meta");
  const drill = document.getElementById("dx-drill");
  if (!meta || !drill) return;
  const verdicts = new Map(meta.verdicts);
  const verdict = (c) => verdicts.get(c) || "?";

  function open(k) {
    const d = dixit.data("dx-c-" + k);
    if (!d) return;
    const info = el("p", { class: "dx-cell-info", "aria-live": "polite" }, "Hover a cell to see A → B; click to show the code.");
    const detail = el("div", { class: "dx-detail" });
    const mask = (a, b) => a.split("").map((c, j) => c !== b[j]);
    const rows = [];
    if (d.ref) rows.push({ label: "reference", cells: d.ref.b, cls: "v", annot: true, changed: mask(d.ref.a, d.ref.b) });
    d.rowIdx.forEach((ix, r) => rows.push({
      label: "s" + (ix[0] + 1), title: "solution s" + (ix[0] + 1) + " in A, s" + (ix[1] + 1) + " in B",
      cells: d.b[r], cls: "v", changed: mask(d.a[r], d.b[r]),
    }));
    const cols = d.colIdx.map((ix) => ix[0] === null
      ? { label: "H", title: "the hidden tests" }
      : { label: "t" + (ix[0] + 1), title: "test t" + (ix[0] + 1) + " in A, t" + (ix[1] + 1) + " in B" });
    const table = dixit.matrix({ corner: "solution \\ test", cols, rows });
    const off = d.ref ? 1 : 0;
    const at = (t) => {
      const r = t.dataset.r !== undefined ? Number(t.dataset.r) : null;
      const c = t.dataset.c !== undefined ? Number(t.dataset.c) : null;
      return [r === null ? null : r - off, c];
    };
    const letters = (r, c) => r < 0 ? [d.ref.a[c], d.ref.b[c]] : [d.a[r][c], d.b[r][c]];
    const label = (r, c) => (r < 0 ? "reference" : "s" + (d.rowIdx[r][0] + 1)) + " × " + cols[c].label;
    dixit.onMatrix(table, (td) => {
      const [r, c] = at(td);
      if (r === null || c === null) return;
      const [x, y] = letters(r, c);
      td.title = label(r, c) + ": A " + verdict(x) + (x === y ? " = B" : " → B " + verdict(y));
      info.textContent = td.title;
    }, (t) => {
      const [r, c] = at(t);
      const parts = [];
      if (r !== null && r >= 0) parts.push(dixit.code(d.prefix + d.sols[r], "solution s" + (d.rowIdx[r][0] + 1)));
      if (c !== null) {
        parts.push(d.tests[c] === null
          ? el("p", { class: "dx-muted" }, "The hidden tests are the problem's check function in the corpus.")
          : dixit.code(d.tests[c], "test " + cols[c].label));
      }
      if (parts.length) detail.replaceChildren(el("div", { class: "dx-pair" }, ...parts));
    });
    drill.replaceChildren(el("div", { class: "dx-drill", "data-problem": d.id },
      el("h3", {}, d.id + ": changed cells"),
      el("div", { class: "dx-matrix-wrap" }, table), info, detail));
  }
  function route() {
    const m = location.hash.match(/^#changed\/(.+)$/);
    if (!m) return;
    let id;
    try { id = decodeURIComponent(m[1]); } catch (_) { return; }
    const hit = meta.changed.find((x) => x[0] === id);
    if (!hit) return;
    open(hit[1]);
    drill.scrollIntoView();
  }
  window.addEventListener("hashchange", route);
  route();
})();
