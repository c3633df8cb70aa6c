//! Small charts as inline SVG drawn here (no chart library, no script): horizontal bar charts,
//! stacked histograms and dot charts. Colours come from CSS classes (`s0`…`s4` per series,
//! `v-P`… per verdict), so they follow light, dark and print; series also differ by something
//! other than colour (marker shape, fill pattern) and values are written as text or in each
//! mark's `<title>` (hover). Each chart is a `figure.dx-chart` with a caption and an
//! `aria-label` on the SVG.
//!
//! Text cannot be measured here (the browser picks the font), so widths are estimated
//! generously from character counts ([`text_width`]) and every chart is sized to hold its
//! labels: nothing is clipped, and axis labels are thinned out rather than overlapped. Axes of
//! counts have whole-number ticks.

use maud::{html, Markup};

/// One bar of a [`bar_chart`].
#[derive(Clone, Debug)]
pub struct Bar {
    /// Label left of the bar.
    pub label: String,
    /// Length of the bar.
    pub value: f64,
    /// The value as written right of the bar (`39.15 %`).
    pub shown: String,
    /// CSS class of the bar (`v-P` for a verdict's colour); `bar` if `None`.
    pub class: Option<String>,
}

fn num(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// A horizontal bar chart scaled to `max` (or the largest value).
pub fn bar_chart(caption: &str, bars: &[Bar], max: Option<f64>) -> Markup {
    let widest =
        |f: &dyn Fn(&Bar) -> &str| bars.iter().map(|b| text_width(f(b))).fold(0.0, f64::max);
    let label_w = widest(&|b| &b.label).max(40.0) + 12.0;
    let value_w = widest(&|b| &b.shown) + 12.0;
    let (bar_w, row_h) = (330.0, 22.0);
    let width = label_w + bar_w + value_w;
    let height = row_h * bars.len() as f64 + 8.0;
    let max = max
        .unwrap_or_else(|| bars.iter().map(|b| b.value).fold(0.0, f64::max))
        .max(f64::MIN_POSITIVE);
    html! {
        figure.dx-chart {
            figcaption { (caption) }
            svg viewBox={ "0 0 " (num(width)) " " (num(height)) } width=(num(width)) height=(num(height)) role="img" aria-label=(caption) {
                @for (i, b) in bars.iter().enumerate() {
                    @let y = 4.0 + row_h * i as f64;
                    @let w = (b.value / max).clamp(0.0, 1.0) * bar_w;
                    text x=(num(label_w - 8.0)) y=(num(y + row_h * 0.65)) text-anchor="end" { (b.label) }
                    rect class=(b.class.as_deref().unwrap_or("bar")) x=(num(label_w)) y=(num(y + 3.0)) width=(num(w.max(0.5))) height=(num(row_h - 6.0)) {
                        title { (b.label) ": " (b.shown) }
                    }
                    text x=(num(label_w + w + 6.0)) y=(num(y + row_h * 0.65)) { (b.shown) }
                }
            }
        }
    }
}

/// A series of a [`histogram`] or a [`dot_chart`]; series `k` is drawn in the colour of class
/// `s{k}` and, in a histogram, with the `k`-th fill pattern (solid, hatched, dotted,
/// cross-hatched; the segments themselves have class `seg`, so CSS does not override the
/// pattern).
#[derive(Clone, Debug)]
pub struct Series {
    /// Name in the legend.
    pub name: String,
    /// One value per bin or category; `None` leaves it out (dot charts).
    pub values: Vec<Option<f64>>,
}

fn patterns(id: &str, n: usize) -> Markup {
    html! {
        defs {
            @for k in 0..n {
                pattern id={ (id) "-p" (k) } patternUnits="userSpaceOnUse" width="6" height="6" {
                    rect class={ "s" (k % 5) } width="6" height="6" stroke="none" {}
                    @match k % 4 {
                        1 => { path.hatch-line d="M0,6 L6,0" {} }
                        2 => { circle.hatch-line cx="3" cy="3" r="1.2" {} }
                        3 => { path.hatch-line d="M0,6 L6,0 M0,0 L6,6" {} }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// A vertical histogram: one column per bin, the series stacked, each with its own fill
/// pattern; counts on hover; a legend below.
pub fn histogram(
    id: &str,
    caption: &str,
    bins: &[String],
    series: &[Series],
    y_label: &str,
) -> Markup {
    let (left, top, plot_w, plot_h) = (56.0, 10.0, 560.0, 200.0);
    let width = left + plot_w + 10.0;
    let height = top + plot_h + 70.0 + 18.0 * series.len() as f64;
    let totals: Vec<f64> = (0..bins.len())
        .map(|b| {
            series
                .iter()
                .map(|s| s.values.get(b).copied().flatten().unwrap_or(0.0))
                .sum()
        })
        .collect();
    let axis = Axis::new(totals.iter().copied().fold(0.0, f64::max), true);
    let max = axis.top;
    let bw = plot_w / bins.len().max(1) as f64;
    let every = label_every(bins, bw, 11.0);
    let y = |v: f64| top + plot_h - v / max * plot_h;
    // (bin, its label, series, bottom, top) of every non-empty segment.
    let mut stacks = Vec::new();
    for (b, label) in bins.iter().enumerate() {
        let mut base = 0.0;
        for (k, s) in series.iter().enumerate() {
            let v = s.values.get(b).copied().flatten().unwrap_or(0.0);
            if v > 0.0 {
                stacks.push((b, label, k, base, base + v));
            }
            base += v;
        }
    }
    html! {
        figure.dx-chart {
            figcaption { (caption) }
            svg viewBox={ "0 0 " (num(width)) " " (num(height)) } width=(num(width)) height=(num(height)) role="img" aria-label=(caption) {
                (patterns(id, series.len()))
                (y_axis(left, top, plot_w, plot_h, &axis, y_label))
                @for (b, label, k, lo, hi) in &stacks {
                    @let x = left + bw * *b as f64;
                    rect fill={ "url(#" (id) "-p" (k) ")" } class="seg"
                        x=(num(x + 2.0)) y=(num(y(*hi))) width=(num(bw - 4.0)) height=(num(y(*lo) - y(*hi))) {
                        title { (label) " · " (series[*k].name) ": " (num(hi - lo)) }
                    }
                }
                @for (b, label) in bins.iter().enumerate().filter(|(b, _)| b % every == 0) {
                    text x=(num(left + bw * (b as f64 + 0.5))) y=(num(top + plot_h + 14.0)) text-anchor="middle" font-size="11" { (label) }
                }
                (series_legend(id, series, left, top + plot_h + 40.0, true))
            }
        }
    }
}

/// A dot chart: categories along x, values along y from 0 to `y_max`, one marker shape per
/// series (circle, square, triangle, diamond, cross, inverted triangle), hollow so overlaps stay visible, each
/// series offset a little within its category. Categories are labelled by name, or by
/// position (`numbered`: 1, 2, … at round intervals, the names in each mark's title); labels
/// that would overlap are thinned out.
#[derive(Clone, Debug)]
pub struct DotChart<'a> {
    /// The figure's caption (and the SVG's `aria-label`).
    pub caption: &'a str,
    /// The categories along x, by name (names are shown in each mark's title).
    pub categories: &'a [String],
    /// One marker shape per series; `None` values are left out.
    pub series: &'a [Series],
    /// The largest value the y axis must hold (its top is the next round tick).
    pub y_max: f64,
    /// The y axis's title.
    pub y_label: &'a str,
    /// Whether y counts things (whole-number ticks).
    pub counts: bool,
    /// The x axis's title (below its labels); none if empty.
    pub x_label: &'a str,
    /// Label the categories 1, 2, … (at round intervals) instead of by name.
    pub numbered: bool,
}

/// Draws a [`DotChart`].
pub fn dot_chart(c: &DotChart) -> Markup {
    let (left, top, plot_h) = (56.0, 10.0, 220.0);
    let n_cat = c.categories.len().max(1);
    let shown: Vec<String> = if c.numbered {
        (1..=n_cat).map(|i| i.to_string()).collect()
    } else {
        c.categories.to_vec()
    };
    let widest = shown.iter().map(|l| text_width(l)).fold(0.0, f64::max) * 10.0 / 12.0;
    // A category is as wide as its label when they fit in 900 units, else narrower (the
    // labels thinned out); never below a marker's width.
    let mut cw = (900.0 / n_cat as f64).clamp(8.0, 40.0);
    if (widest + 8.0) * n_cat as f64 <= 900.0 {
        cw = cw.max(widest + 8.0);
    }
    // A chart of a few categories is still wide enough to read (240 units).
    cw = cw.max(240.0 / n_cat as f64);
    let every = if c.numbered {
        round_step((widest + 6.0) / cw).max(1.0) as usize
    } else {
        label_every(&shown, cw, 10.0)
    };
    let plot_w = cw * n_cat as f64;
    let axis = Axis::new(c.y_max, c.counts);
    let x_title_h = if c.x_label.is_empty() { 0.0 } else { 18.0 };
    let width = (left + plot_w + 10.0).max(left + text_width(c.x_label) + 10.0);
    let height = top + plot_h + 60.0 + x_title_h + 18.0 * c.series.len() as f64;
    let y = |v: f64| top + plot_h - v / axis.top * plot_h;
    let n = c.series.len().max(1) as f64;
    html! {
        figure.dx-chart {
            figcaption { (c.caption) }
            svg viewBox={ "0 0 " (num(width)) " " (num(height)) } width=(num(width)) height=(num(height)) role="img" aria-label=(c.caption) {
                (y_axis(left, top, plot_w, plot_h, &axis, c.y_label))
                @for (i, cat) in c.categories.iter().enumerate() {
                    @let x0 = left + cw * i as f64;
                    // Numbered: 1, then every `every`-th; by name: every `every`-th from the first.
                    @if (c.numbered && (i == 0 || (i + 1) % every == 0)) || (!c.numbered && i % every == 0) {
                        text x=(num(x0 + cw / 2.0)) y=(num(top + plot_h + 14.0)) text-anchor="middle" font-size="10" { (shown[i]) }
                    }
                    @for (k, s) in c.series.iter().enumerate() {
                        @if let Some(v) = s.values.get(i).copied().flatten() {
                            @let x = x0 + cw * (k as f64 + 0.5) / n;
                            (marker(k, x, y(v), &format!("{cat} · {}: {}", s.name, num(v))))
                        }
                    }
                }
                @if !c.x_label.is_empty() {
                    text x=(num(left + plot_w / 2.0)) y=(num(top + plot_h + 32.0)) text-anchor="middle" font-size="11" { (c.x_label) }
                }
                (series_legend("", c.series, left, top + plot_h + 34.0 + x_title_h, false))
            }
        }
    }
}

/// One row of a [`whisker_chart`]: a point and its interval.
#[derive(Clone, Debug)]
pub struct Whisker {
    /// Label left of the row.
    pub label: String,
    /// The point, in the chart's units (`None`: nothing to draw, e.g. no problems).
    pub value: Option<f64>,
    /// Its interval (`None`: the point alone, and `shown` says why).
    pub interval: Option<(f64, f64)>,
    /// What is written right of the row (`6/10 60 % [31–83]`), and on hover.
    pub shown: String,
    /// The row's `data-key` (what it stands for, for page scripts and tests).
    pub key: String,
}

/// A horizontal dot-and-whisker chart: one row per [`Whisker`], a dot at its value and a line
/// across its interval, on an x axis over `domain`, with an optional vertical reference line
/// (0 for differences).
#[derive(Clone, Debug)]
pub struct WhiskerChart<'a> {
    /// The figure's caption (and the SVG's `aria-label`).
    pub caption: &'a str,
    /// The rows, top to bottom.
    pub rows: &'a [Whisker],
    /// The x axis's range (low, high).
    pub domain: (f64, f64),
    /// Ticks along x: value and label.
    pub ticks: &'a [(f64, String)],
    /// Where to draw a vertical reference line, if anywhere.
    pub reference: Option<f64>,
    /// The x axis's title.
    pub x_label: &'a str,
}

/// Draws a [`WhiskerChart`]; each row is a `g.dx-whisker[data-key]` whose dot is
/// `circle.dx-point` (absent when the row has no value).
pub fn whisker_chart(c: &WhiskerChart) -> Markup {
    let label_w = c
        .rows
        .iter()
        .map(|r| text_width(&r.label))
        .fold(40.0, f64::max)
        + 12.0;
    let shown_w = c
        .rows
        .iter()
        .map(|r| text_width(&r.shown))
        .fold(0.0, f64::max)
        + 16.0;
    let (plot_w, row_h, top) = (480.0, 26.0, 8.0);
    let plot_h = row_h * c.rows.len().max(1) as f64;
    let width = label_w + plot_w + shown_w;
    let height = top + plot_h + 44.0;
    let (lo, hi) = c.domain;
    let span = if hi > lo { hi - lo } else { 1.0 };
    let x = |v: f64| label_w + (v.clamp(lo, hi) - lo) / span * plot_w;
    html! {
        figure.dx-chart {
            figcaption { (c.caption) }
            svg viewBox={ "0 0 " (num(width)) " " (num(height)) } width=(num(width)) height=(num(height)) role="img" aria-label=(c.caption) {
                g.grid {
                    @for (v, label) in c.ticks {
                        line x1=(num(x(*v))) x2=(num(x(*v))) y1=(num(top)) y2=(num(top + plot_h)) {}
                        text x=(num(x(*v))) y=(num(top + plot_h + 14.0)) text-anchor="middle" font-size="11" { (label) }
                    }
                }
                @if let Some(r) = c.reference {
                    line.dx-ref x1=(num(x(r))) x2=(num(x(r))) y1=(num(top - 4.0)) y2=(num(top + plot_h + 2.0)) {}
                }
                text x=(num(label_w + plot_w / 2.0)) y=(num(top + plot_h + 32.0)) text-anchor="middle" font-size="11" { (c.x_label) }
                @for (i, r) in c.rows.iter().enumerate() {
                    @let y = top + row_h * (i as f64 + 0.5);
                    g.dx-whisker data-key=(r.key) {
                        title { (r.label) ": " (r.shown) }
                        text x=(num(label_w - 8.0)) y=(num(y + 4.0)) text-anchor="end" { (r.label) }
                        @if let Some((a, b)) = r.interval {
                            line.dx-ci x1=(num(x(a))) x2=(num(x(b))) y1=(num(y)) y2=(num(y)) {}
                            line.dx-ci x1=(num(x(a))) x2=(num(x(a))) y1=(num(y - 5.0)) y2=(num(y + 5.0)) {}
                            line.dx-ci x1=(num(x(b))) x2=(num(x(b))) y1=(num(y - 5.0)) y2=(num(y + 5.0)) {}
                        }
                        @if let Some(v) = r.value {
                            circle.dx-point.s0 cx=(num(x(v))) cy=(num(y)) r="4.5" {}
                        }
                        text x=(num(label_w + plot_w + 10.0)) y=(num(y + 4.0)) { (r.shown) }
                    }
                }
            }
        }
    }
}

/// One point of a [`scatter_chart`].
#[derive(Clone, Debug)]
pub struct ScatterPoint {
    /// The label written beside it.
    pub label: String,
    /// Its x value.
    pub x: f64,
    /// Its y value.
    pub y: f64,
    /// Its hover text (the numbers).
    pub title: String,
    /// Its `data-key`.
    pub key: String,
}

/// A scatter plot of labelled points: x from 0 to a round number at least the largest x, y
/// from 0 to `y_max`. Point `k` has the `k`-th marker shape and colour (as the series of a
/// [`dot_chart`]); points drawn at the same place share one label, and each label goes right
/// of its marker, else left, above or below, wherever it covers no marker and no other label.
#[derive(Clone, Debug)]
pub struct ScatterChart<'a> {
    /// The figure's caption (and the SVG's `aria-label`).
    pub caption: &'a str,
    /// The points.
    pub points: &'a [ScatterPoint],
    /// The x axis's title.
    pub x_label: &'a str,
    /// Whether x counts things (whole-number ticks).
    pub x_counts: bool,
    /// The y axis's title.
    pub y_label: &'a str,
    /// The top of the y axis (the bottom is 0).
    pub y_max: f64,
}

/// Draws a [`ScatterChart`]; each point is a `g.dx-scatter-point[data-key]`.
pub fn scatter_chart(c: &ScatterChart) -> Markup {
    let (left, top, plot_w, plot_h) = (56.0, 12.0, 420.0, 240.0);
    let x_axis = Axis::new(c.points.iter().map(|p| p.x).fold(0.0, f64::max), c.x_counts);
    let y_scale = Axis::new(c.y_max, false);
    let px = |v: f64| left + v.max(0.0) / x_axis.top * plot_w;
    let py = |v: f64| top + plot_h - v.clamp(0.0, y_scale.top) / y_scale.top * plot_h;
    // One label per place: the names of the points drawn there.
    let mut labels: Vec<(f64, f64, String)> = Vec::new();
    for p in c.points {
        let (x, y) = (px(p.x), py(p.y));
        if let Some(l) = labels
            .iter_mut()
            .find(|(lx, ly, _)| (*lx - x).abs() < 0.5 && (*ly - y).abs() < 0.5)
        {
            l.2 = format!("{}, {}", l.2, p.label);
        } else {
            labels.push((x, y, p.label.clone()));
        }
    }
    let room = labels
        .iter()
        .map(|l| text_width(&l.2))
        .fold(0.0, f64::max)
        .min(160.0)
        + 8.0;
    let area = Area {
        left: left + 2.0,
        right: left + plot_w + room,
        top: 0.0,
        bottom: top + plot_h + 6.0,
    };
    let texts = place_labels(&labels, area);
    let width = area.right + 8.0;
    let height = top + plot_h + 44.0;
    html! {
        figure.dx-chart {
            figcaption { (c.caption) }
            svg viewBox={ "0 0 " (num(width)) " " (num(height)) } width=(num(width)) height=(num(height)) role="img" aria-label=(c.caption) {
                (y_axis(left, top, plot_w, plot_h, &y_scale, c.y_label))
                g.grid {
                    @for v in &x_axis.ticks {
                        line x1=(num(px(*v))) x2=(num(px(*v))) y1=(num(top)) y2=(num(top + plot_h)) {}
                        text x=(num(px(*v))) y=(num(top + plot_h + 14.0)) text-anchor="middle" font-size="11" { (num(*v)) }
                    }
                }
                text x=(num(left + plot_w / 2.0)) y=(num(top + plot_h + 32.0)) text-anchor="middle" font-size="11" { (c.x_label) }
                @for (k, p) in c.points.iter().enumerate() {
                    g.dx-scatter-point data-key=(p.key) {
                        (marker_sized(k, px(p.x), py(p.y), 4.5, &p.title))
                    }
                }
                @for ((x, y), (_, _, text)) in texts.iter().zip(&labels) {
                    text x=(num(*x)) y=(num(*y)) { (text) }
                }
            }
        }
    }
}

/// A rectangle of a chart, in its units.
#[derive(Clone, Copy, Debug)]
struct Area {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Area {
    fn overlaps(&self, o: &Area) -> bool {
        self.left < o.right && o.left < self.right && self.top < o.bottom && o.top < self.bottom
    }

    fn inside(&self, o: &Area) -> bool {
        self.left >= o.left && self.right <= o.right && self.top >= o.top && self.bottom <= o.bottom
    }
}

/// Where each label `(marker x, marker y, text)` goes, as the (x, baseline) of left-aligned
/// text: the first place right of its marker, left of it, above it, or below it (then lower,
/// line by line) that stays in `area` and covers no marker and no label placed before; the
/// place right of the marker when none does.
fn place_labels(labels: &[(f64, f64, String)], area: Area) -> Vec<(f64, f64)> {
    let marker = |x: f64, y: f64| Area {
        left: x - 6.0,
        right: x + 6.0,
        top: y - 6.0,
        bottom: y + 6.0,
    };
    let mut taken: Vec<Area> = labels.iter().map(|(x, y, _)| marker(*x, *y)).collect();
    let mut out = Vec::new();
    for (x, y, text) in labels {
        let w = text_width(text);
        let text_box = |tx: f64, ty: f64| Area {
            left: tx,
            right: tx + w,
            top: ty - 10.0,
            bottom: ty + 3.0,
        };
        let mut candidates = vec![
            (x + 8.0, y + 4.0),
            (x - 8.0 - w, y + 4.0),
            (x - 2.0, y - 9.0),
        ];
        candidates.extend((0..12).map(|k| (x - 2.0, y + 18.0 + 14.0 * k as f64)));
        let (tx, ty) = candidates
            .iter()
            .copied()
            .find(|&(tx, ty)| {
                let b = text_box(tx, ty);
                b.inside(&area) && !taken.iter().any(|t| t.overlaps(&b))
            })
            .unwrap_or(candidates[0]);
        taken.push(text_box(tx, ty));
        out.push((tx, ty));
    }
    out
}

/// Every how many labels of width `font`-px text fit side by side in slots `slot` wide.
fn label_every(labels: &[String], slot: f64, font: f64) -> usize {
    let widest = labels.iter().map(|l| text_width(l)).fold(0.0, f64::max) * font / 12.0;
    ((widest + 6.0) / slot.max(1.0)).ceil().max(1.0) as usize
}

fn marker(k: usize, x: f64, y: f64, title: &str) -> Markup {
    marker_sized(k, x, y, 3.2, title)
}

/// The `k`-th marker shape (circle, square, triangle, diamond, cross, inverted triangle) of
/// radius `r` at (x, y): six apart, one per protocol of a full comparison.
fn marker_sized(k: usize, x: f64, y: f64, r: f64, title: &str) -> Markup {
    let class = format!("hollow s{}", k % 6);
    let t = html! { title { (title) } };
    match k % 6 {
        0 => html! { circle class=(class) cx=(num(x)) cy=(num(y)) r=(num(r)) { (t) } },
        1 => {
            html! { rect class=(class) x=(num(x - r)) y=(num(y - r)) width=(num(2.0 * r)) height=(num(2.0 * r)) { (t) } }
        }
        2 => {
            html! { path class=(class) d={ "M" (num(x)) "," (num(y - r - 0.6)) " L" (num(x + r + 0.4)) "," (num(y + r)) " L" (num(x - r - 0.4)) "," (num(y + r)) " Z" } { (t) } }
        }
        3 => {
            html! { path class=(class) d={ "M" (num(x)) "," (num(y - r - 0.8)) " L" (num(x + r + 0.8)) "," (num(y)) " L" (num(x)) "," (num(y + r + 0.8)) " L" (num(x - r - 0.8)) "," (num(y)) " Z" } { (t) } }
        }
        4 => {
            html! { path class=(class) d={ "M" (num(x - r)) "," (num(y - r)) " L" (num(x + r)) "," (num(y + r)) " M" (num(x + r)) "," (num(y - r)) " L" (num(x - r)) "," (num(y + r)) } { (t) } }
        }
        _ => {
            html! { path class=(class) d={ "M" (num(x)) "," (num(y + r + 0.6)) " L" (num(x + r + 0.4)) "," (num(y - r)) " L" (num(x - r - 0.4)) "," (num(y - r)) " Z" } { (t) } }
        }
    }
}

fn series_legend(id: &str, series: &[Series], x: f64, y: f64, patterned: bool) -> Markup {
    html! {
        g.legend {
            @for (k, s) in series.iter().enumerate() {
                @let yy = y + 18.0 * k as f64;
                @if patterned {
                    rect fill={ "url(#" (id) "-p" (k) ")" } class="seg" x=(num(x)) y=(num(yy - 10.0)) width="14" height="12" {}
                } @else {
                    (marker(k, x + 7.0, yy - 4.0, &s.name))
                }
                text x=(num(x + 22.0)) y=(num(yy)) { (s.name) }
            }
        }
    }
}

/// A generous estimate of the width of `s` in 12px system-ui text: 7.2 units a character
/// (wider than the average letter or digit), so that sizes made from it do not clip.
pub(super) fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * 7.2
}

/// The smallest "round" number (1, 2 or 5 × 10ⁿ) at least `v`.
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&m| m >= v * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// [`nice_max`] of a positive step; a step below 1 of a count is 1.
fn round_step(v: f64) -> f64 {
    nice_max(v)
}

/// A y axis from 0: its top and its ticks, at most five intervals of a round step (whole
/// numbers for counts), the top a multiple of the step at least the largest value.
#[derive(Clone, Debug, PartialEq)]
struct Axis {
    top: f64,
    ticks: Vec<f64>,
}

impl Axis {
    fn new(max: f64, counts: bool) -> Axis {
        let max = if max > 0.0 { max } else { 1.0 };
        let mut step = round_step(max / 5.0);
        if counts {
            step = step.max(1.0).round();
        }
        let intervals = (max / step - 1e-9).ceil().max(1.0) as usize;
        Axis {
            top: step * intervals as f64,
            ticks: (0..=intervals).map(|i| step * i as f64).collect(),
        }
    }
}

fn y_axis(left: f64, top: f64, w: f64, h: f64, axis: &Axis, label: &str) -> Markup {
    html! {
        g.grid {
            @for v in &axis.ticks {
                @let y = top + h - h * v / axis.top;
                line x1=(num(left)) x2=(num(left + w)) y1=(num(y)) y2=(num(y)) {}
                text x=(num(left - 6.0)) y=(num(y + 4.0)) text-anchor="end" font-size="11" { (num(*v)) }
            }
        }
        text transform={ "translate(12," (num(top + h / 2.0)) ") rotate(-90)" } text-anchor="middle" font-size="11" { (label) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_axes_have_whole_ticks_and_others_round_ones() {
        let ticks = |max, counts| Axis::new(max, counts).ticks;
        assert_eq!(ticks(2.0, true), [0.0, 1.0, 2.0]);
        assert_eq!(ticks(1.0, true), [0.0, 1.0]);
        assert_eq!(ticks(0.0, true), [0.0, 1.0]);
        assert_eq!(ticks(7.0, true), [0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(ticks(13.0, true), [0.0, 5.0, 10.0, 15.0]);
        assert_eq!(ticks(100.0, false), [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(
            ticks(1.0, false),
            [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        for max in [1.0, 3.0, 9.0, 11.0, 250.0, 999.0] {
            let a = Axis::new(max, true);
            assert!(a.top >= max && a.ticks.len() <= 6, "{max}: {a:?}");
            assert!(a.ticks.iter().all(|t| t.fract() == 0.0), "{max}: {a:?}");
        }
    }

    #[test]
    fn nothing_is_clipped_or_overlapped() {
        // A bar chart is as wide as its longest label and value.
        let long = "a very long label of an agent or strategy";
        let html = bar_chart(
            "c",
            &[Bar {
                label: long.into(),
                value: 1.0,
                shown: "2,358 tokens, 3 calls, $0.0000".into(),
                class: None,
            }],
            None,
        )
        .into_string();
        let width: f64 = html
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        assert!(
            width >= text_width(long) + 330.0 + text_width("2,358 tokens, 3 calls, $0.0000"),
            "{width}"
        );
        // Wide category labels are thinned out to every k-th, k slots holding one label.
        let cats: Vec<String> = (1..=60).map(|k| format!("attempt {k}")).collect();
        let html = dot_chart(&DotChart {
            caption: "c",
            categories: &cats,
            series: &[Series {
                name: "s".into(),
                values: vec![Some(1.0); 60],
            }],
            y_max: 3.0,
            y_label: "tests",
            counts: true,
            x_label: "attempt",
            numbered: false,
        })
        .into_string();
        let shown = cats
            .iter()
            .filter(|c| html.contains(&format!(">{c}</text>")))
            .count();
        assert!(shown > 1 && shown < 60, "{shown}");
    }

    #[test]
    fn nice_maxima() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(7.0), 10.0);
        assert_eq!(nice_max(13.0), 20.0);
        assert_eq!(nice_max(400.0), 500.0);
        assert_eq!(nice_max(100.0), 100.0);
    }

    #[test]
    fn bars_write_their_values_and_escape_labels() {
        let html = bar_chart(
            "pass@1",
            &[
                Bar {
                    label: "random".into(),
                    value: 23.44,
                    shown: "23.44 %".into(),
                    class: None,
                },
                Bar {
                    label: "<script>".into(),
                    value: 39.15,
                    shown: "39.15 %".into(),
                    class: Some("v-P".into()),
                },
            ],
            Some(100.0),
        )
        .into_string();
        insta::assert_snapshot!(super::super::pretty(&html));
    }

    #[test]
    fn histogram_stacks_series_with_patterns() {
        let html = histogram(
            "h",
            "tests passed",
            &["0–50 %".into(), "50–100 %".into()],
            &[
                Series {
                    name: "correct".into(),
                    values: vec![Some(1.0), Some(3.0)],
                },
                Series {
                    name: "incorrect".into(),
                    values: vec![Some(2.0), None],
                },
            ],
            "solutions",
        )
        .into_string();
        assert_eq!(html.matches("<rect fill=\"url(#h-p").count(), 3 + 2);
        assert!(html.contains("<title>0–50 % · incorrect: 2</title>"));
        assert!(html.contains("<path class=\"hatch-line\""));
    }

    #[test]
    fn dot_chart_uses_one_shape_per_series() {
        let html = dot_chart(&DotChart {
            caption: "per problem",
            categories: &["0".into(), "2".into()],
            series: &[
                Series {
                    name: "random".into(),
                    values: vec![Some(10.0), Some(50.0)],
                },
                Series {
                    name: "band".into(),
                    values: vec![Some(100.0), None],
                },
            ],
            y_max: 100.0,
            y_label: "pass@1 %",
            counts: false,
            x_label: "",
            numbered: false,
        })
        .into_string();
        assert_eq!(html.matches("<circle class=\"hollow s0\"").count(), 2 + 1);
        assert_eq!(html.matches("<rect class=\"hollow s1\"").count(), 1 + 1);
        assert!(html.contains("<title>2 · random: 50</title>"));
    }

    #[test]
    fn scatter_labels_cover_no_marker_and_no_other_label() {
        // Points close together: each label still finds a free place.
        let points: Vec<ScatterPoint> = [
            ("codet", 5.0),
            ("blind", 7.0),
            ("repair", 8.0),
            ("dixit", 12.0),
        ]
        .iter()
        .map(|(name, x)| ScatterPoint {
            label: name.to_string(),
            x: *x,
            y: 100.0,
            title: name.to_string(),
            key: name.to_string(),
        })
        .chain(["single", "single-2"].iter().map(|name| ScatterPoint {
            label: name.to_string(),
            x: 1.0,
            y: 0.0,
            title: name.to_string(),
            key: name.to_string(),
        }))
        .collect();
        let html = scatter_chart(&ScatterChart {
            caption: "c",
            points: &points,
            x_label: "calls",
            x_counts: true,
            y_label: "%",
            y_max: 100.0,
        })
        .into_string();
        assert_eq!(html.matches("class=\"dx-scatter-point\"").count(), 6);
        // Two points at one place share a label.
        assert!(html.contains(">single, single-2</text>"), "{html}");
        let labels = [
            (5.0, 100.0, "codet"),
            (7.0, 100.0, "blind"),
            (8.0, 100.0, "repair"),
        ];
        let area = Area {
            left: 0.0,
            right: 600.0,
            top: 0.0,
            bottom: 300.0,
        };
        let at: Vec<(f64, f64, String)> = labels
            .iter()
            .map(|(x, y, t)| (20.0 * x, 300.0 - 2.4 * y, t.to_string()))
            .collect();
        let placed = place_labels(&at, area);
        let boxes: Vec<Area> = placed
            .iter()
            .zip(&at)
            .map(|((tx, ty), (_, _, t))| Area {
                left: *tx,
                right: tx + text_width(t),
                top: ty - 10.0,
                bottom: ty + 3.0,
            })
            .collect();
        for (i, b) in boxes.iter().enumerate() {
            for (x, y, _) in &at {
                let m = Area {
                    left: x - 6.0,
                    right: x + 6.0,
                    top: y - 6.0,
                    bottom: y + 6.0,
                };
                assert!(!b.overlaps(&m), "label {i} covers a marker: {placed:?}");
            }
            for o in &boxes[i + 1..] {
                assert!(!b.overlaps(o), "labels overlap: {placed:?}");
            }
        }
    }
}
