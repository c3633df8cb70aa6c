//! Writing a journal, or verifying a re-execution against one.

use std::collections::{HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::event::{
    Choice, Event, ProjectSnapshot, Record, StopReason, FORMAT_MAJOR, FORMAT_MINOR, PERSON_LANE,
    RUN_LANE,
};
use super::reader::{JournalFile, RESUME_LANE};
use super::JournalError;

/// What happens when a lane produces more events than were recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PastEnd {
    /// Resume: the run continues live; new events are appended.
    Append,
    /// Replay: the re-execution must not go beyond the recording.
    Fail,
}

struct Inner {
    /// Compare verdict cells without their fuel (the guest runtime differs from the recording's).
    ignore_fuel: bool,
    /// Whether cells carry evidence: not in a journal of a format before 1.4, whose events a
    /// resume or replay then compares and writes without it.
    evidence: bool,
    file: Option<File>,
    seqs: HashMap<String, u64>,
    expect: Option<(HashMap<String, VecDeque<Record>>, PastEnd)>,
    /// A resume: the journal's length before its `Resumed` marker.
    resumed_at: Option<u64>,
    /// Whether an event was written after the header or the `Resumed` marker.
    appended: bool,
}

/// An open journal. `emit` is safe to call from concurrent agent tasks.
pub struct Journal {
    path: PathBuf,
    /// The format's minor version the run follows: the current one for a new run, the
    /// recording's for a resume or replay (its rules, e.g. [`super::event::DETACHED_SINCE_MINOR`],
    /// are the ones it ran under).
    minor: u32,
    inner: Mutex<Inner>,
}

/// Writes a new run's journal at `to`: the header of `recorded` naming run `run_id` and where it
/// was forked from (`decision`, 1-based), then `recorded`'s records up to and including record
/// `upto` (a stop). The fork goes on from that stop; the run it was forked from is untouched.
pub fn fork_journal(
    recorded: &JournalFile,
    upto: usize,
    decision: usize,
    run_id: &str,
    to: &Path,
) -> Result<(), JournalError> {
    let io = |source| JournalError::Io {
        path: to.to_path_buf(),
        source,
    };
    if let Some(d) = to.parent() {
        std::fs::create_dir_all(d).map_err(io)?;
    }
    let mut file = OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(to)
        .map_err(io)?;
    let header = Record {
        lane: RUN_LANE.into(),
        seq: 0,
        t: now_ms(),
        event: Event::Header {
            format: format!("dixit-journal/{FORMAT_MAJOR}.{}", recorded.format_minor),
            dixit: recorded.dixit_version.clone(),
            wasmtime: recorded.wasmtime_version.clone(),
            run_id: run_id.into(),
            protocol: Some(recorded.protocol.clone()),
            project: recorded.project.clone(),
            runtimes: recorded.runtimes.clone(),
            forked_from: Some(super::event::Fork {
                run: recorded.run_id.clone(),
                decision,
            }),
        },
    };
    for r in std::iter::once(&header).chain(recorded.records.iter().take(upto + 1)) {
        writeln!(file, "{}", serde_json::to_string(r).unwrap_or_default()).map_err(io)?;
    }
    file.sync_all().map_err(io)
}

