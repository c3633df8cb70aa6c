//! Line diffs of two texts (computed by `similar`), shown unified or side by side: both layouts
//! are in the page and a button switches (`data-layout` on `div.dx-diff`; print shows unified).
//! Every changed line carries a sign (`+`, `−`) beside its colour. [`diff_against`] lays out
//! several texts (each coder's implementation) with a chooser for the one to compare against.

use maud::{html, Markup};
use similar::{DiffOp, DiffTag, TextDiff};

/// One side of a diff: a label (file, coder) and the text.
#[derive(Clone, Copy, Debug)]
pub struct DiffSide<'a> {
    /// Shown above the side's column.
    pub label: &'a str,
    /// The text compared line by line.
    pub text: &'a str,
}

/// Lines added and removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffStats {
    /// Lines only in the new text.
    pub added: usize,
    /// Lines only in the old text.
    pub removed: usize,
}

/// Counts the lines `new` adds to and removes from `old`.
pub fn diff_stats(old: &str, new: &str) -> DiffStats {
    let d = TextDiff::from_lines(old, new);
    let mut s = DiffStats::default();
    for op in d.ops() {
        let (tag, o, n) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {}
            DiffTag::Delete => s.removed += o.len(),
            DiffTag::Insert => s.added += n.len(),
            DiffTag::Replace => {
                s.removed += o.len();
                s.added += n.len();
            }
        }
    }
    s
}

fn line(s: &str) -> &str {
    s.strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(s)
}

