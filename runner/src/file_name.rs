//! The one way an identifier that comes from data (an eval problem id such as `HumanEval/12`)
//! becomes a file name.
//!
//! Two different ids must never share a file, or one problem's results silently replace
//! another's. [`encode`] is therefore injective, and reversible ([`decode`]) for every id whose
//! encoding fits the length cap:
//!
//! * ASCII letters, digits, `-` and `_` stay as they are, and so does `.` except in first place
//!   (so no name is hidden, `.` or `..`);
//! * every other byte of the id's UTF-8, `%` included, becomes `%XX` (two upper-case hex
//!   digits), so `/` and NUL never reach a path and `%` is the only escape;
//! * the empty id is `%` alone (no encoding of a non-empty id is a lone `%`);
//! * an encoding longer than [`MAX_LEN`] bytes keeps its first part and ends with `~` and 32 hex
//!   digits of the SHA-256 of the id (`~` appears in no other encoding). Such a name is still
//!   unique but not reversible: files named so also hold their id, and readers take the id from
//!   the file.
//!
//! File names stay within 255 bytes with room for an extension. Distinct ids differing only in
//! letter case (`T` and `t`) get names that differ only in case: on a case-insensitive file
//! system (macOS, Windows defaults) they would still meet.

use sha2::{Digest, Sha256};

/// The longest encoding kept whole; longer ones end with a hash (200 bytes, leaving room for an
/// extension within the usual 255-byte limit of a file name).
pub const MAX_LEN: usize = 200;

/// Hex digits of the hash that ends an encoding cut to [`MAX_LEN`].
const HASH_HEX: usize = 32;

fn kept(b: u8, first: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || (b == b'.' && !first)
}

/// The file name (without extension) of `id`: injective over all strings, reversible by
/// [`decode`] when the result has no `~`. See the module documentation for the rules.
pub fn encode(id: &str) -> String {
    if id.is_empty() {
        return "%".into();
    }
    let mut out = String::with_capacity(id.len());
    for (i, &b) in id.as_bytes().iter().enumerate() {
        if kept(b, i == 0) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.len() <= MAX_LEN {
        return out;
    }
    // Cut at an escape boundary, then add the hash of the whole id.
    let mut cut = MAX_LEN - HASH_HEX - 1;
    while let Some(p) = out[..cut].rfind('%').filter(|&p| p + 3 > cut) {
        cut = p;
    }
    let hash = hex::encode(Sha256::digest(id.as_bytes()));
    format!("{}~{}", &out[..cut], &hash[..HASH_HEX])
}

/// The id whose [`encode`] is `name`, if `name` is one (`None` for names cut with a hash and for
/// names `encode` never produces, such as `a/b` or `x%2f`).
pub fn decode(name: &str) -> Option<String> {
    if name == "%" {
        return Some(String::new());
    }
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex
                .iter()
                .all(|h| h.is_ascii_digit() || (b'A'..=b'F').contains(h))
            {
                return None;
            }
            let v = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
            out.push(v);
            i += 3;
        } else if kept(b, i == 0) {
            out.push(b);
            i += 1;
        } else {
            return None;
        }
    }
    let id = String::from_utf8(out).ok()?;
    // Only the canonical spelling decodes (`%41` is not another name for `A`).
    (encode(&id) == name).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Ids chosen to collide under simpler schemes: separators, the escape itself, dots,
    /// emptiness, case, unicode, control bytes and lengths around the cap.
    fn tricky_ids() -> Vec<String> {
        let mut ids: Vec<String> = [
            "",
            "T/0",
            "T_0",
            "T%2F0",
            "T%0",
            "%",
            "%%",
            "%2F",
            "/",
            "_",
            ".",
            "..",
            "...",
            ".a",
            "a.",
            "a..b",
            "../x",
            "a/../b",
            "T 0",
            "T\t0",
            "T\n0",
            "T\u{0}0",
            "T\\0",
            "t/0",
            "HumanEval/12",
            "HumanEval_12",
            "HumanEval%2F12",
            "é",
            "e\u{301}",
            "日本/語",
            "🦀",
            "~",
            "a~b",
            "CON",
            "nul",
            "-",
            "--x",
            "a:b",
            "a*b",
            "a?b",
            "\"",
            "'",
            "<>|",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every single byte that is a whole character, and every pair of a few of them.
        for b in 0u8..128 {
            ids.push(char::from(b).to_string());
        }
        let some = ["/", "_", "%", ".", "a", "A", "é", "~", "2F"];
        for a in some {
            for b in some {
                ids.push(format!("{a}{b}"));
                ids.push(format!("{a}{b}{a}"));
            }
        }
        // Lengths around the cap, with and without escapes, sharing long prefixes.
        for n in [
            MAX_LEN - 2,
            MAX_LEN - 1,
            MAX_LEN,
            MAX_LEN + 1,
            MAX_LEN + 2,
            1000,
        ] {
            ids.push("a".repeat(n));
            ids.push(format!("{}b", "a".repeat(n)));
            ids.push("/".repeat(n / 3));
            ids.push(format!("{}/", "a".repeat(n)));
            ids.push("é".repeat(n / 2));
            ids.push(format!("{}{}", "a".repeat(n), "/".repeat(5)));
        }
        ids.sort();
        ids.dedup();
        ids
    }

    #[test]
    fn encoding_is_injective_and_reversible() {
        let mut seen: HashMap<String, String> = HashMap::new();
        for id in tricky_ids() {
            let name = encode(&id);
            if let Some(other) = seen.insert(name.clone(), id.clone()) {
                panic!("{other:?} and {id:?} both encode to {name:?}");
            }
            // A usable file name: non-empty, no separator, no NUL, not hidden, within the cap.
            assert!(!name.is_empty(), "{id:?}");
            assert!(name.len() <= MAX_LEN, "{id:?} → {} bytes", name.len());
            assert!(!name.starts_with('.'), "{id:?} → {name:?}");
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.%~".contains(&b)),
                "{id:?} → {name:?}"
            );
            match decode(&name) {
                Some(back) => assert_eq!(back, id, "{name:?}"),
                None => assert!(name.contains('~') && id.len() > MAX_LEN / 3, "{id:?}"),
            }
        }
    }

    #[test]
    fn short_ids_read_well_and_long_ones_keep_a_prefix() {
        assert_eq!(encode("HumanEval/12"), "HumanEval%2F12");
        assert_eq!(encode("T_0"), "T_0");
        assert_eq!(encode("T/0"), "T%2F0");
        assert_eq!(encode("T%2F0"), "T%252F0");
        assert_eq!(encode(".."), "%2E.");
        assert_eq!(encode(""), "%");
        assert_eq!(encode("é"), "%C3%A9");
        let long = "/".repeat(300);
        let name = encode(&long);
        assert!(name.starts_with("%2F%2F"), "{name}");
        assert!(
            !name.contains("~%") && !name.ends_with('%'),
            "cut inside an escape: {name}"
        );
    }

    #[test]
    fn only_canonical_names_decode() {
        for name in ["a/b", "x%2f", "%41", ".a", "%2", "%zz", "a~b", "", "%%"] {
            assert_eq!(decode(name), None, "{name:?}");
        }
    }
}
