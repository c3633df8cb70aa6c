//! The matrix (heatmap) component: rows × columns of one-letter codes (verdicts, bands), each
//! cell coloured by a class named after its letter (`v-P`, `b-I`) and showing the letter, so it
//! reads without colour and in print. Rows may start with "lead" cells (a solution's hidden
//! verdict, a coder's multiplicity) and be marked as annotations (a test's band above the
//! columns). [`Matrix::render`] draws it on the server (the run report's small coders × tests
//! matrices); `dixit.matrix(spec)` in `assets/dixit.js` draws the same markup in the browser
//! from the same fields, for matrices too large to put in the page eagerly.

use maud::{html, Markup};
use serde::Serialize;

use crate::eval::verdict_of_code;

/// A column (or a lead column's) header.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MatrixCol {
    /// Short label (`t12`), drawn vertically.
    pub label: String,
    /// Hover text (the test's file name, its author).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Draw a separating rule before this column (e.g. where hidden tests begin).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sep: bool,
}

/// A lead cell: one letter before a row's cells, with its class family (`v`, `b`).
#[derive(Clone, Debug, Serialize)]
pub struct LeadCell {
    /// The letter shown.
    pub c: char,
    /// The class family: the cell gets classes `CLS CLS-LETTER`.
    pub cls: &'static str,
}

/// One row: a header and one letter per column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MatrixRow {
    /// Row header (`coder-1`, `s7`).
    pub label: String,
    /// Hover text of the header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Cells before the main ones, under [`Matrix::lead_heads`] (missing ones are left empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lead: Vec<LeadCell>,
    /// One letter per column.
    pub cells: String,
    /// The class family of the cells: `v` for verdicts (the default), `b` for bands.
    pub cls: &'static str,
    /// An annotation row (bold, its header is not a button).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub annot: bool,
}

/// A matrix of letters with headers; see the module doc.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Matrix {
    /// Caption above the matrix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    /// The top-left header cell (`coder \ test`).
    pub corner: String,
    /// Headers of the lead columns.
    #[serde(rename = "leadHeads")]
    pub lead_heads: Vec<MatrixCol>,
    /// Column headers.
    pub cols: Vec<MatrixCol>,
    /// The rows.
    pub rows: Vec<MatrixRow>,
}

impl Matrix {
    /// The `<div.dx-matrix-wrap><table.dx-matrix>` of this matrix; each cell's hover text names
    /// its row, its column and what its letter means.
    pub fn render(&self) -> Markup {
        html! {
            div.dx-matrix-wrap {
                table.dx-matrix {
                    @if let Some(c) = &self.caption { caption.dx-muted { (c) } }
                    thead { tr {
                        th scope="col" { (self.corner) }
                        @for (k, h) in self.lead_heads.iter().enumerate() {
                            th scope="col" title=(h.title.as_deref().unwrap_or(&h.label)) data-lead=(k) { (h.label) }
                        }
                        @for (j, c) in self.cols.iter().enumerate() {
                            th scope="col" title=(c.title.as_deref().unwrap_or(&c.label)) class=[c.sep.then_some("dx-sep")] {
                                button type="button" data-c=(j) { (c.label) }
                            }
                        }
                    } }
                    tbody {
                        @for (i, r) in self.rows.iter().enumerate() {
                            tr class=[r.annot.then_some("dx-annot")] {
                                th scope="row" title=(r.title.as_deref().unwrap_or(&r.label)) {
                                    @if r.annot { (r.label) } @else { button type="button" data-r=(i) { (r.label) } }
                                }
                                @for (k, h) in self.lead_heads.iter().enumerate() {
                                    @if let Some(x) = r.lead.get(k) {
                                        td class={ (x.cls) " " (x.cls) "-" (x.c) } data-r=(i) data-lead=(k)
                                            title={ (r.label) " · " (h.label) ": " (meaning(x.cls, x.c)) } { (x.c) }
                                    } @else {
                                        td.dx-pad {}
                                    }
                                }
                                @let cls = if r.cls.is_empty() { "v" } else { r.cls };
                                @for (j, c) in r.cells.chars().enumerate() {
                                    @let sep = self.cols.get(j).is_some_and(|c| c.sep);
                                    td class={ (cls) " " (cls) "-" (c) @if sep { " dx-sep" } } data-r=(i) data-c=(j)
                                        title={ (r.label) " × " (self.cols.get(j).map_or("", |c| c.label.as_str())) ": " (meaning(cls, c)) } { (c) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One entry of a legend: a letter, its class family and what it means.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LegendEntry {
    /// The letter in the cells.
    pub code: char,
    /// The class family (`v`, `b`).
    pub cls: &'static str,
    /// What the letter means.
    pub name: &'static str,
}

/// The verdict letters of stored matrices (`eval::verdict_code`) and their names.
pub fn verdict_legend() -> Vec<LegendEntry> {
    "PWRTLMOCI"
        .chars()
        .map(|c| LegendEntry {
            code: c,
            cls: "v",
            name: verdict_of_code(c).map_or("?", |k| k.as_str()),
        })
        .collect()
}

/// The band letters: `I` IDEAL, `H` TOO_HARD, `E` TOO_EASY.
pub fn band_legend() -> Vec<LegendEntry> {
    [('I', "IDEAL"), ('H', "TOO_HARD"), ('E', "TOO_EASY")]
        .into_iter()
        .map(|(code, name)| LegendEntry {
            code,
            cls: "b",
            name,
        })
        .collect()
}

/// What a letter of a class family means (`"?"` if nothing; `X`: not run).
pub fn meaning(cls: &str, c: char) -> &'static str {
    if c == 'X' {
        return "not run";
    }
    let entries = if cls == "b" {
        band_legend()
    } else {
        verdict_legend()
    };
    entries
        .into_iter()
        .find(|e| e.code == c)
        .map_or("?", |e| e.name)
}

/// A legend: each letter in its coloured swatch, then its name.
pub fn legend(entries: &[LegendEntry]) -> Markup {
    html! {
        ul.dx-legend {
            @for e in entries {
                li { span class={ "sw " (e.cls) " " (e.cls) "-" (e.code) } { (e.code) } (e.name) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_letters_with_classes_and_titles() {
        let m = Matrix {
            caption: Some("round 1".into()),
            corner: "coder \\ test".into(),
            lead_heads: vec![MatrixCol {
                label: "hidden".into(),
                ..Default::default()
            }],
            cols: vec![
                MatrixCol {
                    label: "t1".into(),
                    title: Some("test_001.py by tester-1".into()),
                    sep: false,
                },
                MatrixCol {
                    label: "<t2>".into(),
                    title: None,
                    sep: true,
                },
            ],
            rows: vec![
                MatrixRow {
                    label: "band".into(),
                    cells: "IH".into(),
                    cls: "b",
                    annot: true,
                    ..Default::default()
                },
                MatrixRow {
                    label: "coder-1".into(),
                    lead: vec![LeadCell { c: 'P', cls: "v" }],
                    cells: "PW".into(),
                    cls: "v",
                    ..Default::default()
                },
            ],
        };
        insta::assert_snapshot!(super::super::pretty(&m.render().into_string()));
    }

    #[test]
    fn legends_name_every_letter() {
        assert_eq!(meaning("v", 'T'), "time_limit");
        assert_eq!(meaning("b", 'H'), "TOO_HARD");
        assert_eq!(meaning("v", '"'), "?");
        assert_eq!(verdict_legend().len(), 9);
    }
}
