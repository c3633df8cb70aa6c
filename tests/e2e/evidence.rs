//! A failing cell's evidence, end to end: journaled with the cell (what failed, where, the end
//! of stderr; hostile text escaped), the same bytes on replay, shown by the report as text with
//! the `dixit exec` command that runs it again (and that command does), carried into JUnit, and
//! never shown to a dixit coder. Scripted agents: coder-2 raises an exception whose message is
//! terminal escapes and markup for x < 0, so it cannot pass tester-2's test.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::report::browser_driver;
use super::support::{describe, dixit_at, journal, the_run};

const RIGHT: &str = "def f(x):\n    return 2 * x if x >= 0 else 0";
/// Terminal escapes, a bell, a direction override, markup and a CDATA end, as Python escapes.
const HOSTILE: &str = "def f(x):\n    if x < 0:\n        raise ValueError(\"\\x1b[31mred\\x1b]0;pwned\\x07 \\u202e </script><img src=x onerror=alert(1)> ]]>\")\n    return 2 * x";

fn py(agent: &str, code: &str) -> String {
    format!("[[{agent}]]\ntext = '''\n```python\n{code}\n```\n'''\n\n")
}

/// Three coders (coder-2 hostile for x < 0), two testers; stops for a person in round 1.
fn project(dir: &Path) {
    let t = |body: &str| format!("from solution import f\n{body}");
    let mut s = vec![
        py("coder-1", RIGHT),
        py("coder-3", RIGHT),
        py("tester-1", &t("assert f(1) == 2")),
        py("tester-2", &t("assert f(-2) == 0")),
        py("tester-1", &t("assert f(2) == 4")),
        py("tester-2", &t("assert f(3) == 6")),
    ];
    s.extend(std::iter::repeat_n(py("coder-2", HOSTILE), 3));
    std::fs::write(dir.join("script.toml"), s.concat()).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        "[project]\nlanguage = \"python\"\n[protocol]\ncoders = 3\ntesters = 2\nmax_rounds = 2\n\
         max_tester_retries = 1\nmax_coder_retries = 2\n[agents]\nbackend = \"script\"\nscript = \"script.toml\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec.md"),
        "Write `f(x)` in `solution.py`: for x >= 0 it returns 2*x; for x < 0 it returns 0.\n",
    )
    .unwrap();
}

/// The embedded `dx-run` block of a run report.
fn run_data(html: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"dx-run\">";
    let a = html.find(open).expect("the dx-run block") + open.len();
    let b = html[a..].find("</script>").unwrap() + a;
    serde_json::from_str(&html[a..b]).unwrap()
}