/// The diff of `old` → `new`. `context`: lines kept around each change (`None`: the whole
/// text). `layout` is the one shown first: `"split"` or `"unified"`.
pub fn diff(old: DiffSide, new: DiffSide, context: Option<usize>, layout: &str) -> Markup {
    let d = TextDiff::from_lines(old.text, new.text);
    let (ol, nl) = (d.old_slices(), d.new_slices());
    let groups: Vec<Vec<DiffOp>> = match context {
        Some(n) => d.grouped_ops(n),
        None => vec![d.ops().to_vec()],
    };
    let stats = diff_stats(old.text, new.text);
    let identical = stats == DiffStats::default();
    html! {
        div.dx-diff data-layout=(layout) {
            div.dx-diff-tools {
                span { "−\u{a0}" (old.label) " → +\u{a0}" (new.label) ": " }
                @if identical { strong { "identical" } }
                @else { span.dx-down { "−" (stats.removed) } " " span.dx-up { "+" (stats.added) } " lines" }
                button type="button" data-layout="split" aria-pressed=(layout == "split") { "side by side" }
                button type="button" data-layout="unified" aria-pressed=(layout == "unified") { "unified" }
            }
            @if !identical {
                table.dx-diff-unified {
                    colgroup { col.ln; col.ln; col.sg; col.tx; }
                    @for (g, ops) in groups.iter().enumerate() {
                        @if context.is_some() { tr.hunk { td colspan="4" { (hunk_header(ops, g)) } } }
                        @for op in ops {
                            @let (tag, o, n) = op.as_tag_tuple();
                            @if tag == DiffTag::Equal {
                                @for (i, j) in o.clone().zip(n.clone()) {
                                    tr { td.ln { (i + 1) } td.ln { (j + 1) } td.sg { " " } td { (line(ol[i])) } }
                                }
                            } @else {
                                @for i in o.clone() {
                                    tr.del { td.ln { (i + 1) } td.ln {} td.sg { "−" } td { (line(ol[i])) } }
                                }
                                @for j in n.clone() {
                                    tr.ins { td.ln {} td.ln { (j + 1) } td.sg { "+" } td { (line(nl[j])) } }
                                }
                            }
                        }
                    }
                }
                table.dx-diff-split {
                    colgroup { col.ln; col.sg; col.tx; col.ln; col.sg; col.tx; }
                    tr.hunk { td colspan="3" { "−\u{a0}" (old.label) } td colspan="3" { "+\u{a0}" (new.label) } }
                    @for (g, ops) in groups.iter().enumerate() {
                        @if context.is_some() && g > 0 { tr.hunk { td colspan="6" { "⋯" } } }
                        @for op in ops {
                            @let (tag, o, n) = op.as_tag_tuple();
                            @let rows = o.len().max(n.len());
                            @for k in 0..rows {
                                @let i = (k < o.len()).then(|| o.start + k);
                                @let j = (k < n.len()).then(|| n.start + k);
                                @let (lc, ls) = if tag == DiffTag::Equal { ("", " ") } else { ("del", "−") };
                                @let (rc, rs) = if tag == DiffTag::Equal { ("", " ") } else { ("ins", "+") };
                                tr {
                                    @if let Some(i) = i {
                                        td.ln.(lc) { (i + 1) } td.sg.(lc) { (ls) } td.(lc) { (line(ol[i])) }
                                    } @else { td.ln {} td.sg {} td {} }
                                    @if let Some(j) = j {
                                        td.ln.(rc) { (j + 1) } td.sg.(rc) { (rs) } td.(rc) { (line(nl[j])) }
                                    } @else { td.ln {} td.sg {} td {} }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn hunk_header(ops: &[DiffOp], _group: usize) -> String {
    let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
        return String::new();
    };
    let (o0, n0) = (first.old_range().start, first.new_range().start);
    let (o1, n1) = (last.old_range().end, last.new_range().end);
    format!("@@ −{},{} +{},{} @@", o0 + 1, o1 - o0, n0 + 1, n1 - n0)
}

/// Several named texts (each coder's implementation), each shown in full with a chooser:
/// "compare with" any other one renders the diff of that other → this one. All diffs are in
/// the page (hidden until chosen), so it works offline and prints the chosen ones.
/// `id` prefixes the elements' ids (item `i` is `ID-i`, a link target); `base` is the index
/// each text is compared with first (or `None`: none chosen).
pub fn diff_against(id: &str, items: &[DiffSide], base: Option<usize>) -> Markup {
    html! {
        div.dx-diff-against id=(id) {
            @for (i, item) in items.iter().enumerate() {
                div.dx-diff-item id=(format!("{id}-{i}")) data-item=(i) {
                    h3 { (item.label) }
                    label.dx-noprint {
                        "compare with "
                        select data-diff-choice=(format!("{id}-{i}")) {
                            option value="" { "(none: the code)" }
                            @for (j, other) in items.iter().enumerate() {
                                @if j != i {
                                    option value=(j) selected[base == Some(j)] { (other.label) }
                                }
                            }
                        }
                    }
                    div data-diff-view="" hidden[base.is_some_and(|b| b != i)] { (super::code::code(item.text, None)) }
                    @for (j, other) in items.iter().enumerate() {
                        @if j != i {
                            div data-diff-view=(j) hidden[base != Some(j)] {
                                (diff(*other, *item, Some(3), "split"))
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

    const OLD: &str = "a\nb\nc\n";
    const NEW: &str = "a\nB\nc\nd\n";

    #[test]
    fn stats_count_lines() {
        assert_eq!(
            diff_stats(OLD, NEW),
            DiffStats {
                added: 2,
                removed: 1
            }
        );
        assert_eq!(diff_stats(OLD, OLD), DiffStats::default());
    }

    #[test]
    fn unified_and_split_views() {
        let html = diff(
            DiffSide {
                label: "coder-1",
                text: OLD,
            },
            DiffSide {
                label: "coder-2",
                text: NEW,
            },
            None,
            "split",
        )
        .into_string();
        insta::assert_snapshot!(super::super::pretty(&html));
    }

    #[test]
    fn identical_texts_say_so_and_hostile_text_is_escaped() {
        let t = "x = '</script><img src=x onerror=alert(1)>'\n";
        let html = diff(
            DiffSide {
                label: "a",
                text: t,
            },
            DiffSide {
                label: "b",
                text: t,
            },
            Some(3),
            "unified",
        )
        .into_string();
        assert!(html.contains("identical"));
        let html = diff(
            DiffSide {
                label: "a",
                text: "",
            },
            DiffSide {
                label: "<b>",
                text: t,
            },
            Some(3),
            "unified",
        )
        .into_string();
        assert!(!html.contains("<img") && !html.contains("</script>") && !html.contains("<b>"));
        assert!(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"));
    }

    #[test]
    fn diff_against_hides_all_but_the_chosen_view() {
        let items = [
            DiffSide {
                label: "coder-1",
                text: OLD,
            },
            DiffSide {
                label: "coder-2",
                text: NEW,
            },
        ];
        let html = diff_against("impl", &items, Some(0)).into_string();
        // coder-1 against itself does not exist: it shows its code; coder-2 shows the diff.
        assert_eq!(html.matches("class=\"dx-diff\"").count(), 2);
        assert_eq!(html.matches(" hidden").count(), 2, "{html}");
    }
}
