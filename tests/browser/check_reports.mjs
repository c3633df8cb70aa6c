// Opens dixit's HTML reports in Debian's chromium, acts as a reader would, and prints what the
// page showed as JSON on stdout; tests/e2e/report.rs asserts on it. Usage:
//
//   node check_reports.mjs [--eval REPORT.html --problem ID [--solution s1]] \
//        [--compare COMPARE.html] [--run LABEL=RUN/report.html ...] \
//        [--protocols-page DIR/report.html] [--samples-page DIR/report.html --task ID] \
//        [--shots DIR] [--chromium /usr/bin/chromium]
//
// --compare is the comparison of two eval outputs (`dixit report A B`); --protocols-page the
// page `dixit compare --out DIR` writes; --samples-page the page of `dixit eval --samples --out
// DIR` (`dixit report DIR`), where the reader filters the tasks and opens task ID's programs.
//
// Every request the pages make is recorded (and anything but file: or data: is aborted), as
// are console errors, page errors and dialogs (a hostile solution that ran would show here).
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = { run: [] };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, "");
  if (key === "run") args.run.push(process.argv[i + 1]);
  else args[key] = process.argv[i + 1];
}
if ((args.eval && !args.problem) || (args["samples-page"] && !args.task) ||
    (!args.eval && !args.compare && !args["protocols-page"] && !args["samples-page"] && args.run.length === 0)) {
  console.error("usage: node check_reports.mjs [--eval REPORT.html --problem ID [--solution s1]] [--compare COMPARE.html] [--run LABEL=REPORT.html ...] [--protocols-page DIR/report.html] [--samples-page DIR/report.html --task ID] [--shots DIR]");
  process.exit(2);
}
if (args.shots) mkdirSync(args.shots, { recursive: true });
const shot = (name) => (args.shots ? join(args.shots, name) : undefined);

const browser = await chromium.launch({
  executablePath: args.chromium || "/usr/bin/chromium",
  headless: true,
  // Playwright gives each launch a fresh temporary profile (--user-data-dir) itself.
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-quic", "--no-first-run", "--disable-gpu"],
});
const out = { requests: [], blocked: [], consoleErrors: [], pageErrors: [], dialogs: [] };

async function open(file, colorScheme) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, colorScheme: colorScheme || "light" });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
    out.blocked.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("request", (r) => out.requests.push(r.url()));
  page.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => out.pageErrors.push(String(e)));
  page.on("dialog", (d) => { out.dialogs.push(d.message()); d.dismiss(); });
  const started = Date.now();
  await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: "load" });
  const openMs = Date.now() - started;
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0];
    return { domContentLoadedMs: n.domContentLoadedEventEnd, loadMs: n.loadEventEnd, bytes: n.transferSize || n.encodedBodySize };
  });
  return { page, context, timing: { openMs, ...nav } };
}

const tableRows = (page, id) => page.$$eval("#" + id + " tbody tr", (trs) =>
  trs.filter((tr) => !tr.classList.contains("dx-hidden")).map((tr) => Array.from(tr.cells, (td) => td.textContent.trim())));

