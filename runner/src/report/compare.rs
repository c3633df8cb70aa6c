//! What `dixit compare` found ([`CompareReport`](crate::outcome::CompareReport), data in `outcome/compare.rs`) as its table:
//! one row per (project, protocol), then totals per protocol, for development and held-out
//! projects apart. `compare/` fills the report in; this module depends on nothing of it.

use super::format::percent;
use crate::config::Arm;
use crate::english::plural;
use crate::outcome::{CellResult, CellRun, CompareCell, CompareReport, Metric};
use crate::report::metric::{aggregate, Total};
use crate::stats::{paired, Paired, Rate};

/// The seed of the paired bootstrap's resampling (fixed: the same report gives the same
/// intervals every time it is rendered).
pub(super) const PAIRED_SEED: u64 = 20_261_125;

/// Below this many paired problems the bootstrap's percentiles say more about the resampling
/// than about the protocols (one problem gives [+100, +100]): the table gives no interval.
pub(super) const MIN_PAIRED: u64 = 10;

/// The protocol every other is compared with, pair by pair, when the comparison has it.
pub(super) const CONTROL: &str = "single";

/// Totals of one protocol over a set of projects (the text table's and the page's).
#[derive(Default)]
pub(crate) struct Totals {
    /// Cells that ran.
    pub cells: usize,
    pub coders: usize,
    pub all_hidden: usize,
    pub hidden_passed: usize,
    pub hidden_total: usize,
    pub calls: u64,
    pub tokens: u64,
    pub usd: f64,
    pub seconds: f64,
    /// Cells that did not run (skipped, or failed to run).
    pub skipped: usize,
    /// Cells with hidden tests, and those whose shipped implementation passes them all.
    pub judged: u64,
    pub shipped_pass: u64,
}

impl Totals {
    fn add(&mut self, run: &CellRun) {
        self.cells += 1;
        self.coders += run.coders;
        self.all_hidden += run.all_hidden;
        self.hidden_passed += run.hidden_passed;
        self.hidden_total += run.hidden_total;
        self.calls += run.calls;
        self.tokens += run.prompt_tokens + run.completion_tokens;
        self.usd += run.usd;
        self.seconds += run.seconds;
        if let Some(ok) = run.shipped_passes {
            self.judged += 1;
            self.shipped_pass += u64::from(ok);
        }
    }
}

/// A share in whole percent, `-` for 0 of 0.
fn pct(n: usize, d: usize) -> String {
    percent(n as u64, d as u64, 0, "-")
}

/// The stop's headline: its words up to the first `:` outside parentheses (`human judgement
/// needed`, `debate over (every coder passes every test)`), whole; the rest is in the list of
/// runs below the table.
fn headline(stop: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in stop.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth <= 0 => return stop[..i].trim_end(),
            _ => {}
        }
    }
    stop
}

/// Text of a project (names, paths, stops) on one line of a terminal: control characters,
/// newlines included, are shown escaped, so a name cannot break the table or drive the
/// terminal.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// How a column is aligned.
#[derive(Clone, Copy, PartialEq)]
enum Align {
    Left,
    Right,
}

