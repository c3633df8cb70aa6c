//! The page skeleton: one self-contained HTML document with a header, an optional lead block (the
//! decision or the headline numbers), numbered sections, a table of contents, embedded data and
//! the inline stylesheet and scripts. The Content-Security-Policy allows nothing from outside:
//! no network, no other file; only this page's own `<style>` and `<script>` elements, named by
//! their SHA-256, may apply or run, so markup that slipped through escaping could not execute.

use base64_lite::encode as base64;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::embed::json_script;

/// The stylesheet every page carries.
pub const CSS: &str = include_str!("assets/dixit.css");
/// The script every page carries (tables, diff switch, lazy matrix and code builders).
pub const JS: &str = include_str!("assets/dixit.js");

/// One top-level section: it gets an anchor (`id`) and an entry in the table of contents.
#[derive(Clone, Debug)]
pub struct Section {
    /// Anchor, unique in the page (`#id`).
    pub id: String,
    /// Heading and table-of-contents entry.
    pub title: String,
    /// The section's content.
    pub body: Markup,
}

/// A report page under construction; [`Page::render`] makes the HTML document.
#[derive(Clone, Debug)]
pub struct Page {
    title: String,
    subtitle: Option<String>,
    lead: Option<Markup>,
    sections: Vec<Section>,
    data: Vec<Markup>,
    scripts: Vec<String>,
    footer: Option<String>,
}

impl Page {
    /// An empty page with a title (also the document's `<title>`).
    pub fn new(title: impl Into<String>) -> Self {
        Page {
            title: title.into(),
            subtitle: None,
            lead: None,
            sections: Vec::new(),
            data: Vec::new(),
            scripts: Vec::new(),
            footer: None,
        }
    }

    /// A line under the title (what was evaluated, which run).
    pub fn subtitle(mut self, text: impl Into<String>) -> Self {
        self.subtitle = Some(text.into());
        self
    }

    /// The block right under the title: what the reader must know or decide first. Wrap it in
    /// a `div.dx-lead` (with `dx-good` or `dx-bad` to mark the outcome) or give plain markup.
    pub fn lead(mut self, lead: Markup) -> Self {
        self.lead = Some(lead);
        self
    }

    /// The footer line (provenance: generator, time, input paths).
    pub fn footer(mut self, text: impl Into<String>) -> Self {
        self.footer = Some(text.into());
        self
    }

    /// Appends a section.
    pub fn section(&mut self, id: impl Into<String>, title: impl Into<String>, body: Markup) {
        self.sections.push(Section {
            id: id.into(),
            title: title.into(),
            body,
        });
    }

    /// Embeds `value` as JSON in `<script type="application/json" id=ID>` for the page's
    /// scripts (`dixit.data(ID)` parses it on first use).
    pub fn data(&mut self, id: &str, value: &impl Serialize) -> Result<(), serde_json::Error> {
        self.data.push(json_script(id, value)?);
        Ok(())
    }

    /// A page-specific script, run after the shared one (`window.dixit` is defined).
    pub fn script(&mut self, js: impl Into<String>) {
        self.scripts.push(js.into());
    }

    /// The Content-Security-Policy: nothing may load from anywhere (`default-src 'none'`);
    /// the page's own stylesheet and scripts are allowed by hash.
    fn csp(&self) -> String {
        let hash = |s: &str| format!("'sha256-{}'", base64(&Sha256::digest(s.as_bytes())));
        let scripts: Vec<String> = std::iter::once(JS)
            .chain(self.scripts.iter().map(String::as_str))
            .map(hash)
            .collect();
        format!(
            "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; form-action 'none'",
            hash(CSS),
            scripts.join(" ")
        )
    }

    /// The complete HTML document.
    pub fn render(&self) -> String {
        let doc = html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta http-equiv="Content-Security-Policy" content=(self.csp());
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    meta name="color-scheme" content="light dark";
                    meta name="generator" content=(concat!("dixit ", env!("CARGO_PKG_VERSION")));
                    link rel="icon" href="data:,";
                    title { (self.title) }
                    style { (PreEscaped(CSS)) }
                }
                body {
                    div.dx-page {
                        nav.dx-toc aria-label="Contents" {
                            strong { "Contents" }
                            ol {
                                @for s in &self.sections {
                                    li { a href={ "#" (s.id) } { (s.title) } }
                                }
                            }
                        }
                        main.dx-main {
                            header.dx-header {
                                h1 { (self.title) }
                                @if let Some(s) = &self.subtitle { p.dx-subtitle { (s) } }
                            }
                            @if let Some(l) = &self.lead { (l) }
                            @for s in &self.sections {
                                section.dx-section id=(s.id) {
                                    h2 { (s.title) }
                                    (s.body)
                                }
                            }
                            @if let Some(f) = &self.footer { footer.dx-footer { (f) } }
                        }
                    }
                    @for d in &self.data { (d) }
                    script { (PreEscaped(JS)) }
                    @for s in &self.scripts { script { (PreEscaped(s)) } }
                }
            }
        };
        doc.into_string()
    }
}

/// Standard base64 (with padding), for the CSP hashes: too small a need for a crate.
mod base64_lite {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub(super) fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for k in 0..4 {
                if k <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn known_vectors() {
            assert_eq!(super::encode(b""), "");
            assert_eq!(super::encode(b"f"), "Zg==");
            assert_eq!(super::encode(b"fo"), "Zm8=");
            assert_eq!(super::encode(b"foo"), "Zm9v");
            assert_eq!(super::encode(b"foob"), "Zm9vYg==");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_allows_exactly_the_pages_own_style_and_scripts() {
        let mut p = Page::new("t");
        p.script("console.log(1)");
        let html = p.render();
        let csp = p.csp();
        assert!(csp.starts_with("default-src 'none'; "));
        assert_eq!(csp.matches("'sha256-").count(), 3, "{csp}");
        assert!(!csp.contains("unsafe"), "{csp}");
        assert!(html.contains(&format!("content=\"{csp}\"")));
        let js_hash = base64(&Sha256::digest(b"console.log(1)"));
        assert!(csp.contains(&js_hash));
    }

    #[test]
    fn titles_and_sections_are_escaped() {
        let mut p = Page::new("<b>t</b>");
        p.section("s1", "</h2><script>x</script>", html! { p { "body" } });
        let html = p.render();
        assert!(html.contains("<title>&lt;b&gt;t&lt;/b&gt;</title>"));
        assert!(html.contains("&lt;/h2&gt;&lt;script&gt;x&lt;/script&gt;"));
        assert!(!html.contains("<script>x"));
    }
}
