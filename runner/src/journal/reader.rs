//! Reading a journal.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use super::event::{
    Choice, Event, Open, ProjectSnapshot, Record, StopReason, FORMAT_MAJOR, PERSON_LANE,
};
use super::JournalError;
use crate::agents::{RecordedReply, Recording};
use crate::config::ProtocolName;

/// A recorded answer to a stop: the choice, who made it, and the rule a policy stated for it
/// (`None`: a person's).
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    /// What was chosen.
    pub choice: Choice,
    /// Who chose it.
    pub by: String,
    /// The rule a decision policy stated for it (`None`: a person's choice).
    pub rule: Option<String>,
}

/// The protocol of every journal of format 1.0: headers named no protocol before 1.1, when
/// `dixit` was the only one. A fact of the format, not a default of the registry.
pub const FORMAT_1_0_PROTOCOL: &str = "dixit";

/// The lane of `Resumed` markers.
pub(crate) const RESUME_LANE: &str = "resume";

/// A journal read from disk.
#[derive(Clone, Debug)]
pub struct JournalFile {
    /// The journal's path.
    pub path: PathBuf,
    /// The run's id.
    pub run_id: String,
    /// The version of dixit that wrote it.
    pub dixit_version: String,
    /// The version of wasmtime it ran with.
    pub wasmtime_version: String,
    /// The protocol that ran.
    pub protocol: ProtocolName,
    /// The project as it was (the header's snapshot).
    pub project: ProjectSnapshot,
    /// Digests of the guest runtimes the run used (see [`Event::Header`]).
    pub runtimes: std::collections::BTreeMap<String, String>,
    /// The format's minor version (`dixit-journal/1.N`): what its events may hold.
    pub format_minor: u32,
    /// The run this one was forked from (see [`Event::Header`]).
    pub forked_from: Option<super::event::Fork>,
    /// Every record after the header, in file order.
    pub records: Vec<Record>,
    /// Bytes up to the end of the last complete line (a resume truncates the file there).
    pub good_len: u64,
    /// Whether a half-written last line was dropped.
    pub truncated_tail: bool,
}

impl JournalFile {
    /// Whether its cells carry failure evidence (format 1.4 on): a replay or resume of an older
    /// journal neither compares nor writes any.
    pub fn has_evidence(&self) -> bool {
        self.format_minor >= super::event::EVIDENCE_SINCE_MINOR
    }

