//! Code in replies: fenced blocks (```lang [file]) or file blocks, turned into file writes.

/// A file a reply writes into the agent's workspace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileWrite {
    /// Relative path inside the workspace.
    pub path: String,
    /// New contents; `None` deletes the file.
    pub content: Option<String>,
}

/// A fenced code block and the file name it names, if any.
#[derive(Debug, PartialEq)]
struct Block {
    lang: String,
    name: Option<String>,
    body: String,
}

/// Extracts the files a reply writes. A block names its file in its info string
/// (```python solution.py), on the line just before it (`solution.py:` / **solution.py**), or in
/// a first-line comment (`# solution.py`, `// lib.rs`). Unnamed blocks go to `default_file`
/// (only the first such block: later ones are usually examples). Only paths with one of
/// `allowed_exts` are kept; paths are made relative and may not leave the workspace.
pub fn extract_files(reply: &str, default_file: &str, allowed_exts: &[&str]) -> Vec<FileWrite> {
    let mut out: Vec<FileWrite> = Vec::new();
    let mut default_taken = false;
    for b in blocks(reply) {
        let path = match b.name.as_deref().and_then(|n| sanitize(n, allowed_exts)) {
            Some(p) => p,
            None if !default_taken && lang_matches(&b.lang, default_file) => {
                default_taken = true;
                default_file.to_string()
            }
            None => continue,
        };
        out.retain(|f| f.path != path);
        out.push(FileWrite {
            path,
            content: Some(b.body),
        });
    }
    out
}

/// The bodies of the fenced code blocks of a reply whose language fits a file with extension
/// `ext` (or is not given), in order: several tests written in one reply.
pub fn code_blocks(reply: &str, ext: &str) -> Vec<String> {
    blocks(reply)
        .into_iter()
        .filter(|b| lang_matches(&b.lang, &format!("x.{ext}")))
        .map(|b| b.body)
        .collect()
}

fn lang_matches(lang: &str, file: &str) -> bool {
    let ext = file.rsplit('.').next().unwrap_or("");
    let lang = lang.to_ascii_lowercase();
    lang.is_empty()
        || matches!(
            (lang.as_str(), ext),
            ("python" | "py" | "python3", "py")
                | ("c" | "h", "c")
                | ("cpp" | "c++" | "cc" | "cxx", "cpp")
                | ("rust" | "rs", "rs")
                | ("toml", "toml")
        )
}

fn blocks(reply: &str) -> Vec<Block> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let fence = if t.starts_with("```") {
            "```"
        } else if t.starts_with("~~~") {
            "~~~"
        } else {
            ""
        };
        if fence.is_empty() {
            i += 1;
            continue;
        }
        let info = t.trim_start_matches(['`', '~']).trim();
        let mut words = info.split_whitespace();
        let first = words.next().unwrap_or("");
        let (lang, mut name) = if looks_like_file(first) {
            (ext_lang(first), Some(first.to_string()))
        } else {
            let rest = words
                .map(|w| w.trim_start_matches("title=").trim_matches(['"', '\'']))
                .find(|w| looks_like_file(w))
                .map(String::from);
            (first.to_string(), rest)
        };
        if name.is_none() && i > 0 {
            name = name_from_line(lines[i - 1]);
        }
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && !lines[i].trim_start().starts_with(fence) {
            body.push(lines[i]);
            i += 1;
        }
        i += 1; // closing fence (or end of reply: an unclosed block still counts)
        if name.is_none() {
            if let Some(first_line) = body.first() {
                let c = first_line
                    .trim()
                    .trim_start_matches(['#', '/', '*', ' '])
                    .trim_start_matches("file:")
                    .trim();
                if looks_like_file(c) && first_line.trim_start().starts_with(['#', '/']) {
                    name = Some(c.to_string());
                }
            }
        }
        let mut text = body.join("\n");
        text.push('\n');
        out.push(Block {
            lang,
            name,
            body: text,
        });
    }
    out
}

fn ext_lang(file: &str) -> String {
    file.rsplit('.').next().unwrap_or("").to_string()
}

fn looks_like_file(s: &str) -> bool {
    let s = s.trim_matches(['`', '*', ':', '"', '\'']);
    !s.is_empty()
        && s.contains('.')
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && s.rsplit('.').next().is_some_and(|e| {
            (1..=4).contains(&e.len()) && e.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

fn name_from_line(line: &str) -> Option<String> {
    let t = line
        .trim()
        .trim_end_matches(':')
        .trim_matches(['*', '`', '#', ' ', ':'])
        .trim();
    let t = t
        .strip_prefix("File")
        .or_else(|| t.strip_prefix("file"))
        .map(|r| r.trim_start_matches(':').trim())
        .unwrap_or(t);
    let t = t.trim_matches(['*', '`', ' ']);
    (looks_like_file(t) && !t.contains(' ')).then(|| t.to_string())
}

/// A relative path inside the workspace with an allowed extension, or `None`.
pub fn sanitize(name: &str, allowed_exts: &[&str]) -> Option<String> {
    let name = name
        .trim_matches(['`', '*', ':', '"', '\''])
        .trim_start_matches("./");
    if name.is_empty()
        || name.starts_with('/')
        || name
            .split('/')
            .any(|c| c == ".." || c.is_empty() || c.starts_with('.'))
    {
        return None;
    }
    let ext = name.rsplit('.').next()?;
    allowed_exts.contains(&ext).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &[&str] = &["py"];

    #[test]
    fn unnamed_block_goes_to_default_file() {
        let r = "Here you go:\n```python\ndef f():\n    return 1\n```\nExample:\n```python\nprint(f())\n```\n";
        let f = extract_files(r, "solution.py", PY);
        assert_eq!(
            f,
            vec![FileWrite {
                path: "solution.py".into(),
                content: Some("def f():\n    return 1\n".into())
            }]
        );
    }

    #[test]
    fn names_from_info_string_previous_line_and_comment() {
        let r = "```python helpers.py\nA = 1\n```\n**solution.py**\n```python\nfrom helpers import A\n```\n```python\n# extra.py\nB = 2\n```\n";
        let f = extract_files(r, "solution.py", PY);
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["helpers.py", "solution.py", "extra.py"]);
    }

    #[test]
    fn refuses_paths_that_leave_the_workspace_or_have_other_extensions() {
        let r = "```python ../evil.py\nx\n```\n```python /etc/evil.py\nx\n```\n```sh run.sh\nrm -rf /\n```\n";
        assert!(extract_files(r, "solution.py", PY)
            .iter()
            .all(|f| f.path == "solution.py"));
        assert_eq!(sanitize("a/b.py", PY).as_deref(), Some("a/b.py"));
        assert_eq!(sanitize("a/../b.py", PY), None);
        assert_eq!(sanitize(".hidden.py", PY), None);
    }

    #[test]
    fn no_block_means_no_files() {
        assert!(extract_files("I think the answer is 42.", "solution.py", PY).is_empty());
    }

    #[test]
    fn other_language_block_is_not_the_default() {
        let r = "```bash\npip install x\n```\n```python\nx = 1\n```\n";
        let f = extract_files(r, "solution.py", PY);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].content.as_deref(), Some("x = 1\n"));
    }

    #[test]
    fn unclosed_block_counts() {
        let f = extract_files("```python\ny = 2\n", "solution.py", PY);
        assert_eq!(f[0].content.as_deref(), Some("y = 2\n"));
    }
}
