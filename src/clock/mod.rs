//! Wall-clock time, read in one place: epoch milliseconds as OpenSearch reports them
//! (`creation_date`, `start_time_in_millis`, `now` in date math). A clock before 1970 reads 0.
//! Calendar arithmetic ([`civil`]) and time zones from the system's tz database ([`tz`]) live here too.

use std::time::{SystemTime, UNIX_EPOCH};

pub mod civil;
mod posix_tz;
pub mod tz;
mod tzif;

pub use tz::Zone;

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Nanoseconds since the Unix epoch (for ids that must differ between close calls).
pub fn now_nanos() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_after_2020() {
        assert!(super::now_millis() > 1_577_836_800_000);
        assert!(super::now_nanos() / 1_000_000 >= super::now_millis() as u64 - 1000);
    }
}