    /// Reads and checks a journal.
    pub fn read(path: &Path) -> Result<JournalFile, JournalError> {
        let bytes = std::fs::read(path).map_err(|source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let mut records = Vec::new();
        let mut header = None;
        let mut offset = 0u64;
        let mut good_len = 0u64;
        let mut truncated_tail = false;
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for (i, raw) in lines.iter().enumerate() {
            offset += raw.len() as u64;
            let complete = raw.ends_with('\n');
            let line = raw.trim_end();
            if line.is_empty() {
                good_len = offset;
                continue;
            }
            let parsed: Result<Record, _> = serde_json::from_str(line);
            let rec = match parsed {
                Ok(r) => r,
                Err(e) => {
                    if !complete && i == lines.len() - 1 {
                        truncated_tail = true; // a write cut short by a crash
                        break;
                    }
                    return Err(JournalError::Corrupt {
                        path: path.to_path_buf(),
                        line: i + 1,
                        message: e.to_string(),
                    });
                }
            };
            if !complete {
                truncated_tail = true;
                break;
            }
            good_len = offset;
            if header.is_none() {
                match rec.event {
                    Event::Header {
                        format,
                        dixit,
                        wasmtime,
                        run_id,
                        protocol,
                        project,
                        runtimes,
                        forked_from,
                    } => {
                        let minor = check_format(path, &format)?;
                        header = Some((
                            run_id,
                            dixit,
                            wasmtime,
                            protocol,
                            project,
                            runtimes,
                            minor,
                            forked_from,
                        ));
                        continue;
                    }
                    _ => {
                        return Err(JournalError::Format {
                            path: path.to_path_buf(),
                            message: "the first line is not a journal header".into(),
                        })
                    }
                }
            }
            records.push(rec);
        }
        let (
            run_id,
            dixit_version,
            wasmtime_version,
            protocol,
            project,
            runtimes,
            format_minor,
            forked_from,
        ) = header.ok_or_else(|| JournalError::Format {
            path: path.to_path_buf(),
            message: "empty journal (no header)".into(),
        })?;
        Ok(JournalFile {
            protocol: protocol.unwrap_or_else(|| ProtocolName::new(FORMAT_1_0_PROTOCOL)),
            runtimes,
            format_minor,
            forked_from,
            path: path.to_path_buf(),
            run_id,
            dixit_version,
            wasmtime_version,
            project,
            records,
            good_len,
            truncated_tail,
        })
    }

    /// The records that describe the run's decisions: `Resumed` markers removed, and stops and
    /// refusals that a later resume superseded removed too.
    pub fn effective(&self) -> Vec<&Record> {
        let last_resume = self.records.iter().rposition(|r| r.lane == RESUME_LANE);
        self.records
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                r.lane != RESUME_LANE
                    && !(last_resume.is_some_and(|lr| *i < lr) && self.decided_afresh(*i))
                    && !self.superseded_shipping(*i)
            })
            .map(|(_, r)| r)
            .collect()
    }

    /// Whether record `i` is the shipping of a stop a person answered with a choice that goes
    /// on (not `accept`): the run did not end there, and what it ships is decided where it ends.
    fn superseded_shipping(&self, i: usize) -> bool {
        matches!(self.records[i].event, Event::Shipped(_))
            && self.records[i + 1..]
                .iter()
                .position(|r| matches!(r.event, Event::Stop { .. }))
                .is_some_and(|k| self.answered(i + 1 + k) && !self.accepted(i + 1 + k))
    }

    /// Whether record `i` is a stop a person (or the policy) accepted: the run ended there.
    fn accepted(&self, i: usize) -> bool {
        self.records[i + 1..]
            .iter()
            .take_while(|r| !matches!(r.event, Event::Stop { .. }))
            .any(|r| {
                matches!(
                    &r.event,
                    Event::Decision {
                        choice: Choice::Accept,
                        ..
                    }
                )
            })
    }

    /// Whether a resume decides record `i` afresh: a refusal, a failure, a stop no person
    /// answered (a cap, or a stop whose limit a person raised), and the hidden runs and the
    /// shipping that preceded such a stop (they follow the protocol's decision, which it makes
    /// again).
    fn decided_afresh(&self, i: usize) -> bool {
        match &self.records[i].event {
            Event::Refused { .. } | Event::Failed { .. } => true,
            Event::Stop { .. } => !self.answered(i),
            Event::Hidden { .. } | Event::Shipped(_) => self.records[i + 1..]
                .iter()
                .position(|r| matches!(r.event, Event::Stop { .. }))
                .is_some_and(|k| !self.answered(i + 1 + k)),
            _ => false,
        }
    }

    /// Whether record `i` is a stop a person answered with a choice that lets the run meet
    /// the stop again (anything but raising a limit, after which the limit is not reached).
    fn answered(&self, i: usize) -> bool {
        if !matches!(self.records[i].event, Event::Stop { .. }) {
            return false;
        }
        self.records[i + 1..]
            .iter()
            .take_while(|r| !matches!(r.event, Event::Stop { .. }))
            .any(|r| {
                matches!(&r.event, Event::Decision { choice, .. } if !matches!(choice, Choice::Raise { .. }))
            })
    }

    /// The person's decisions, in order, with who made each.
    pub fn decisions(&self) -> Vec<(&Choice, &str)> {
        self.records
            .iter()
            .filter_map(|r| match &r.event {
                Event::Decision { choice, by, .. } => Some((choice, by.as_str())),
                _ => None,
            })
            .collect()
    }

    /// The limits a person raised, in order (`table.key`, value).
    pub fn raised(&self) -> Vec<(&str, i64)> {
        self.decisions()
            .into_iter()
            .filter_map(|(c, _)| match c {
                Choice::Raise { key, value } => Some((key.as_str(), *value)),
                _ => None,
            })
            .collect()
    }

    /// The person's answers to stops (every decision but raising a limit), in order, with who
    /// made each and, for a policy's, the rule it stated: what a resumed or replayed run meets
    /// at its stops.
    pub fn answers(&self) -> Vec<Answered> {
        self.records
            .iter()
            .filter_map(|r| match &r.event {
                Event::Decision {
                    choice, by, policy, ..
                } if !matches!(choice, Choice::Raise { .. }) => Some(Answered {
                    choice: choice.clone(),
                    by: by.clone(),
                    rule: policy.as_ref().map(|p| p.rule.clone()),
                }),
                _ => None,
            })
            .collect()
    }

    /// Whether a person decided at the run's last stop and the run has not come to another
    /// since (so `--resume` continues from the decision, also after a resume that was killed).
    pub fn decision_pending(&self) -> bool {
        let last_stop = self
            .records
            .iter()
            .rposition(|r| matches!(r.event, Event::Stop { .. }));
        last_stop.is_some_and(|s| {
            self.records[s + 1..]
                .iter()
                .any(|r| matches!(r.event, Event::Decision { .. }))
        })
    }

    /// The journal without a decision made at its last stop that no run has met yet: what a
    /// replay reproduces (the run as it stopped, before the person's choice).
    pub fn without_pending_decision(mut self) -> JournalFile {
        if self.decision_pending() {
            if let Some(s) = self
                .records
                .iter()
                .rposition(|r| matches!(r.event, Event::Stop { .. }))
            {
                self.records = std::mem::take(&mut self.records)
                    .into_iter()
                    .enumerate()
                    .filter(|(k, r)| !(*k > s && r.lane == PERSON_LANE))
                    .map(|(_, r)| r)
                    .collect();
            }
        }
        self
    }

    /// Effective records by lane, in order.
    pub fn lanes(&self) -> HashMap<String, VecDeque<Record>> {
        let mut out: HashMap<String, VecDeque<Record>> = HashMap::new();
        for r in self
            .effective()
            .into_iter()
            .filter(|r| r.lane != PERSON_LANE)
        {
            out.entry(r.lane.clone()).or_default().push_back(r.clone());
        }
        out
    }

    /// What a resumed run must reproduce: the effective records without the stops, refusals
    /// and failures that the resume supersedes (the resumed run decides those afresh).
    pub fn lanes_to_resume(&self) -> HashMap<String, VecDeque<Record>> {
        let mut out: HashMap<String, VecDeque<Record>> = HashMap::new();
        for (i, r) in self.records.iter().enumerate() {
            if r.lane == RESUME_LANE
                || r.lane == PERSON_LANE
                || self.decided_afresh(i)
                || self.superseded_shipping(i)
            {
                continue;
            }
            out.entry(r.lane.clone()).or_default().push_back(r.clone());
        }
        out
    }

    /// The recorded replies, by (agent, call).
    pub fn recording(&self) -> Recording {
        let mut rec = Recording::default();
        for r in self.effective() {
            if let Event::Failed { call, message } = &r.event {
                rec.failures
                    .insert((r.lane.clone(), *call), message.clone());
            }
            if let Event::Reply {
                call,
                prompt,
                text,
                files,
                usage,
                cost_usd,
                model,
                violations,
                truncated,
                ..
            } = &r.event
            {
                rec.replies.insert(
                    (r.lane.clone(), *call),
                    RecordedReply {
                        prompt: prompt.clone(),
                        text: text.clone(),
                        files: files.clone(),
                        usage: *usage,
                        cost_usd: *cost_usd,
                        model: model.clone(),
                        violations: violations.clone(),
                        truncated: *truncated,
                    },
                );
            }
        }
        rec
    }

    /// Calls the recording refused (budget), by (agent, call), with the cap.
    pub fn refusals(&self) -> HashMap<(String, u64), String> {
        self.effective()
            .into_iter()
            .filter_map(|r| match &r.event {
                Event::Refused { call, cap } => Some(((r.lane.clone(), *call), cap.clone())),
                _ => None,
            })
            .collect()
    }

    /// How the run stopped, if it did (and was not resumed since).
    pub fn stop(&self) -> Option<(StopReason, u32)> {
        self.effective()
            .into_iter()
            .rev()
            .find_map(|r| match &r.event {
                Event::Stop { reason, round } => Some((reason.clone(), *round)),
                _ => None,
            })
    }

    /// Brings every open entry (a protocol's own event or stop) to its current shape with
    /// `upgrade`, the protocol's knowledge of its older formats, so that a resume or a replay
    /// compares like with like.
    pub fn upgrade(&mut self, upgrade: &dyn Fn(&mut Open)) {
        for r in &mut self.records {
            match &mut r.event {
                Event::Protocol(o)
                | Event::Stop {
                    reason: StopReason::Decided(o),
                    ..
                } => upgrade(o),
                _ => {}
            }
        }
    }

    /// Number of `Resumed` markers.
    pub fn resumes(&self) -> u64 {
        self.records
            .iter()
            .filter(|r| r.lane == RESUME_LANE)
            .count() as u64
    }
}

/// Checks the header's format and returns its minor version: a newer major version is refused.
/// A newer minor version reads: its new events are open entries ([`crate::journal::Open`]) a
/// reader that does not know them passes by, and fields it added to shared events are ignored.
fn check_format(path: &Path, format: &str) -> Result<u32, JournalError> {
    let mut version = format
        .strip_prefix("dixit-journal/")
        .map(|v| v.split('.').map(|n| n.parse::<u32>().ok()));
    let major = version
        .as_mut()
        .and_then(|v| v.next().flatten())
        .ok_or_else(|| JournalError::Format {
            path: path.to_path_buf(),
            message: format!("unknown journal format `{format}`"),
        })?;
    if major > FORMAT_MAJOR {
        return Err(JournalError::Format {
            path: path.to_path_buf(),
            message: format!("written by a newer dixit (format {format}); this dixit reads dixit-journal/{FORMAT_MAJOR}.x"),
        });
    }
    Ok(version.and_then(|mut v| v.next().flatten()).unwrap_or(0))
}