// --- the eval report ---
if (args.eval) {
  const { page, context, timing } = await open(args.eval);
  const e = (out.eval = { timing });
  e.title = await page.title();
  e.csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  e.toc = await page.$$eval(".dx-toc a", (as) => as.map((a) => a.textContent));
  e.strategies = await tableRows(page, "dx-strategies");
  e.bandPrecision = await tableRows(page, "dx-band-precision");
  e.charts = await page.$$eval("figure.dx-chart svg", (s) => s.length);
  e.problems = await tableRows(page, "dx-problems");
  await page.screenshot({ path: shot("eval-report.png"), fullPage: false });
  await page.locator("#plots").screenshot({ path: shot("eval-plots.png") });

  // Sorting: click "random %" twice (ascending, then descending).
  const header = page.locator("#dx-problems thead th", { hasText: "random %" }).locator("button");
  await header.click();
  e.sortedAscending = (await tableRows(page, "dx-problems")).map((r) => r[3]);
  e.ariaSortAfterFirstClick = await page.locator("#dx-problems thead th", { hasText: "random %" }).getAttribute("aria-sort");
  await header.click();
  e.sortedDescending = (await tableRows(page, "dx-problems")).map((r) => r[3]);
  // Filtering: the problem's id keeps its row (and those containing it).
  await page.fill('input.dx-filter[data-table="dx-problems"]', args.problem);
  e.filtered = (await tableRows(page, "dx-problems")).map((r) => r[0]);
  e.filterCount = await page.textContent('output[data-count-for="dx-problems"]');
  await page.fill('input.dx-filter[data-table="dx-problems"]', "");

  // Drill-down: click the problem; its heatmap appears.
  const started = Date.now();
  await page.click(`#dx-problems a[data-problem]:text-is("${args.problem}")`);
  const drill = page.locator(`.dx-drill[data-problem="${args.problem}"]`);
  await drill.locator("table.dx-matrix").waitFor();
  e.drillMs = Date.now() - started;
  e.hash = await page.evaluate(() => decodeURIComponent(location.hash));
  e.heatmap = await drill.locator("table.dx-matrix").evaluate((t) => ({
    rows: t.tBodies[0].rows.length,
    cols: t.tHead.rows[0].cells.length,
    rowLabels: Array.from(t.tBodies[0].rows, (r) => r.cells[0].textContent),
    colLabels: Array.from(t.tHead.rows[0].cells, (c) => c.textContent),
    cells: Array.from(t.tBodies[0].rows, (r) => Array.from(r.cells).slice(1).map((c) => c.textContent).join("")),
    classesOfFirstCell: t.tBodies[0].rows[2] ? t.tBodies[0].rows[2].cells[2].className : null,
  }));
  // Hover a solution's cell, then click it: the cell's description and both codes appear.
  const cell = drill.locator("table.dx-matrix tbody tr").nth(2).locator("td").nth(1);
  await cell.hover();
  e.hoverInfo = await drill.locator(".dx-cell-info").textContent();
  await cell.click();
  e.cellDetail = await drill.locator(".dx-detail").evaluate((d) => ({
    heading: d.querySelector("strong") ? d.querySelector("strong").textContent : null,
    captions: Array.from(d.querySelectorAll("figcaption"), (f) => f.textContent),
    codes: Array.from(d.querySelectorAll("pre.dx-code"), (p) => p.textContent),
    lineNumbers: d.querySelectorAll("pre.dx-code span.l").length,
  }));
  await page.locator("#problem").screenshot({ path: shot("eval-drilldown.png") });
  if (args.solution) {
    // A solution's header shows its code alone (hostile text must arrive as text).
    await drill.locator(`table.dx-matrix tbody th button`, { hasText: new RegExp("^" + args.solution + "( |$)") }).click();
    e.solutionCode = await drill.locator(".dx-detail pre.dx-code").textContent();
  }
  e.imgElements = await page.$$eval("img", (x) => x.length);
  // Last: a script injected into the page must not run (the CSP allows only the page's own
  // scripts, by hash); the browser logs the refusal as a console error, counted apart.
  const errorsBefore = out.consoleErrors.length;
  const refusal = page.waitForEvent("console", {
    predicate: (m) => m.text().includes("Content Security Policy"), timeout: 10000,
  }).then(() => true, () => false);
  e.injectedScriptRan = await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.__dxInjected = true";
    document.body.append(s);
    return window.__dxInjected === true;
  });
  e.injectionRefused = await refusal;
  out.consoleErrors.splice(errorsBefore);
  await context.close();

  const dark = await open(args.eval, "dark");
  await dark.page.screenshot({ path: shot("eval-report-dark.png") });
  await dark.page.emulateMedia({ media: "print", colorScheme: "light" });
  e.printHidesToc = await dark.page.$eval(".dx-toc", (n) => getComputedStyle(n).display === "none");
  await dark.context.close();
}

