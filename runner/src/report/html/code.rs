//! The code viewer: the whole file (it never scrolls inside itself, so no line is out of sight),
//! a `<pre>` with one `span.l` per line; line numbers are drawn by a CSS
//! counter, so selecting and copying the code copies no numbers. `dixit.code(text, caption)` in
//! `assets/dixit.js` builds the same markup in the browser for code shown on demand.

use maud::{html, Markup};

/// `text` with line numbers, under an optional caption (file name, author).
pub fn code(text: &str, caption: Option<&str>) -> Markup {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    html! {
        figure.dx-code-block {
            @if let Some(c) = caption { figcaption { (c) } }
            pre.dx-code { code {
                @for (i, line) in lines.iter().enumerate() {
                    span.l { (line) }
                    @if i < last { "\n" }
                }
            } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_span_per_line_and_escaped() {
        let html = code("a\n</pre><b>\n", Some("f.py")).into_string();
        assert_eq!(
            html,
            "<figure class=\"dx-code-block\"><figcaption>f.py</figcaption><pre class=\"dx-code\"><code>\
             <span class=\"l\">a</span>\n<span class=\"l\">&lt;/pre&gt;&lt;b&gt;</span></code></pre></figure>"
        );
    }
}