#[test]
fn a_failing_cell_carries_its_evidence_from_journal_to_report_and_junit() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    project(dir);
    let o = dixit_at(dir, &["run", ".", "--junit", "junit.xml"], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let run = the_run(dir);
    let j = journal(&run);
    assert_eq!(j[0]["format"], "dixit-journal/1.8");

    // The journal: coder-2's failing cell says what failed and where, escaped and capped.
    let judged: Vec<&Value> = j
        .iter()
        .filter(|r| r["lane"] == "coder-2" && r["event"] == "judged")
        .collect();
    let last = judged.last().expect("coder-2 was judged");
    let cells = last["cells"].as_array().unwrap();
    let failing: Vec<&Value> = cells.iter().filter(|c| c["v"] != "pass").collect();
    assert_eq!(failing.len(), 1, "{last}");
    let ev = &failing[0]["evidence"];
    assert_eq!(ev["kind"], "ValueError", "{ev}");
    assert_eq!(ev["line"], 2, "{ev}");
    assert_eq!(ev["code"], "assert f(-2) == 0", "{ev}");
    let file = ev["file"].as_str().unwrap().to_string();
    assert!(file.starts_with("test_") && file.ends_with(".py"), "{ev}");
    let message = ev["message"].as_str().unwrap();
    assert!(
        message.starts_with("\\u{1b}[31mred\\u{1b}]0;pwned\\u{7} \\u{202e} </script>"),
        "{message}"
    );
    assert!(message.ends_with("]]>"), "{message}");
    let stderr = ev["stderr"].as_str().unwrap();
    assert!(
        stderr.starts_with("Traceback (most recent call last):"),
        "{stderr}"
    );
    assert!(!stderr.contains("dixit-failure"), "{stderr}");
    for text in [message, stderr] {
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{text:?}"
        );
    }
    // Passing cells have none.
    assert!(cells
        .iter()
        .filter(|c| c["v"] == "pass")
        .all(|c| c.get("evidence").is_none()));

    // No coder was shown it: dixit's coders see numbers only.
    for r in j.iter().filter(|r| r["event"] == "reply") {
        let prompt = r["prompt"].as_str().unwrap();
        assert!(
            !prompt.contains("ValueError") && !prompt.contains("Traceback"),
            "{prompt}"
        );
    }

    // Replay re-derives every event, evidence included, byte for byte.
    let o = dixit_at(dir, &["replay", run.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", describe(&o));

    // The report: the evidence and the command in the drill-down's data, hostile text inert.
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        !html.contains("<img src=x"),
        "markup from the guest reached the page"
    );
    assert!(!html.contains('\u{1b}'));
    let data = run_data(&html);
    let c2 = data["coders"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c == "coder-2")
        .unwrap();
    let row = data["cells"][c2].as_array().unwrap();
    let cell = row
        .iter()
        .find(|c| c["v"] != "P")
        .expect("coder-2's failing cell");
    assert_eq!(&cell["ev"], ev);
    let seed = cell["seed"].as_u64().unwrap();
    let cmd = cell["cmd"].as_str().unwrap();
    assert_eq!(
        cmd,
        format!("dixit exec --solution implementations/coder-2 --test suite/{file} --seed {seed} --interface f")
    );

    // That command, from the run directory, reproduces the failure.
    let args: Vec<&str> = cmd.split(' ').skip(1).collect();
    let o = dixit_at(&run, &args, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("runtime_error"), "{out}");
    assert!(
        out.contains(&format!("failed at {file}:2: ValueError: \\u{{1b}}[31mred")),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "{out}");

    // JUnit: well-formed, and coder-2's error leads with the failure.
    let read = "import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
for s in r.findall('testsuite'):
    for c in s.findall('testcase'):
        for x in c:
            if x.tag in ('failure', 'error'):
                print(s.get('name'), x.tag, x.get('message'))
                print(x.text)";
    let o = Command::new("python3")
        .args(["-c", read])
        .arg(dir.join("junit.xml"))
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", describe(&o));
    let x = String::from_utf8_lossy(&o.stdout);
    assert!(
        x.contains(&format!(
            "coder-2 error {file}:2: ValueError: \\u{{1b}}[31mred"
        )),
        "{x}"
    );
    assert!(x.contains("— assert f(-2) == 0"), "{x}");
    assert!(x.contains("stderr (its end):\nTraceback"), "{x}");
    assert!(x.contains(cmd), "{x}");
}

/// In chromium, a click on coder-2's failing cell shows the evidence as text (no element made
/// of the guest's markup, no script run) and the command; nothing but the file is requested.
#[test]
fn the_evidence_shows_as_text_in_chromium() {
    let driver = browser_driver();
    let t = tempfile::tempdir().unwrap();
    project(t.path());
    let o = dixit_at(t.path(), &["run", "."], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let run = the_run(t.path());
    let o = Command::new("node")
        .arg(&driver)
        .arg("--run")
        .arg(format!("evidence={}", run.join("report.html").display()))
        .output()
        .expect("node runs");
    assert!(o.status.success(), "{}", describe(&o));
    let seen: Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in seen["requests"].as_array().unwrap() {
        assert!(r.as_str().unwrap().starts_with("file:"), "request to {r}");
    }
    for k in ["blocked", "pageErrors", "consoleErrors", "dialogs"] {
        assert_eq!(seen[k], Value::Array(vec![]), "{k}");
    }
    let r = &seen["runs"]["evidence"];
    assert_eq!(r["imgElements"], 0, "the guest's <img> became an element");
    let drill = &r["drill"];
    assert!(
        drill["heading"]
            .as_str()
            .unwrap()
            .starts_with("coder-2 × test "),
        "{drill}"
    );
    let ev = &drill["evidence"];
    assert!(
        ev["head"]
            .as_str()
            .unwrap()
            .starts_with("ValueError at test_"),
        "{ev}"
    );
    let texts: Vec<&str> = ev["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(texts[0], "assert f(-2) == 0", "{ev}");
    assert!(
        texts[1].contains("\\u{1b}[31mred")
            && texts[1].contains("</script><img src=x onerror=alert(1)> ]]>"),
        "{ev}"
    );
    assert!(texts[2].starts_with("Traceback"), "{ev}");
    // p, strong, three pre, details, summary: nothing more.
    assert_eq!(ev["elements"], 7, "{ev}");
    assert!(
        drill["again"]
            .as_str()
            .unwrap()
            .starts_with("dixit exec --solution implementations/coder-2 --test suite/test_"),
        "{drill}"
    );
}
