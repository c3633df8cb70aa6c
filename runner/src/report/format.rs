//! Numbers and dates in words, one way everywhere: the terminal tables, the HTML pages and the
//! CLI's messages all format through these, so `1,234` or `2026-11-23 10:04 UTC` reads the same
//! wherever it appears. Words (a list, a count and its noun) are [`crate::english`]'s, which
//! layers below the reports use too.

use std::time::SystemTime;

use crate::english::plural;

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `num` of `den` in percent with `decimals` decimals (`33.3 %`), or `none` when `den` is 0.
pub fn percent(num: u64, den: u64, decimals: usize, none: &str) -> String {
    if den == 0 {
        none.into()
    } else {
        format!("{:.decimals$} %", 100.0 * num as f64 / den as f64)
    }
}

/// Bytes as `1.5 MiB`.
pub fn bytes(n: u64) -> String {
    const U: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", U[i])
    }
}

/// Microseconds as `410 µs` / `1.41 ms` / `1.23 s`.
pub fn micros(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{:.2} ms", us as f64 / 1e3)
    } else {
        format!("{:.2} s", us as f64 / 1e6)
    }
}

/// `YYYY-MM-DD HH:MM UTC`.
pub fn utc_timestamp(t: SystemTime) -> String {
    let (y, m, d, rest) = crate::calendar::civil(t);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3_600,
        rest % 3_600 / 60
    )
}

/// Where an evaluation's runs went: "on 2 threads" or "in 16 worker processes".
pub fn workers(count: usize, kind: crate::workers::Workers) -> String {
    match kind {
        crate::workers::Workers::Threads => format!("on {}", plural(count, "thread", "threads")),
        crate::workers::Workers::Processes => {
            format!("in {}", plural(count, "worker process", "worker processes"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn numbers() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(322_330), "322,330");
        assert_eq!(thousands(12), "12");
        assert_eq!(percent(1, 3, 1, "–"), "33.3 %");
        assert_eq!(percent(2, 3, 0, "-"), "67 %");
        assert_eq!(percent(0, 0, 1, "–"), "–");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(micros(410), "410 µs");
        assert_eq!(micros(1410), "1.41 ms");
    }

    #[test]
    fn timestamps_are_civil_utc() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01 00:00 UTC");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        assert_eq!(utc_timestamp(t), "2026-11-18 11:06 UTC");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(utc_timestamp(leap), "2000-02-29 00:00 UTC");
    }
}
