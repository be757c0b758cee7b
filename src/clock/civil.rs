//! Proleptic Gregorian calendar arithmetic on epoch milliseconds, as java.time's ISO chronology
//! counts it: day numbers since 1970-01-01 and the civil dates they name (Howard Hinnant's
//! algorithms). "Local millis" are wall-clock times counted as if the zone were UTC.

/// Milliseconds in a day.
pub const DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of a civil date (month 1..=12; a day past the month's end rolls over).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month 1..=12, day 1..=31)` of a day number.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Whether `y` is a leap year.
pub fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days in month `m` of year `y`.
pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// ISO day of week of a day number: 1 = Monday .. 7 = Sunday (1970-01-01 was a Thursday).
pub fn day_of_week(days: i64) -> i64 {
    (days + 3).rem_euclid(7) + 1
}

/// The year of local millis.
pub fn year_of(local: i64) -> i64 {
    civil_from_days(local.div_euclid(DAY)).0
}

/// Local millis at midnight starting a civil date, saturating far outside any real date.
pub fn midnight(y: i64, m: i64, d: i64) -> i64 {
    days_from_civil(y, m, d).saturating_mul(DAY)
}

/// Adds `n` months to local millis, clamping the day of month like java.time's `plusMonths`.
pub fn add_months(t: i64, n: i64) -> i64 {
    let days = t.div_euclid(DAY);
    let ms = t.rem_euclid(DAY);
    let (y, m, d) = civil_from_days(days);
    let total = (y * 12 + (m - 1)).saturating_add(n);
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) + 1);
    let nd = d.min(days_in_month(ny, nm));
    midnight(ny, nm, nd).saturating_add(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_weekdays() {
        for d in [-800_000i64, -719_468, -1, 0, 1, 59, 365, 10_957, 19_000, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
            assert!(dd <= days_in_month(y, m));
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(day_of_week(0), 4);
        assert_eq!(day_of_week(days_from_civil(2024, 3, 11)), 1);
        assert_eq!(add_months(midnight(2024, 1, 31), 1), midnight(2024, 2, 29));
        assert_eq!(add_months(midnight(2024, 3, 31), -13), midnight(2023, 2, 28));
        assert!(is_leap(2000) && !is_leap(1900) && is_leap(2024));
    }
}