// --- the comparison page ---
if (args.compare) {
  const { page, context, timing } = await open(args.compare);
  const c = (out.compare = { timing });
  c.title = await page.title();
  c.lead = await page.textContent(".dx-lead");
  c.strategies = await tableRows(page, "dx-compare-strategies");
  c.flips = (await page.$("#dx-flips")) ? await tableRows(page, "dx-flips") : [];
  c.changedCells = (await page.$("#dx-changed-cells")) ? await tableRows(page, "dx-changed-cells") : [];
  c.setupDiff = await page.$$eval(".dx-diff .dx-diff-split tr td.ins", (tds) => tds.map((t) => t.textContent));
  // The diff's layout switch: "unified" shows the unified table and hides the split one.
  if (await page.$(".dx-diff button[data-layout=unified]")) {
    await page.click(".dx-diff button[data-layout=unified]");
    c.diffLayout = await page.$eval(".dx-diff", (d) => ({
      layout: d.dataset.layout,
      unifiedShown: getComputedStyle(d.querySelector(".dx-diff-unified")).display !== "none",
      splitShown: getComputedStyle(d.querySelector(".dx-diff-split")).display !== "none",
      removed: Array.from(d.querySelectorAll(".dx-diff-unified tr.del td:last-child"), (t) => t.textContent),
    }));
    await page.click(".dx-diff button[data-layout=split]");
  }
  await page.screenshot({ path: shot("compare.png"), fullPage: true });
  const link = page.locator("#dx-changed-cells a[data-changed]").first();
  if (await link.count()) {
    await link.click();
    const table = page.locator("#dx-drill table.dx-matrix");
    await table.waitFor();
    c.drill = await table.evaluate((t) => ({
      rows: t.tBodies[0].rows.length,
      changed: t.querySelectorAll("td.chg").length,
    }));
    await table.locator("td.chg").first().hover();
    c.hoverInfo = await page.textContent("#dx-drill .dx-cell-info");
    await table.locator("td.chg").first().click();
    c.codes = await page.$$eval("#dx-drill pre.dx-code", (p) => p.map((x) => x.textContent));
    await page.locator("#cells").screenshot({ path: shot("compare-drilldown.png") });
  }
  await context.close();
}

// --- the comparison of protocols: the rate plot, the grid, and each project's first linked cell
// followed to its run's page ---
if (args["protocols-page"]) {
  const file = args["protocols-page"];
  const { page, context, timing } = await open(file);
  const c = (out.protocolsPage = { timing });
  c.title = await page.title();
  c.csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  c.toc = await page.$$eval(".dx-toc a", (as) => as.map((a) => a.textContent));
  c.lead = (await page.textContent(".dx-lead")).replace(/\s+/g, " ").trim();
  // The first group's plots (all projects, or the development ones).
  c.ratePlot = await page.$$eval("[id^=dx-rates-plot-] g.dx-whisker", (gs) =>
    gs.map((g) => ({ key: g.dataset.key, points: g.querySelectorAll("circle.dx-point").length, shown: g.lastElementChild.textContent })));
  c.costPoints = await page.$$eval("[id^=dx-cost-plot-] g.dx-scatter-point", (gs) => gs.map((g) => g.dataset.key));
  c.paired = (await page.$("#dx-paired")) ? await tableRows(page, "dx-paired") : [];
  c.stops = await page.$$eval("[id^=dx-stops-] tbody tr", (trs) => trs.map((tr) => Array.from(tr.cells, (td) => td.textContent.trim())));
  c.grid = await page.$$eval("table.dx-cmp-grid tbody td", (tds) => tds.map((td) => ({
    project: td.dataset.project, protocol: td.dataset.protocol, mark: td.dataset.mark,
    stop: td.dataset.stop || null, text: td.querySelector(".dx-sym").textContent,
    href: td.querySelector("a") ? td.querySelector("a").getAttribute("href") : null,
    title: td.getAttribute("title"),
  })));
  c.imgElements = await page.$$eval("img", (x) => x.length);
  await page.screenshot({ path: shot("compare-page.png"), fullPage: false });
  await page.locator("#grid").screenshot({ path: shot("compare-page-grid.png") });
  // Click the first linked cell of each project's row: its run's page loads.
  c.followed = [];
  const rows = await page.locator("table.dx-cmp-grid tbody tr").count();
  for (let i = 0; i < rows; i++) {
    const link = page.locator("table.dx-cmp-grid tbody tr").nth(i).locator("td a").first();
    if (!(await link.count())) continue;
    const cell = await link.evaluate((a) => ({ project: a.parentElement.dataset.project, protocol: a.parentElement.dataset.protocol }));
    const navigated = page.waitForEvent("framenavigated");
    await link.click();
    await navigated;
    await page.waitForLoadState("load");
    c.followed.push({
      ...cell,
      path: await page.evaluate(() => decodeURIComponent(location.pathname)),
      title: await page.title(),
      heading: await page.textContent(".dx-header h1"),
    });
    await page.goBack({ waitUntil: "load" });
  }
  await context.close();
}

