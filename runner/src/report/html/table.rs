//! Sortable, filterable tables. The rows are in the page (readable without scripts and in
//! print); `assets/dixit.js` makes headers sort (by each cell's `data-sort`, else its text;
//! `aria-sort` and an arrow show the order) and a filter box keep the rows that contain every
//! word typed.

use maud::{html, Markup};

/// A column: its header, whether it is numeric (right-aligned, sorted as numbers), and an
/// optional explanation on hover.
#[derive(Clone, Debug)]
pub struct Column {
    /// Header text.
    pub label: String,
    /// Numeric column.
    pub numeric: bool,
    /// Hover text of the header.
    pub title: Option<String>,
}

impl Column {
    /// A text column.
    pub fn text(label: impl Into<String>) -> Self {
        Column {
            label: label.into(),
            numeric: false,
            title: None,
        }
    }

    /// A numeric column.
    pub fn num(label: impl Into<String>) -> Self {
        Column {
            label: label.into(),
            numeric: true,
            title: None,
        }
    }

    /// With an explanation shown on hover.
    pub fn title(mut self, t: impl Into<String>) -> Self {
        self.title = Some(t.into());
        self
    }
}

/// A cell: what it shows and what it sorts by.
#[derive(Clone, Debug)]
pub struct TableCell {
    /// Content.
    pub content: Markup,
    /// Sort key (`data-sort`); the text is used when absent.
    pub sort: Option<String>,
    /// Extra classes (`dx-up`, `dx-down`).
    pub class: Option<&'static str>,
}

impl TableCell {
    /// Text (escaped).
    pub fn text(t: impl AsRef<str>) -> Self {
        TableCell {
            content: html! { (t.as_ref()) },
            sort: None,
            class: None,
        }
    }

    /// A number shown as `shown` and sorted by `value`.
    pub fn num(value: f64, shown: impl AsRef<str>) -> Self {
        TableCell {
            content: html! { (shown.as_ref()) },
            sort: Some(if value.is_finite() {
                format!("{value}")
            } else {
                "-1e300".into()
            }),
            class: None,
        }
    }

    /// Markup sorted by `sort`.
    pub fn markup(content: Markup, sort: impl Into<String>) -> Self {
        TableCell {
            content,
            sort: Some(sort.into()),
            class: None,
        }
    }

    /// With an extra class.
    pub fn class(mut self, c: &'static str) -> Self {
        self.class = Some(c);
        self
    }
}

/// A table with an id (for its filter box), columns and rows.
#[derive(Clone, Debug)]
pub struct Table {
    /// Element id, unique in the page.
    pub id: String,
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows of cells, one per column.
    pub rows: Vec<Vec<TableCell>>,
    /// Show a filter box above the table.
    pub filter: bool,
}

impl Table {
    /// An empty table.
    pub fn new(id: impl Into<String>, columns: Vec<Column>) -> Self {
        Table {
            id: id.into(),
            columns,
            rows: Vec::new(),
            filter: false,
        }
    }

    /// With a filter box.
    pub fn filterable(mut self) -> Self {
        self.filter = true;
        self
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<TableCell>) {
        self.rows.push(cells);
    }

    /// `div.dx-table-wrap` with the optional filter and `table.dx-table[data-sortable]`.
    pub fn render(&self) -> Markup {
        html! {
            div.dx-table-wrap {
                @if self.filter {
                    div.dx-table-tools {
                        input.dx-filter type="search" data-table=(self.id) placeholder="filter rows (words)" aria-label="filter rows";
                        output data-count-for=(self.id) { (self.rows.len()) " rows" }
                    }
                }
                table.dx-table id=(self.id) data-sortable {
                    thead { tr {
                        @for c in &self.columns {
                            th scope="col" data-type=(if c.numeric { "num" } else { "text" }) class=[c.numeric.then_some("num")] title=[c.title.as_deref()] {
                                button.dx-sort type="button" { (c.label) }
                            }
                        }
                    } }
                    tbody {
                        @for r in &self.rows {
                            tr {
                                @for (k, cell) in r.iter().enumerate() {
                                    @let numeric = self.columns.get(k).is_some_and(|c| c.numeric);
                                    @let class = match (numeric, cell.class) {
                                        (true, Some(c)) => Some(format!("num {c}")),
                                        (true, None) => Some("num".to_string()),
                                        (false, c) => c.map(str::to_string),
                                    };
                                    td class=[class] data-sort=[cell.sort.as_deref()] { (cell.content) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_sort_keys_and_escapes() {
        let mut t = Table::new("t", vec![Column::text("name"), Column::num("pass@1")]).filterable();
        t.row(vec![
            TableCell::text("<i>x</i>"),
            TableCell::num(39.15, "39.15 %"),
        ]);
        insta::assert_snapshot!(super::super::pretty(&t.render().into_string()));
    }
}