/// Rows laid out in columns as wide as their widest cell, two spaces apart; a row may end
/// early, and its last cell runs on unpadded (so it is never cut).
fn columns(align: &[Align], rows: &[Vec<String>]) -> String {
    let mut width = vec![0; align.len()];
    for row in rows {
        // The last cell of a row does not widen its column: nothing follows it.
        for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
            width[i] = width[i].max(cell.chars().count());
        }
    }
    let mut o = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(width[i].saturating_sub(cell.chars().count()));
            match (align[i], i + 1 == row.len()) {
                (Align::Right, _) => line.push_str(&format!("{pad}{cell}")),
                (Align::Left, true) => line.push_str(cell),
                (Align::Left, false) => line.push_str(&format!("{cell}{pad}")),
            }
        }
        o.push_str(line.trim_end());
        o.push('\n');
    }
    o
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word gets a line
/// of its own, whole), each after `indent`.
fn wrap(text: &str, indent: &str, width: usize) -> String {
    let mut o = String::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            o.push_str(&format!("{indent}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        o.push_str(&format!("{indent}{line}\n"));
    }
    o
}

/// The comparison as text: one row per cell (a stop's headline; a skipped or failed cell's
/// reason whole), then each run's folder with its whole stop, then totals per protocol. Columns
/// are as wide as their contents: no word is cut.
pub fn compare_table(r: &CompareReport) -> String {
    use Align::{Left, Right};
    let name = |c: &CompareCell| {
        let p = one_line(&c.project);
        if c.holdout {
            format!("{p} (held out)")
        } else {
            p
        }
    };
    let mut rows = vec![[
        "project",
        "protocol",
        "shipped",
        "all hidden",
        "hidden tests",
        "calls",
        "tokens",
        "cost $",
        "time s",
        "stop",
    ]
    .map(String::from)
    .to_vec()];
    for c in &r.cells {
        let mut row = vec![name(c), one_line(c.protocol.as_str())];
        match &c.result {
            CellResult::Ran(run) => row.extend([
                shipped_cell(run),
                format!(
                    "{}/{} {}",
                    run.all_hidden,
                    run.coders,
                    pct(run.all_hidden, run.coders)
                ),
                format!("{}/{}", run.hidden_passed, run.hidden_total),
                run.calls.to_string(),
                (run.prompt_tokens + run.completion_tokens).to_string(),
                format!("{:.4}", run.usd),
                format!("{:.1}", run.seconds),
                one_line(headline(&run.stop)),
            ]),
            CellResult::Skipped { why } => {
                row.extend(["-".into(), format!("skipped: {}", one_line(why))])
            }
            CellResult::Failed { error } => {
                row.extend(["-".into(), format!("failed: {}", one_line(error))])
            }
        }
        rows.push(row);
    }
    let mut o = columns(
        &[
            Left, Left, Left, Right, Right, Right, Right, Right, Right, Left,
        ],
        &rows,
    );
    let ran: Vec<(&CompareCell, &CellRun)> = r
        .cells
        .iter()
        .filter_map(|c| match &c.result {
            CellResult::Ran(run) => Some((c, run)),
            _ => None,
        })
        .collect();
    if !ran.is_empty() {
        o.push_str("\nruns (`dixit replay DIR` re-executes one; DIR/report.html is its page)\n");
        let labels: Vec<Vec<String>> = ran
            .iter()
            .map(|(c, run)| {
                vec![
                    name(c),
                    one_line(c.protocol.as_str()),
                    one_line(&run.run_dir.display().to_string()),
                ]
            })
            .collect();
        let laid = columns(&[Left, Left, Left], &labels);
        let indent = " ".repeat(
            2 + labels
                .iter()
                .map(|l| l[0].chars().count())
                .max()
                .unwrap_or(0)
                + 2
                + labels
                    .iter()
                    .map(|l| l[1].chars().count())
                    .max()
                    .unwrap_or(0)
                + 2,
        );
        for (line, (_, run)) in laid.lines().zip(&ran) {
            o.push_str(&format!("  {line}\n"));
            o.push_str(&wrap(
                &one_line(&run.stop),
                &indent,
                100usize.saturating_sub(indent.len()).max(40),
            ));
        }
    }
    let groups: Vec<(&str, bool)> = if r.cells.iter().any(|c| c.holdout) {
        vec![("development", false), ("held out", true)]
    } else {
        vec![("all projects", false)]
    };
    o.push_str("\ntotals per protocol\n");
    let mut rows = vec![[
        "projects",
        "protocol",
        "shipped passes [95% CI]",
        "all hidden",
        "hidden tests",
        "calls",
        "tokens",
        "cost $",
        "time s",
        "",
    ]
    .map(String::from)
    .to_vec()];
    for (label, holdout) in groups {
        for p in &r.protocols {
            let t = totals(r, p, holdout);
            if t.cells == 0 && t.skipped == 0 {
                continue;
            }
            rows.push(vec![
                label.to_string(),
                one_line(p.as_str()),
                rate_cell(&Rate::of(t.shipped_pass, t.judged)),
                format!(
                    "{}/{} {}",
                    t.all_hidden,
                    t.coders,
                    pct(t.all_hidden, t.coders)
                ),
                format!(
                    "{}/{} {}",
                    t.hidden_passed,
                    t.hidden_total,
                    pct(t.hidden_passed, t.hidden_total)
                ),
                t.calls.to_string(),
                t.tokens.to_string(),
                format!("{:.4}", t.usd),
                format!("{:.1}", t.seconds),
                stops_note(r, p, holdout, t.skipped),
            ]);
        }
    }
    o.push_str(&columns(
        &[
            Left, Left, Right, Right, Right, Right, Right, Right, Right, Left,
        ],
        &rows,
    ));
    let against = paired_with_control(r);
    if !against.is_empty() {
        o.push_str(&format!(
            "\nagainst {CONTROL}, problem by problem (shipped passes every hidden test; 95% paired bootstrap interval, exact McNemar test)\n"
        ));
        let mut rows = vec![[
            "protocol",
            "problems",
            "difference [95% CI]",
            "only it",
            "only single",
            "p",
        ]
        .map(String::from)
        .to_vec()];
        for (p, d) in &against {
            rows.push(vec![
                one_line(p.as_str()),
                d.n.to_string(),
                if d.n < MIN_PAIRED {
                    format!("{:+.0} pts (too few for an interval)", 100.0 * d.difference)
                } else {
                    format!(
                        "{:+.0} pts [{:+.0}, {:+.0}]",
                        100.0 * d.difference,
                        100.0 * d.interval.low,
                        100.0 * d.interval.high
                    )
                },
                d.only_a.to_string(),
                d.only_b.to_string(),
                format!("{:.3}", d.p_value),
            ]);
        }
        o.push_str(&columns(&[Left, Right, Right, Right, Right, Right], &rows));
    }
    let measures = seed_metrics(r);
    if !measures.is_empty() {
        o.push_str("
the seeds' own measures, per protocol (development problems that ran; a share of problems with its 95% Wilson interval, a pooled ratio, or a mean)
");
        for (p, totals) in &measures {
            o.push_str(&format!(
                "  {}
",
                one_line(p.as_str())
            ));
            for (name, t) in totals {
                o.push_str(&format!(
                    "    {}: {t}
",
                    one_line(name)
                ));
            }
        }
    }
    let settings = protocol_settings(r);
    if !settings.is_empty() {
        o.push_str("\nwhat each protocol ran with (each run's dixit.toml, defaults filled in)\n");
        for (p, sets) in &settings {
            for (lines, n) in sets {
                o.push_str(&format!(
                    "  {}, {}:\n",
                    one_line(p.as_str()),
                    crate::english::plural(*n, "run", "runs")
                ));
                for line in lines {
                    o.push_str(&wrap(&one_line(line), "    ", 96));
                }
            }
        }
    }
    o
}

/// The distinct settings of one protocol's runs (a line each), with how many runs had each.
pub(super) type SettingsSets = Vec<(Vec<String>, usize)>;

/// Each protocol's settings over its cells that ran and carry them: every distinct set of
/// lines with the number of runs that had it, the most common first; protocols with none are
/// left out.
pub(super) fn protocol_settings(r: &CompareReport) -> Vec<(Arm, SettingsSets)> {
    r.protocols
        .iter()
        .filter_map(|p| {
            let mut sets = SettingsSets::new();
            for c in r.cells.iter().filter(|c| &c.protocol == p) {
                let CellResult::Ran(CellRun {
                    settings: Some(lines),
                    ..
                }) = &c.result
                else {
                    continue;
                };
                match sets.iter_mut().find(|(l, _)| l == lines) {
                    Some((_, n)) => *n += 1,
                    None => sets.push((lines.clone(), 1)),
                }
            }
            sets.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
            (!sets.is_empty()).then(|| (p.clone(), sets))
        })
        .collect()
}

/// Each protocol's seed measures ([`crate::report::metric`]) totalled over its development
/// cells that ran and carry them; protocols with none are left out.
pub(super) fn seed_metrics(r: &CompareReport) -> Vec<(Arm, Vec<(String, Total)>)> {
    r.protocols
        .iter()
        .filter_map(|p| {
            let runs: Vec<&[Metric]> = r
                .cells
                .iter()
                .filter(|c| &c.protocol == p && !c.holdout)
                .filter_map(|c| match &c.result {
                    CellResult::Ran(run) => run.metrics.as_deref(),
                    _ => None,
                })
                .collect();
            let totals = aggregate(runs);
            (!totals.is_empty()).then(|| (p.clone(), totals))
        })
        .collect()
}

/// The last column of a protocol's totals: the runs that stopped for a person or at a cap, and
/// the cells that did not run, counted so that none is hidden in a rate.
fn stops_note(r: &CompareReport, p: &Arm, holdout: bool, skipped: usize) -> String {
    let count = |exit: &str| {
        r.cells
            .iter()
            .filter(|c| &c.protocol == p && c.holdout == holdout)
            .filter(|c| matches!(&c.result, CellResult::Ran(run) if run.exit == exit))
            .count()
    };
    let mut parts = Vec::new();
    let human = count("human_needed");
    if human > 0 {
        parts.push(plural(human, "human stop", "human stops"));
    }
    let capped = count("capped");
    if capped > 0 {
        parts.push(format!("{capped} capped"));
    }
    if skipped > 0 {
        parts.push(format!("{skipped} skipped"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// `coder-2 ✓` (its implementation passes every hidden test), `coder-2 ✗`, `coder-2` (no
/// hidden tests), `-` (nothing shipped).
fn shipped_cell(run: &CellRun) -> String {
    match (&run.shipped, run.shipped_passes) {
        (Some(c), Some(true)) => format!("{} ✓", one_line(c)),
        (Some(c), Some(false)) => format!("{} ✗", one_line(c)),
        (Some(c), None) => one_line(c),
        (None, _) => "-".into(),
    }
}

/// `7/20 35% [18–57]`, `-` for no judged problem.
fn rate_cell(r: &Rate) -> String {
    if r.n == 0 {
        return "-".into();
    }
    format!(
        "{}/{} {} [{:.0}–{:.0}]",
        r.passed,
        r.n,
        pct(r.passed as usize, r.n as usize),
        100.0 * r.interval.low,
        100.0 * r.interval.high
    )
}

/// Every other protocol against [`CONTROL`] on the projects where both shipped an
/// implementation judged by hidden tests (development projects only: held-out ones are for a
/// separate check).
pub(super) fn paired_with_control(r: &CompareReport) -> Vec<(Arm, Paired)> {
    let judged = |project: &str, protocol: &Arm| {
        r.cells.iter().find_map(|c| match &c.result {
            CellResult::Ran(run)
                if c.project == project && &c.protocol == protocol && !c.holdout =>
            {
                run.shipped_passes
            }
            _ => None,
        })
    };
    let control = Arm::new(CONTROL);
    if !r.protocols.contains(&control) {
        return Vec::new();
    }
    r.protocols
        .iter()
        .filter(|p| **p != control)
        .filter_map(|p| {
            let pairs: Vec<(bool, bool)> = r
                .projects
                .iter()
                .filter_map(|project| Some((judged(project, p)?, judged(project, &control)?)))
                .collect();
            (!pairs.is_empty()).then(|| (p.clone(), paired(&pairs, PAIRED_SEED)))
        })
        .collect()
}

/// The totals of `protocol` over the development (`holdout` false) or held-out projects.
pub(crate) fn totals(r: &CompareReport, protocol: &Arm, holdout: bool) -> Totals {
    let mut t = Totals::default();
    for c in r
        .cells
        .iter()
        .filter(|c| &c.protocol == protocol && c.holdout == holdout)
    {
        match &c.result {
            CellResult::Ran(run) => t.add(run),
            _ => t.skipped += 1,
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::COMPARE_FORMAT;
    use std::path::PathBuf;

    fn ran(project: &str, protocol: &str, stop: &str, dir: &str) -> CompareCell {
        CompareCell {
            index: 0,
            project: project.into(),
            protocol: Arm::new(protocol),
            holdout: false,
            result: CellResult::Ran(CellRun {
                run_id: "r".into(),
                run_dir: PathBuf::from(dir),
                stop: stop.into(),
                exit: "done".into(),
                coders: 3,
                shipped: Some("coder-1".into()),
                shipped_passes: Some(false),
                all_hidden: 1,
                hidden_passed: 2,
                hidden_total: 6,
                calls: 1234,
                prompt_tokens: 1_000_000,
                completion_tokens: 2,
                usd: 12.5,
                seconds: 1234.5,
                decision: None,
                metrics: None,
                settings: None,
            }),
        }
    }

    #[test]
    fn the_table_cuts_no_word_and_names_every_run_folder() {
        let long_stop = "debate over (1 epochs without progress: early stop): coder-1 passes the \
                         most tests (coder-1 3/3, coder-2 2/3); a sentence long enough to need \
                         more than one line of the list below the table";
        let mut held = ran(
            "a_project_with_a_long_name",
            "debate",
            long_stop,
            "/runs/a_project_with_a_long_name/20261122-221005-b512",
        );
        held.holdout = true;
        let r = CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: vec![],
            protocols: vec![Arm::new("dixit"), Arm::new("debate")],
            shard: None,
            cells: vec![
                ran("p\x1b[2J", "dixit", "converged: all too easy", "/runs/p/1"),
                held,
                CompareCell {
                    index: 2,
                    project: "p".into(),
                    protocol: Arm::new("blind"),
                    holdout: false,
                    result: CellResult::Skipped {
                        why: "no hidden/ folder: blind needs one to answer pass or fail".into(),
                    },
                },
            ],
        };
        let t = compare_table(&r);
        // Every word of every stop, reason and folder is there whole.
        for word in long_stop
            .split_whitespace()
            .chain([
                "/runs/p/1",
                "/runs/a_project_with_a_long_name/20261122-221005-b512",
            ])
            .chain("no hidden/ folder: blind needs one to answer pass or fail".split(' '))
        {
            assert!(
                t.split_whitespace().any(|w| w == word),
                "{word:?} is cut:\n{t}"
            );
        }
        assert!(
            t.contains("a_project_with_a_long_name (held out)  debate"),
            "{t}"
        );
        // The row shows the stop's headline, up to its first colon outside parentheses.
        assert!(
            t.contains("  debate over (1 epochs without progress: early stop)\n"),
            "{t}"
        );
        assert!(!t.contains('\x1b'), "{t:?}");
        // Columns line up: every row of the table is as long up to its stop.
        let rows: Vec<&str> = t.lines().take(3).collect();
        // (in characters: a shipped cell's ✓ and ✗ are wider in bytes)
        let at = |row: &str, word: &str| row.find(word).map(|k| row[..k].chars().count());
        let stop_at = at(rows[0], "stop");
        assert_eq!(at(rows[1], "converged"), stop_at, "{t}");
        assert_eq!(at(rows[2], "debate over"), stop_at, "{t}");
        // A whole stop is wrapped at spaces below its folder.
        for line in t.lines().filter(|l| l.starts_with("    ")) {
            assert!(line.chars().count() <= 100, "{line}");
        }
    }

    #[test]
    fn each_protocol_is_compared_with_single_problem_by_problem() {
        // Ten problems: dixit's shipped implementation passes on 1..=6, single's on 5..=7.
        let cell = |k: usize, protocol: &str, pass: bool| {
            let mut c = ran(&format!("p{k}"), protocol, "done", "/runs/x");
            c.index = k;
            if let CellResult::Ran(run) = &mut c.result {
                run.shipped_passes = Some(pass);
            }
            c
        };
        let mut cells = Vec::new();
        for k in 1..=10 {
            cells.push(cell(k, "single", (5..=7).contains(&k)));
            cells.push(cell(k, "dixit", k <= 6));
        }
        let r = CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: (1..=10).map(|k| format!("p{k}")).collect(),
            protocols: vec![Arm::new("single"), Arm::new("dixit")],
            shard: None,
            cells,
        };
        let against = paired_with_control(&r);
        assert_eq!(against.len(), 1);
        let (p, d) = &against[0];
        assert_eq!(p.as_str(), "dixit");
        assert_eq!(
            (d.n, d.both, d.only_a, d.only_b, d.neither),
            (10, 2, 4, 1, 3)
        );
        assert!((d.difference - 0.3).abs() < 1e-12);
        // binom.test(1, 5)$p.value
        assert!((d.p_value - 0.375).abs() < 1e-12);
        let t = compare_table(&r);
        assert!(t.contains("6/10 60 % [31–83]"), "{t}");
        assert!(t.contains("3/10 30 % [11–60]"), "{t}");
        assert!(t.contains("against single"), "{t}");
        assert!(t.contains("+30 pts ["), "{t}");
        assert!(t.contains("0.375"), "{t}");
    }

    /// The settings runs carried are listed per protocol, each distinct set once with its
    /// count, the most common first; a cell without them (kept before) adds nothing.
    #[test]
    fn each_protocols_settings_are_listed_once_with_their_count() {
        let with = |k: usize, protocol: &str, lines: Option<&[&str]>| {
            let mut c = ran(&format!("p{k}"), protocol, "done", "/runs/x");
            if let CellResult::Ran(run) = &mut c.result {
                run.settings = lines.map(|l| l.iter().map(|s| s.to_string()).collect());
            }
            c
        };
        let a: &[&str] = &["[dixit] coders = 3", "3 × coder: model m"];
        let b: &[&str] = &["[dixit] coders = 5", "5 × coder: model m"];
        let r = CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: (1..=4).map(|k| format!("p{k}")).collect(),
            protocols: vec![Arm::new("single"), Arm::new("dixit")],
            shard: None,
            cells: vec![
                with(1, "dixit", Some(b)),
                with(2, "dixit", Some(a)),
                with(3, "dixit", Some(a)),
                with(4, "dixit", None),
                with(1, "single", None),
            ],
        };
        let sets = protocol_settings(&r);
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].0.as_str(), "dixit");
        let counts: Vec<(String, usize)> =
            sets[0].1.iter().map(|(l, n)| (l[0].clone(), *n)).collect();
        assert_eq!(
            counts,
            [
                ("[dixit] coders = 3".into(), 2),
                ("[dixit] coders = 5".into(), 1)
            ]
        );
        let t = compare_table(&r);
        assert!(
            t.contains("what each protocol ran with")
                && t.contains("  dixit, 2 runs:\n    [dixit] coders = 3\n"),
            "{t}"
        );
    }
}