/// Appends a person's decision at the run's last stop to the journal at `path` (and, when the
/// person accepts, the stop that ends the run there). `recorded` is that journal as read.
pub fn append_decision(
    recorded: &JournalFile,
    choice: Choice,
    why: &str,
    by: &str,
    round: u32,
) -> Result<(), JournalError> {
    let io = |source| JournalError::Io {
        path: recorded.path.clone(),
        source,
    };
    let next_seq = |lane: &str| {
        recorded
            .records
            .iter()
            .filter(|r| r.lane == lane)
            .map(|r| r.seq + 1)
            .max()
            .unwrap_or(0)
    };
    let accept = choice == Choice::Accept;
    let mut lines = vec![Record {
        lane: PERSON_LANE.into(),
        seq: next_seq(PERSON_LANE),
        t: now_ms(),
        event: Event::Decision {
            choice,
            why: why.to_string(),
            by: by.to_string(),
            policy: None,
        },
    }];
    if accept {
        lines.push(Record {
            lane: RUN_LANE.into(),
            seq: next_seq(RUN_LANE),
            t: now_ms(),
            event: Event::Stop {
                reason: StopReason::Accepted { by: by.to_string() },
                round,
            },
        });
    }
    let file = OpenOptions::new()
        .write(true)
        .open(&recorded.path)
        .map_err(io)?;
    file.set_len(recorded.good_len).map_err(io)?;
    drop(file);
    let mut file = OpenOptions::new()
        .append(true)
        .open(&recorded.path)
        .map_err(io)?;
    for r in lines {
        writeln!(file, "{}", serde_json::to_string(&r).unwrap_or_default()).map_err(io)?;
    }
    file.sync_all().map_err(io)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Journal {
    /// Creates a new journal whose first line is the header.
    pub fn create(
        path: &Path,
        run_id: &str,
        protocol: crate::config::ProtocolName,
        project: ProjectSnapshot,
        runtimes: std::collections::BTreeMap<String, String>,
    ) -> Result<Journal, JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(io)?;
        }
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let j = Journal {
            path: path.to_path_buf(),
            minor: FORMAT_MINOR,
            inner: Mutex::new(Inner {
                ignore_fuel: false,
                evidence: true,
                file: Some(file),
                seqs: HashMap::new(),
                expect: None,
                resumed_at: None,
                appended: false,
            }),
        };
        j.emit(
            RUN_LANE,
            Event::Header {
                format: format!("dixit-journal/{FORMAT_MAJOR}.{FORMAT_MINOR}"),
                dixit: env!("CARGO_PKG_VERSION").into(),
                wasmtime: crate::sandbox::wasmtime_version().into(),
                run_id: run_id.into(),
                protocol: Some(protocol),
                project,
                runtimes,
                forked_from: None,
            },
        )?;
        // The header does not count in the run lane's sequence.
        j.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .seqs
            .clear();
        j.inner.lock().unwrap_or_else(|e| e.into_inner()).appended = false;
        Ok(j)
    }

    /// Reopens a journal to continue its run: a half-written last line is cut off, a `Resumed`
    /// marker is appended, and re-executed events are checked against the recorded ones until
    /// each lane's recording runs out, after which they are appended.
    pub fn resume(recorded: &JournalFile) -> Result<Journal, JournalError> {
        let path = &recorded.path;
        let io = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        file.set_len(recorded.good_len).map_err(io)?;
        drop(file);
        let mut file = OpenOptions::new().append(true).open(path).map_err(io)?;
        let marker = Record {
            lane: RESUME_LANE.into(),
            seq: recorded.resumes(),
            t: now_ms(),
            event: Event::Resumed,
        };
        writeln!(
            file,
            "{}",
            serde_json::to_string(&marker).unwrap_or_default()
        )
        .map_err(io)?;
        Ok(Journal {
            path: path.clone(),
            minor: recorded.format_minor,
            inner: Mutex::new(Inner {
                ignore_fuel: false,
                evidence: recorded.has_evidence(),
                file: Some(file),
                // A decision made now (by the run's policy) is numbered after those recorded.
                seqs: HashMap::from([(
                    PERSON_LANE.to_string(),
                    recorded
                        .records
                        .iter()
                        .filter(|r| r.lane == PERSON_LANE)
                        .count() as u64,
                )]),
                expect: Some((recorded.lanes_to_resume(), PastEnd::Append)),
                resumed_at: Some(recorded.good_len),
                appended: false,
            }),
        })
    }

    /// A journal that only verifies: every event must equal the recorded one (replay).
    /// Nothing is written.
    /// With `ignore_fuel`, verdict cells are compared without their fuel: for a replay on a
    /// guest runtime that is not byte-identical to the recording's.
    pub fn verify(recorded: &JournalFile, ignore_fuel: bool) -> Journal {
        Journal {
            path: recorded.path.clone(),
            minor: recorded.format_minor,
            inner: Mutex::new(Inner {
                ignore_fuel,
                evidence: recorded.has_evidence(),
                file: None,
                seqs: HashMap::new(),
                expect: Some((recorded.lanes(), PastEnd::Fail)),
                resumed_at: None,
                appended: false,
            }),
        }
    }

    /// The format's minor version whose rules the run follows (see the field).
    pub fn minor(&self) -> u32 {
        self.minor
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records an event in `lane` (written and flushed, or checked against the recording).
    pub fn emit(&self, lane: &str, event: Event) -> Result<(), JournalError> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let seq = {
            let s = inner.seqs.entry(lane.to_string()).or_insert(0);
            let seq = *s;
            *s += 1;
            seq
        };
        let event = if inner.evidence {
            event
        } else {
            without_evidence(event)
        };
        let mut rec = Record {
            lane: lane.to_string(),
            seq,
            t: now_ms(),
            event,
        };
        if let Some((lanes, past_end)) = inner.expect.as_mut() {
            let interrupted = matches!(
                rec.event,
                Event::Stop {
                    reason: StopReason::Interrupted,
                    ..
                }
            );
            let queue = lanes.get_mut(lane);
            let left = queue.as_ref().map_or(0, |q| q.len()) as u64;
            if interrupted && *past_end == PastEnd::Append && left > 0 {
                // An interrupt while a resume still re-executes this lane's recording: its stop
                // is appended, numbered after the lane's recorded events (a later resume
                // re-executes them all again).
                rec.seq += left;
                if let Some(q) = queue {
                    q.clear();
                }
            } else if let Some(expected) = queue.and_then(|q| q.pop_front()) {
                return compare(&expected, &rec, inner.ignore_fuel);
            } else if *past_end == PastEnd::Fail {
                return Err(JournalError::Diverged {
                    lane: lane.into(),
                    index: seq,
                    detail: format!(
                        "the re-execution produced `{}` but the recording ends here",
                        rec.event.name()
                    ),
                });
            }
        }
        if let Some(file) = inner.file.as_mut() {
            let mut line = serde_json::to_string(&rec).map_err(|e| JournalError::Format {
                path: self.path.clone(),
                message: e.to_string(),
            })?;
            let io = |source| JournalError::Io {
                path: self.path.clone(),
                source,
            };
            // One write per record, newline included: a crash can still cut it short (the
            // kernel stops a write at a page boundary for a fatal signal), and a reader drops
            // such a tail, but never between the record and its newline.
            line.push('\n');
            file.write_all(line.as_bytes()).map_err(io)?;
            file.flush().map_err(io)?;
            if matches!(rec.event, Event::Stop { .. }) {
                file.sync_data().map_err(io)?;
            }
            inner.appended = true;
        }
        Ok(())
    }

    /// Whether a resume has written nothing yet: every event so far was re-executed from the
    /// recording (and checked), none appended.
    pub fn nothing_resumed(&self) -> bool {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.resumed_at.is_some() && !inner.appended
    }

    /// Undoes a resume that wrote nothing: the journal goes back to what it was before its
    /// `Resumed` marker (its stop, if it had one, stands again). Nothing is written afterwards.
    pub fn undo_resume(&self) -> Result<(), JournalError> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (Some(len), false) = (inner.resumed_at, inner.appended) else {
            return Ok(());
        };
        if let Some(file) = inner.file.take() {
            file.set_len(len).map_err(|source| JournalError::Io {
                path: self.path.clone(),
                source,
            })?;
        }
        Ok(())
    }

    /// For a replay: fails if recorded events were never reproduced.
    pub fn finish(&self) -> Result<(), JournalError> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((lanes, PastEnd::Fail)) = &inner.expect {
            let mut left: Vec<(&String, &VecDeque<Record>)> =
                lanes.iter().filter(|(_, q)| !q.is_empty()).collect();
            left.sort_by_key(|(l, _)| (*l).clone());
            if let Some((lane, q)) = left.first() {
                let first = &q[0];
                return Err(JournalError::Diverged {
                    lane: (*lane).clone(),
                    index: first.seq,
                    detail: format!(
                        "the re-execution stopped before the recorded `{}` ({} more events)",
                        first.event.name(),
                        q.len()
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Compares a recorded and a re-executed record (event and sequence number; not the time).
fn compare(expected: &Record, got: &Record, ignore_fuel: bool) -> Result<(), JournalError> {
    let mut a = serde_json::to_value(&expected.event).unwrap_or_default();
    let mut b = serde_json::to_value(&got.event).unwrap_or_default();
    if ignore_fuel {
        strip_fuel(&mut a);
        strip_fuel(&mut b);
    }
    if a == b && expected.seq == got.seq {
        return Ok(());
    }
    let detail = match first_diff(&a, &b, String::new()) {
        Some((path, x, y)) => format!(
            "recorded `{}` has {path} = {}, the re-execution produced `{}` with {path} = {}",
            expected.event.name(),
            clip(&x),
            got.event.name(),
            clip(&y)
        ),
        None => format!("sequence {} vs {}", expected.seq, got.seq),
    };
    Err(JournalError::Diverged {
        lane: got.lane.clone(),
        index: got.seq,
        detail,
    })
}

fn clip(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

/// `event` without the `evidence` of its verdict cells (for a journal of a format that had
/// none).
fn without_evidence(event: Event) -> Event {
    let Ok(mut v) = serde_json::to_value(&event) else {
        return event;
    };
    if !strip_evidence(&mut v) {
        return event;
    }
    serde_json::from_value(v).unwrap_or(event)
}

/// Removes `evidence` from every cell of every `cells` array in `v`; whether any was removed.
fn strip_evidence(v: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    let mut removed = false;
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(cells)) = o.get_mut("cells") {
                for c in cells.iter_mut() {
                    if let Value::Object(c) = c {
                        removed |= c.remove("evidence").is_some();
                    }
                }
            }
            for x in o.values_mut() {
                removed |= strip_evidence(x);
            }
        }
        Value::Array(a) => {
            for x in a {
                removed |= strip_evidence(x);
            }
        }
        _ => {}
    }
    removed
}

/// Removes the `fuel` of every verdict cell.
fn strip_fuel(v: &mut serde_json::Value) {
    if let Some(cells) = v.get_mut("cells").and_then(|c| c.as_array_mut()) {
        for c in cells {
            if let Some(o) = c.as_object_mut() {
                o.remove("fuel");
            }
        }
    }
}

/// The first path at which two JSON values differ.
fn first_diff(
    a: &serde_json::Value,
    b: &serde_json::Value,
    at: String,
) -> Option<(String, serde_json::Value, serde_json::Value)> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let (va, vb) = (
                    x.get(k).cloned().unwrap_or(Value::Null),
                    y.get(k).cloned().unwrap_or(Value::Null),
                );
                if va != vb {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    return first_diff(&va, &vb, p);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let (va, vb) = (
                    x.get(i).cloned().unwrap_or(Value::Null),
                    y.get(i).cloned().unwrap_or(Value::Null),
                );
                if va != vb {
                    return first_diff(&va, &vb, format!("{at}[{i}]"));
                }
            }
            None
        }
        _ if a != b => Some((
            if at.is_empty() {
                "the event".into()
            } else {
                at
            },
            a.clone(),
            b.clone(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::StopReason;

    fn snapshot() -> ProjectSnapshot {
        ProjectSnapshot {
            dir: None,
            config: "c".into(),
            spec: "s".into(),
            prompts: Default::default(),
            hidden: Default::default(),
            acceptance: Default::default(),
            interface: Default::default(),
        }
    }

    /// A new journal of run `r1` at `p`.
    fn create(p: &Path) -> Journal {
        Journal::create(
            p,
            "r1",
            crate::config::ProtocolName::new("any"),
            snapshot(),
            Default::default(),
        )
        .unwrap()
    }

    #[test]
    fn round_trip_and_tolerant_tail() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let j = create(&p);
        j.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        j.emit("coder-1", Event::Thanks).unwrap();
        j.emit(
            "run",
            Event::Stop {
                reason: StopReason::RoundCap { rounds: 1 },
                round: 1,
            },
        )
        .unwrap();
        drop(j);
        // A crash in the middle of a write leaves half a line.
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        write!(f, "{{\"lane\":\"coder-1\",\"se").unwrap();
        let r = JournalFile::read(&p).unwrap();
        assert!(r.truncated_tail);
        assert_eq!(r.records.len(), 3);
        assert_eq!(r.run_id, "r1");
        assert_eq!(r.stop(), Some((StopReason::RoundCap { rounds: 1 }, 1)));
        assert_eq!(r.records[1].event, Event::Thanks);
    }

    /// A judged event whose one cell failed, with or without its evidence.
    fn judged(evidence: bool) -> Event {
        Event::Judged {
            vector: vec![false],
            build_error: None,
            cells: vec![crate::journal::CellRecord {
                v: crate::sandbox::VerdictKind::WrongAnswer,
                side: None,
                seed: 1,
                fuel: 10,
                exit: Some(1),
                runs: 1,
                skipped: 0,
                evidence: evidence.then(|| crate::evidence::Evidence {
                    kind: "AssertionError".into(),
                    line: Some(4),
                    ..Default::default()
                }),
            }],
        }
    }

    /// A journal of format 1.3 (cells without evidence) replays and resumes: evidence is
    /// neither compared nor written; a journal of the current format compares it.
    #[test]
    fn evidence_is_compared_and_written_only_from_format_1_4() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let j = create(&p);
        j.emit("coder-1", judged(true)).unwrap();
        drop(j);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("\"evidence\":{\"kind\":\"AssertionError\""),
            "{text}"
        );
        // Current format: a re-execution without the evidence diverges.
        let rec = JournalFile::read(&p).unwrap();
        assert!(rec.has_evidence());
        let v = Journal::verify(&rec, false);
        let e = v.emit("coder-1", judged(false)).unwrap_err().to_string();
        assert!(e.contains("evidence"), "{e}");
        // Format 1.3: the recording has no evidence, the re-execution's is not compared...
        let old = text
            .replacen(&format!("1.{FORMAT_MINOR}"), "1.3", 1)
            .replace(",\"evidence\":{\"kind\":\"AssertionError\",\"line\":4}", "");
        assert!(!old.contains("evidence"), "{old}");
        std::fs::write(&p, &old).unwrap();
        let rec = JournalFile::read(&p).unwrap();
        assert!(!rec.has_evidence());
        let v = Journal::verify(&rec, false);
        v.emit("coder-1", judged(true)).unwrap();
        v.finish().unwrap();
        // ... and a resume appends events without it.
        let r = Journal::resume(&rec).unwrap();
        r.emit("coder-1", judged(true)).unwrap();
        r.emit("coder-1", judged(true)).unwrap();
        drop(r);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(!text.contains("evidence"), "{text}");
    }

    #[test]
    fn corrupt_middle_line_names_the_line() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let j = create(&p);
        j.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        drop(j);
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("{text}not json\n{{}}\n")).unwrap();
        let e = JournalFile::read(&p).unwrap_err().to_string();
        assert!(e.contains("journal.jsonl:3:"), "{e}");
    }

    #[test]
    fn newer_major_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        create(&p);
        let text = std::fs::read_to_string(&p).unwrap().replace(
            &format!("dixit-journal/{FORMAT_MAJOR}.{FORMAT_MINOR}"),
            "dixit-journal/2.0",
        );
        std::fs::write(&p, text).unwrap();
        let e = JournalFile::read(&p).unwrap_err().to_string();
        assert!(e.contains("newer dixit"), "{e}");
    }

    #[test]
    fn verify_names_the_first_divergence() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let j = create(&p);
        j.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        j.emit("run", Event::Round { round: 2, suite: 3 }).unwrap();
        drop(j);
        let rec = JournalFile::read(&p).unwrap();
        let v = Journal::verify(&rec, false);
        v.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        let e = v
            .emit("run", Event::Round { round: 2, suite: 4 })
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lane `run` at its event #1")
                && e.contains("suite = 3")
                && e.contains("suite = 4"),
            "{e}"
        );
        let v = Journal::verify(&rec, false);
        v.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        assert!(v
            .finish()
            .unwrap_err()
            .to_string()
            .contains("stopped before"));
    }

    #[test]
    fn resume_supersedes_earlier_stop() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let j = create(&p);
        j.emit(
            "coder-1",
            Event::Refused {
                call: 3,
                cap: "max_tokens".into(),
            },
        )
        .unwrap();
        j.emit(
            "run",
            Event::Stop {
                reason: StopReason::Budget {
                    agent: "coder-1".into(),
                    cap: "max_tokens".into(),
                },
                round: 2,
            },
        )
        .unwrap();
        drop(j);
        let rec = JournalFile::read(&p).unwrap();
        assert!(rec.stop().is_some());
        let j = Journal::resume(&rec).unwrap();
        drop(j);
        let rec = JournalFile::read(&p).unwrap();
        assert_eq!(rec.stop(), None);
        assert!(rec.refusals().is_empty());
        assert_eq!(rec.resumes(), 1);
    }

    /// A run of three round events in the run lane, interrupted: its journal and its stop.
    fn interrupted_run(p: &Path) -> JournalFile {
        let j = create(p);
        for round in 1..=3 {
            j.emit("run", Event::Round { round, suite: 0 }).unwrap();
        }
        j.emit(
            "run",
            Event::Stop {
                reason: StopReason::Interrupted,
                round: 3,
            },
        )
        .unwrap();
        drop(j);
        JournalFile::read(p).unwrap()
    }

    #[test]
    fn an_interrupted_stop_reads_back_and_is_resumable() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let rec = interrupted_run(&p);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.lines()
                .last()
                .unwrap()
                .contains(r#""reason":"interrupted","round":3"#),
            "{text}"
        );
        let (stop, round) = rec.stop().unwrap();
        assert_eq!((stop.clone(), round), (StopReason::Interrupted, 3));
        assert!(stop.resumable() && !stop.is_decision());
    }

    #[test]
    fn a_resume_that_wrote_nothing_is_undone() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let rec = interrupted_run(&p);
        let before = std::fs::read(&p).unwrap();
        let j = Journal::resume(&rec).unwrap();
        j.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        assert!(j.nothing_resumed());
        j.undo_resume().unwrap();
        drop(j);
        assert_eq!(std::fs::read(&p).unwrap(), before);
        // One that wrote something is kept.
        let rec = JournalFile::read(&p).unwrap();
        let j = Journal::resume(&rec).unwrap();
        for round in 1..=4 {
            j.emit("run", Event::Round { round, suite: 0 }).unwrap();
        }
        assert!(!j.nothing_resumed());
        j.undo_resume().unwrap();
        drop(j);
        let rec = JournalFile::read(&p).unwrap();
        assert_eq!(rec.resumes(), 1);
        assert_eq!(rec.stop(), None);
    }

    #[test]
    fn an_interrupt_inside_the_recording_is_appended_after_it() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("journal.jsonl");
        let rec = interrupted_run(&p);
        let j = Journal::resume(&rec).unwrap();
        j.emit("run", Event::Round { round: 1, suite: 0 }).unwrap();
        j.emit(
            "run",
            Event::Stop {
                reason: StopReason::Interrupted,
                round: 1,
            },
        )
        .unwrap();
        drop(j);
        let rec = JournalFile::read(&p).unwrap();
        let last = rec.records.last().unwrap();
        assert_eq!((last.lane.as_str(), last.seq), ("run", 3));
        assert_eq!(rec.stop(), Some((StopReason::Interrupted, 1)));
        // The next resume re-executes the three recorded rounds again.
        let j = Journal::resume(&rec).unwrap();
        for round in 1..=3 {
            j.emit("run", Event::Round { round, suite: 0 }).unwrap();
        }
        assert!(j.nothing_resumed());
    }
}