// --- run reports: the decision, the suite, a drill-down, a link into a collapsed test ---
if (args.run.length) out.runs = {};
for (const spec of args.run) {
  const eq = spec.indexOf("=");
  const label = spec.slice(0, eq);
  const { page, context, timing } = await open(spec.slice(eq + 1));
  const r = (out.runs[label] = { timing });
  r.title = await page.title();
  r.csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  r.toc = await page.$$eval(".dx-toc a", (as) => as.map((a) => a.textContent));
  r.stop = (await page.textContent(".dx-lead .dx-stop")).trim();
  r.lead = (await page.textContent(".dx-lead")).replace(/\s+/g, " ").trim();
  r.leadClass = await page.getAttribute(".dx-lead", "class");
  r.choices = await page.$$eval("#dx-choices li code", (cs) => cs.map((c) => c.textContent));
  r.evidence = {
    coders: await page.$$eval("#dx-evidence .dx-coders li", (ls) => ls.map((l) => l.textContent.trim())),
    balance: await page.$$eval("#dx-evidence .dx-balance", (ps) => ps.map((p) => p.textContent.trim())),
    odd: await page.$$eval("#dx-evidence .dx-odd", (ps) => ps.map((p) => p.textContent.trim())),
  };
  // The evidence and the choices lead the box: they come before the protocol's explanation.
  r.leadOrder = await page.$$eval(".dx-lead > *", (xs) => xs.map((x) => x.id || x.className || x.tagName.toLowerCase()));
  r.doubts = (await page.$(".dx-lead .dx-doubts")) ? (await page.textContent(".dx-lead .dx-doubts")).trim() : null;
  r.suiteCount = Number(await page.getAttribute("#dx-suite-count", "data-count"));
  r.suiteRows = (await page.$("#dx-suite")) ? (await tableRows(page, "dx-suite")).length : 0;
  r.rejectedRows = (await page.$("#dx-rejected")) ? (await tableRows(page, "dx-rejected")).map((x) => [x[0], x[2]]) : [];
  r.disagreementSummary = (await page.$("#dx-dis-summary")) ? (await page.textContent("#dx-dis-summary")).trim() : null;
  r.disagreements = await page.$$eval("#disagreements table.dx-table tbody tr", (trs) =>
    trs.map((tr) => ({ call: tr.cells[0].textContent.trim(), answers: Array.from(tr.cells[1].querySelectorAll("li"), (li) => li.textContent.trim()) })));
  r.charts = await page.$$eval("figure.dx-chart svg", (x) => x.length);
  await page.screenshot({ path: shot(`run-${label}.png`), fullPage: false });
  if (await page.$("#disagreements table.dx-table")) await page.locator("#disagreements").screenshot({ path: shot(`run-${label}-disagreements.png`) });

  // The final matrix: hover a failing cell (else the first), click it: its test and verdict open.
  if (await page.$("#dx-final td[data-c]")) {
    const failing = page.locator("#dx-final td[data-c]:not(.v-P)");
    const cell = (await failing.count()) ? failing.first() : page.locator("#dx-final td[data-c]").first();
    await cell.hover();
    r.hoverInfo = (await page.textContent("#dx-final .dx-cell-info")).trim();
    r.drillHiddenBefore = await page.$eval("#dx-cell-drill", (d) => d.hidden);
    await cell.click();
    await page.locator("#dx-cell-drill pre.dx-code").waitFor();
    r.drill = await page.$eval("#dx-cell-drill", (d) => ({
      hidden: d.hidden,
      heading: d.querySelector("h3").textContent,
      verdict: d.querySelector(".dx-verdict") ? d.querySelector(".dx-verdict").textContent : null,
      code: d.querySelector("pre.dx-code").textContent,
      links: Array.from(d.querySelectorAll("a"), (a) => a.getAttribute("href")),
      evidence: d.querySelector(".dx-evidence") ? {
        head: d.querySelector(".dx-evidence p").textContent,
        texts: Array.from(d.querySelectorAll(".dx-evidence pre"), (p) => p.textContent),
        elements: d.querySelectorAll(".dx-evidence *").length,
      } : null,
      again: d.querySelector(".dx-again pre.dx-cmd") ? d.querySelector(".dx-again pre.dx-cmd").textContent : null,
    }));
    await page.locator("#matrix").screenshot({ path: shot(`run-${label}-matrix.png`) });
  }
  // The decision links into the evidence: the first link to a collapsed test opens it.
  const link = page.locator('.dx-lead a[href^="#test-"], .dx-lead a[href^="#p-"]').first();
  if (await link.count()) {
    const id = (await link.getAttribute("href")).slice(1);
    r.openedBefore = await page.$eval(`[id="${id}"]`, (d) => d.open);
    await link.click();
    r.opened = await page.$eval(`[id="${id}"]`, (d) => ({
      id: d.id, open: d.open, code: d.querySelector("pre.dx-code") ? d.querySelector("pre.dx-code").textContent : null,
    }));
  }
  // Implementations: choosing another coder to compare with shows that diff.
  const select = page.locator("#impl-1 select[data-diff-choice]");
  if (await select.count()) {
    await select.selectOption({ index: 1 });
    r.diffShown = await page.$$eval("#impl-1 [data-diff-view]", (vs) => vs.filter((v) => !v.hidden).map((v) => v.dataset.diffView));
  }
  r.imgElements = await page.$$eval("img", (x) => x.length);
  await context.close();
}

