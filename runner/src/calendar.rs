//! A moment as a UTC calendar date, for the run ids the engine names runs by and the dates the
//! reports print (`report::format::utc_timestamp`).

use std::time::{SystemTime, UNIX_EPOCH};

/// `t` as a UTC civil date (year, month, day) and the seconds since its midnight.
pub fn civil(t: SystemTime) -> (i64, i64, i64, u64) {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_utc() {
        assert_eq!(civil(UNIX_EPOCH), (1970, 1, 1, 0));
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_661); // 2000-02-29 01:01:01
        assert_eq!(civil(leap), (2000, 2, 29, 3_661));
    }
}
