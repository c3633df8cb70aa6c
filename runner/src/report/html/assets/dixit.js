// dixit report scripts: sortable and filterable tables, diff layout switch, and the builders
// that draw large components lazily in the browser (matrix, code viewer) with the same markup
// and classes as their Rust twins in runner/src/report/html/. Data is only ever inserted with
// textContent, never as HTML: agent output is hostile.
"use strict";
(function () {
  const dixit = {};
  window.dixit = dixit;

  // An element: el("td", {class: "v v-P", "data-r": 1}, "P", child, ...). Strings are text.
  dixit.el = function (tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
    }
    return e;
  };
  const el = dixit.el;

  // The parsed JSON of a <script type="application/json" id=ID> block (parsed once, on demand).
  const parsed = new Map();
  dixit.data = function (id) {
    if (!parsed.has(id)) {
      const node = document.getElementById(id);
      parsed.set(id, node ? JSON.parse(node.textContent) : null);
    }
    return parsed.get(id);
  };

  // Code viewer: <figure class="dx-code-block"><figcaption>…</figcaption>
  // <pre class="dx-code"><code><span class="l">line</span>\n…</code></pre></figure>
  dixit.code = function (text, caption) {
    const code = el("code");
    const lines = String(text).replace(/\n$/, "").split("\n");
    lines.forEach((line, i) => {
      code.append(el("span", { class: "l" }, line));
      if (i + 1 < lines.length) code.append("\n");
    });
    return el("figure", { class: "dx-code-block" },
      caption ? el("figcaption", {}, caption) : null,
      el("pre", { class: "dx-code" }, code));
  };

  // Matrix: spec = {caption, corner, leadHeads: [{label, title}], cols: [{label, title}],
  // rows: [{label, title, lead: [{c, cls}], cells: "PWR…", cls: "v", annot: bool, sep: bool}]}.
  // Cells: <td class="CLS CLS-LETTER" data-r=ROW data-c=COL>LETTER</td>; lead cells have
  // data-lead=K instead of data-c. Row and column headers are buttons carrying data-r / data-c.
  dixit.matrix = function (spec) {
    const table = el("table", { class: "dx-matrix" });
    if (spec.caption) table.append(el("caption", { class: "dx-muted" }, spec.caption));
    const head = el("tr", {}, el("th", { scope: "col" }, spec.corner || ""));
    (spec.leadHeads || []).forEach((h, k) =>
      head.append(el("th", { scope: "col", title: h.title || h.label, "data-lead": k }, h.label)));
    spec.cols.forEach((c, j) => {
      const th = el("th", { scope: "col", title: c.title || c.label, class: c.sep ? "dx-sep" : null },
        el("button", { type: "button", "data-c": j }, c.label));
      head.append(th);
    });
    table.append(el("thead", {}, head));
    const body = el("tbody");
    const frag = document.createDocumentFragment();
    spec.rows.forEach((r, i) => {
      const tr = el("tr", { class: r.annot ? "dx-annot" : null });
      tr.append(el("th", { scope: "row", title: r.title || r.label },
        r.annot ? r.label : el("button", { type: "button", "data-r": i }, r.label)));
      (spec.leadHeads || []).forEach((_, k) => {
        const x = (r.lead || [])[k];
        const td = document.createElement("td");
        if (x) {
          td.className = x.cls + " " + x.cls + "-" + x.c;
          td.dataset.r = i;
          td.dataset.lead = k;
          td.textContent = x.c;
        } else {
          td.className = "dx-pad";
        }
        tr.append(td);
      });
      const cls = r.cls || "v";
      for (let j = 0; j < r.cells.length; j++) {
        const ch = r.cells[j];
        const td = document.createElement("td");
        td.className = cls + " " + cls + "-" + ch + (spec.cols[j] && spec.cols[j].sep ? " dx-sep" : "")
          + (r.changed && r.changed[j] ? " chg" : "");
        td.dataset.r = i;
        td.dataset.c = j;
        td.textContent = r.text ? r.text[j] : ch;
        tr.append(td);
      }
      frag.append(tr);
    });
    body.append(frag);
    table.append(body);
    return table;
  };

  // Calls onHover(td) / onClick(td or header button) for the cells of a matrix (delegated).
  dixit.onMatrix = function (table, onHover, onClick) {
    table.addEventListener("mouseover", (e) => {
      const td = e.target.closest("td");
      if (td && onHover) onHover(td);
    });
    table.addEventListener("click", (e) => {
      const t = e.target.closest("td, button");
      if (t && onClick) onClick(t);
    });
  };

  // Sortable tables: <table class="dx-table" data-sortable> with <th data-type="num|text">
  // holding a <button class="dx-sort">; cells may carry data-sort (the value sorted on).
  function sortKey(td, numeric) {
    const raw = td ? (td.dataset.sort !== undefined ? td.dataset.sort : td.textContent.trim()) : "";
    if (!numeric) return raw;
    const v = parseFloat(raw);
    return Number.isNaN(v) ? -Infinity : v;
  }
  function initSortable(table) {
    const ths = table.tHead ? Array.from(table.tHead.rows[0].cells) : [];
    ths.forEach((th, col) => {
      const b = th.querySelector(".dx-sort");
      if (!b) return;
      b.addEventListener("click", () => {
        const numeric = th.dataset.type === "num";
        const asc = th.getAttribute("aria-sort") !== "ascending";
        ths.forEach((o) => o.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        const body = table.tBodies[0];
        const rows = Array.from(body.rows).map((r, i) => [sortKey(r.cells[col], numeric), i, r]);
        rows.sort((x, y) => {
          let c = numeric ? x[0] - y[0] : String(x[0]).localeCompare(String(y[0]), undefined, { numeric: true });
          if (!asc) c = -c;
          return c || x[1] - y[1];
        });
        const frag = document.createDocumentFragment();
        rows.forEach((r) => frag.append(r[2]));
        body.append(frag);
      });
    });
  }
  // Filters: <input class="dx-filter" data-table=ID>: a row stays when it contains every word.
  function initFilter(input) {
    const table = document.getElementById(input.dataset.table);
    const count = document.querySelector('output[data-count-for="' + input.dataset.table + '"]');
    if (!table) return;
    const update = () => {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      const rows = table.tBodies[0].rows;
      for (const r of rows) {
        const text = r.textContent.toLowerCase();
        const keep = words.every((w) => text.includes(w));
        r.classList.toggle("dx-hidden", !keep);
        if (keep) shown++;
      }
      if (count) count.textContent = shown + " of " + rows.length + " rows";
    };
    input.addEventListener("input", update);
    update();
  }
  // Diff views: buttons with data-layout switch their .dx-diff between "unified" and "split".
  function initDiff(d) {
    d.querySelectorAll("button[data-layout]").forEach((b) =>
      b.addEventListener("click", () => {
        d.dataset.layout = b.dataset.layout;
        d.querySelectorAll("button[data-layout]").forEach((o) =>
          o.setAttribute("aria-pressed", String(o === b)));
      }));
  }
  // Diff choosers (diff_against): the select shows the chosen view of its item.
  function initChoice(sel) {
    const item = sel.closest(".dx-diff-item");
    sel.addEventListener("change", () => {
      item.querySelectorAll("[data-diff-view]").forEach((v) => {
        v.hidden = v.dataset.diffView !== sel.value;
      });
    });
  }
  dixit.init = function (root) {
    root.querySelectorAll("table.dx-table[data-sortable]").forEach(initSortable);
    root.querySelectorAll("select[data-diff-choice]").forEach(initChoice);
    root.querySelectorAll("input.dx-filter").forEach(initFilter);
    root.querySelectorAll(".dx-diff").forEach(initDiff);
  };
  document.addEventListener("DOMContentLoaded", () => dixit.init(document));
})();
