//! Data embedded in a page for its scripts: JSON in `<script type="application/json">`. The
//! HTML parser ends such an element at the first `</script` whatever the JSON means, and treats
//! `<!--` specially, so every `<` (which JSON has only inside strings) is written `\u003c`; `>`
//! and `&` likewise, so the text is inert in any HTML context.

use maud::{html, Markup, PreEscaped};
use serde::Serialize;

/// `json` made safe to place between `<script type="application/json">` and `</script>`: still
/// the same JSON value.
pub fn escape_json_for_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// `<script type="application/json" id=ID>` holding `value`.
pub fn json_script(id: &str, value: &impl Serialize) -> Result<Markup, serde_json::Error> {
    let json = serde_json::to_string(value)?;
    Ok(html! {
        script type="application/json" id=(id) { (PreEscaped(escape_json_for_script(&json))) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_strings_cannot_end_the_script_and_round_trip() {
        let hostile = "x</script><img src=x onerror=alert(1)><!-- & -->";
        let m = json_script("d", &serde_json::json!({ "s": hostile })).unwrap();
        let html = m.into_string();
        let inner = html
            .strip_prefix("<script type=\"application/json\" id=\"d\">")
            .and_then(|s| s.strip_suffix("</script>"))
            .unwrap();
        assert!(!inner.contains('<') && !inner.contains('>') && !inner.contains('&'));
        let back: serde_json::Value = serde_json::from_str(inner).unwrap();
        assert_eq!(back["s"], hostile);
    }
}
