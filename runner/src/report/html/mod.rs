//! The pieces every dixit HTML report is built from: one self-contained file per report, with
//! its data embedded and its styles and scripts inline, that opens from disk (`file://`) with
//! no network. Templates are compiled in with `maud` (components are functions returning
//! [`Markup`], and everything spliced in is HTML-escaped unless wrapped in `PreEscaped`, which
//! only this module uses, for its own assets and for JSON made inert by `embed`).
//!
//! Files:
//! - `page.rs`: [`Page`], the skeleton: title, lead block, sections with a table of contents,
//!   footer, embedded data, the Content-Security-Policy (nothing loads from outside; only the
//!   page's own style and scripts, by hash, may apply or run).
//! - `table.rs`: [`Table`], sortable and filterable.
//! - `code.rs`: [`code`], a code viewer with line numbers.
//! - `diff.rs`: [`diff`] of two texts (unified or side by side) and [`diff_against`], several
//!   texts each with a chooser of the one to compare it with (coders' implementations).
//! - `matrix.rs`: [`Matrix`], rows × columns of one-letter codes (verdicts, bands), and legends.
//! - `chart.rs`: [`bar_chart`], [`histogram`], [`dot_chart`], [`whisker_chart`] (points with
//!   intervals), [`scatter_chart`] (labelled points) as inline SVG.
//! - `embed.rs`: [`json_script`], data for the page's scripts.
//! - `assets/dixit.css`, `assets/dixit.js`: the one stylesheet and the shared script.
//!
//! # Page structure
//!
//! ```text
//! body
//! └ div.dx-page
//!   ├ nav.dx-toc                      table of contents (one entry per section)
//!   └ main.dx-main
//!     ├ header.dx-header  h1, p.dx-subtitle
//!     ├ div.dx-lead[.dx-good|.dx-bad] what to know or decide first (Page::lead)
//!     ├ section.dx-section#ID  h2 …    one per Page::section
//!     └ footer.dx-footer               provenance
//! script[type=application/json]#ID …  embedded data (Page::data; dixit.data(ID) parses it)
//! script                               assets/dixit.js, then page scripts (Page::script)
//! ```
//!
//! # CSS classes (assets/dixit.css)
//!
//! | class | what |
//! |---|---|
//! | `dx-lead`, `dx-good`, `dx-bad` | the lead block; green or red edge for the outcome |
//! | `dx-note`, `dx-muted` | secondary text |
//! | `dx-grid` | a responsive grid of blocks (charts side by side) |
//! | `dx-kv` | a `<dl>` of key/value pairs |
//! | `dx-up`, `dx-down` | better / worse (always with ▲/▼ or a sign in the text) |
//! | `dx-table`, `dx-table-wrap`, `dx-filter`, `dx-sort`, `num` | tables ([`Table`]); `tr.dx-hidden` is filtered out |
//! | `dx-code-block`, `dx-code`, `l` | code viewer; one `span.l` per line |
//! | `dx-diff`, `dx-diff-unified`, `dx-diff-split`, `ins`, `del`, `ln`, `sg`, `hunk` | diffs |
//! | `dx-diff-against`, `dx-diff-item` | a set of texts with "compare with" choosers |
//! | `dx-matrix-wrap`, `dx-matrix`, `dx-annot`, `dx-sep`, `chg` | matrices; `chg`: a cell that changed |
//! | `v v-P` … `v v-I`, `v-X` | verdict cells: P pass, W wrong answer, R runtime error, T fuel, L wall time, M memory, O output, C compile error, I internal; X none |
//! | `b b-I`, `b-H`, `b-E` | band cells: IDEAL, TOO_HARD, TOO_EASY |
//! | `dx-legend`, `sw` | legends of letters |
//! | `dx-drill`, `dx-pair`, `dx-cell-info` | a drill-down panel, two code blocks side by side, the hovered cell's description |
//! | `dx-chart`, `s0`…`s4`, `hollow`, `bar`, `seg` | charts: series colours, hollow markers, bars, pattern-filled histogram segments |
//! | `dx-whisker`, `dx-point`, `dx-ci`, `dx-ref`, `dx-scatter-point` | a whisker chart's rows, dots, intervals and reference line; a scatter plot's points |
//! | `dx-cmp-grid`, `dx-mark`, `dx-sym`, `dx-stopkind` | the comparison's problem × protocol grid: a cell's link, its mark, how its run ended |
//! | `dx-noprint` | hidden in print |
//!
//! # Script API (assets/dixit.js, `window.dixit`)
//!
//! `dixit.el(tag, attrs, ...children)` (children as text, never HTML), `dixit.data(id)`,
//! `dixit.code(text, caption)`, `dixit.matrix(spec)` (the fields of [`Matrix`] serialised:
//! `{caption, corner, leadHeads, cols, rows: [{label, title, lead, cells, cls, annot}]}`, plus
//! per row `changed` (cells to mark `chg`) and `text` (what to show instead of the letters)),
//! `dixit.onMatrix(table, onHover, onClick)`, `dixit.init(root)` (tables, filters and diffs
//! under `root`; run on load).
//!
//! # Building a report
//!
//! A report module (e.g. `report/eval_html.rs`) builds a [`Page`], adds sections made of these
//! components, embeds large data with [`Page::data`] and draws it lazily with a page script,
//! and calls [`Page::render`]. The run report's pieces map as: coders × tests matrix per round →
//! [`Matrix`] with [`verdict_legend`]; suite and rejected tests → [`Table`] + [`code`];
//! implementations with diffs → [`diff_against`]; timeline, usage and cost → [`bar_chart`],
//! [`histogram`], [`dot_chart`]; the decision → [`Page::lead`].

mod chart;
mod code;
mod diff;
mod embed;
mod matrix;
mod page;
mod table;

pub use chart::{
    bar_chart, dot_chart, histogram, scatter_chart, whisker_chart, Bar, DotChart, ScatterChart,
    ScatterPoint, Series, Whisker, WhiskerChart,
};
pub use code::code;
pub use diff::{diff, diff_against, diff_stats, DiffSide, DiffStats};
pub use embed::{escape_json_for_script, json_script};
pub use matrix::{
    band_legend, legend, meaning, verdict_legend, LeadCell, LegendEntry, Matrix, MatrixCol,
    MatrixRow,
};
pub use maud::{html, Markup, PreEscaped};
pub use page::{Page, Section, CSS, JS};
pub use table::{Column, Table, TableCell};

/// HTML with a line break before each block-level tag, so snapshots read (and diff) by line.
#[cfg(test)]
pub(crate) fn pretty(html: &str) -> String {
    const BLOCKS: &[&str] = &[
        "<tr", "<div", "<table", "<thead", "<tbody", "<section", "<p", "<li", "<ul", "<dl", "<dt",
        "<figure", "<svg", "<script", "<h2", "<h3", "<rect", "<text", "<g", "<circle", "<path",
        "<main", "<footer", "<header", "<nav",
    ];
    let mut out = String::with_capacity(html.len() + html.len() / 20);
    let mut rest = html;
    while let Some(k) = rest[1..].find('<').map(|k| k + 1) {
        let (head, tail) = rest.split_at(k);
        out.push_str(head);
        if BLOCKS
            .iter()
            .any(|b| tail.starts_with(b) && tail[b.len()..].starts_with([' ', '>']))
        {
            out.push('\n');
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}