// --- the samples page: filter the tasks, follow a task's link, read its programs ---
if (args["samples-page"]) {
  const { page, context, timing } = await open(args["samples-page"]);
  const s = (out.samples = { timing });
  s.csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  s.toc = await page.$$eval(".dx-toc a", (as) => as.map((a) => a.textContent));
  s.lead = (await page.locator(".dx-lead").innerText()).trim();
  s.rows = (await tableRows(page, "dx-tasks")).length;
  await page.fill('input.dx-filter[data-table="dx-tasks"]', args.task);
  s.filtered = await tableRows(page, "dx-tasks");
  await page.screenshot({ path: shot("samples-page.png"), fullPage: false });
  await page.locator("#dx-tasks tbody tr:not(.dx-hidden) a").first().click();
  s.hash = await page.evaluate(() => decodeURIComponent(location.hash));
  const details = page.locator("details" + (await page.evaluate(() => location.hash)));
  s.openedByLink = await details.evaluate((d) => d.open);
  if (!s.openedByLink) await details.locator("summary").click();
  s.task = await details.evaluate((d) => ({
    open: d.open,
    summary: d.querySelector("summary").textContent.trim(),
    captions: Array.from(d.querySelectorAll("figcaption, .dx-code-caption"), (c) => c.textContent.trim()),
    code: Array.from(d.querySelectorAll("pre"), (p) => p.textContent),
    images: d.querySelectorAll("img").length,
  }));
  await details.screenshot({ path: shot("samples-task.png") });
  s.injectedScriptRan = await page.evaluate(() => window.__dixit_injected === true);
  await context.close();
}

await browser.close();
console.log(JSON.stringify(out, null, 1));
