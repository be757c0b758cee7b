use super::*;
use crate::clock::civil::midnight;

const H: i64 = 3_600_000;
const M: i64 = 60_000;

fn zone(id: &str) -> Zone {
    Zone::parse(id).unwrap()
}

fn cal(u: CalendarUnit, id: &str) -> Rounding {
    Rounding::new(Interval::Calendar(u), zone(id), 0)
}

fn fixed(ms: i64, id: &str) -> Rounding {
    Rounding::new(Interval::Fixed(ms), zone(id), 0)
}

/// UTC millis of a wall-clock time written as UTC plus `hours` of offset.
fn at(y: i64, mo: i64, d: i64, h: i64, mi: i64) -> i64 {
    midnight(y, mo, d) + h * H + mi * M
}

#[test]
fn parses_calendar_intervals() {
    for (s, u) in [
        ("1s", CalendarUnit::Second),
        ("second", CalendarUnit::Second),
        ("1m", CalendarUnit::Minute),
        ("minute", CalendarUnit::Minute),
        ("1h", CalendarUnit::Hour),
        ("hour", CalendarUnit::Hour),
        ("1d", CalendarUnit::Day),
        ("day", CalendarUnit::Day),
        ("1w", CalendarUnit::Week),
        ("week", CalendarUnit::Week),
        ("1M", CalendarUnit::Month),
        ("month", CalendarUnit::Month),
        ("1q", CalendarUnit::Quarter),
        ("quarter", CalendarUnit::Quarter),
        ("1y", CalendarUnit::Year),
        ("year", CalendarUnit::Year),
    ] {
        assert_eq!(parse_calendar_interval(s), Ok(u), "{s}");
    }
    for bad in ["2d", "1D", "Day", "days", "", "1 d"] {
        assert_eq!(
            parse_calendar_interval(bad).unwrap_err(),
            format!("The supplied interval [{bad}] could not be parsed as a calendar interval.")
        );
    }
}

#[test]
fn parses_fixed_intervals_and_offsets_as_time_values() {
    assert_eq!(parse_fixed_interval("90m"), Ok(90 * M));
    assert_eq!(parse_fixed_interval("12h"), Ok(12 * H));
    assert_eq!(parse_fixed_interval("2d"), Ok(2 * DAY));
    assert_eq!(parse_fixed_interval("1500ms"), Ok(1500));
    assert_eq!(parse_fixed_interval("30S"), Ok(30_000));
    assert_eq!(parse_fixed_interval("3000micros"), Ok(3));
    assert_eq!(parse_fixed_interval(" 1 h "), Ok(H));
    assert_eq!(
        parse_fixed_interval("1M").unwrap_err(),
        "failed to parse setting [date_histogram.fixedInterval] with value [1M] as a time value: unit is missing or unrecognized"
    );
    assert_eq!(
        parse_fixed_interval("1w").unwrap_err(),
        "failed to parse setting [date_histogram.fixedInterval] with value [1w] as a time value: unit is missing or unrecognized"
    );
    assert_eq!(
        parse_fixed_interval("1.5h").unwrap_err(),
        "failed to parse [1.5h], fractional time values are not supported"
    );
    assert_eq!(parse_fixed_interval("xh").unwrap_err(), "failed to parse [xh]");
    assert_eq!(
        parse_fixed_interval("-2h").unwrap_err(),
        "failed to parse setting [date_histogram.fixedInterval] with value [-2h] as a time value: negative durations are not supported"
    );
    for zero in ["0", "000", "-1", "0s", "-1h", "10nanos"] {
        assert_eq!(parse_fixed_interval(zero).unwrap_err(), "Zero or negative time interval not supported", "{zero}");
    }
    assert_eq!(parse_offset("+6h"), Ok(6 * H));
    assert_eq!(parse_offset("-1d"), Ok(-DAY));
    assert_eq!(parse_offset("30m"), Ok(30 * M));
    assert_eq!(
        parse_offset("-1").unwrap_err(),
        "failed to parse setting [DateHistogramAggregationBuilder.parseOffset] with value [1] as a time value: unit is missing or unrecognized"
    );
    assert!(parse_offset("").is_err());
    assert_eq!(parse_time_value("9223372036854775807d", "x"), Ok(i64::MAX));
}

#[test]
fn calendar_units_in_utc_and_fixed_offsets() {
    let x = at(2024, 1, 3, 13, 45) + 12_345; // a Wednesday
    assert_eq!(cal(CalendarUnit::Second, "UTC").round(x), at(2024, 1, 3, 13, 45) + 12_000);
    assert_eq!(cal(CalendarUnit::Minute, "UTC").round(x), at(2024, 1, 3, 13, 45));
    assert_eq!(cal(CalendarUnit::Hour, "UTC").round(x), at(2024, 1, 3, 13, 0));
    assert_eq!(cal(CalendarUnit::Day, "UTC").round(x), at(2024, 1, 3, 0, 0));
    assert_eq!(cal(CalendarUnit::Week, "UTC").round(x), at(2024, 1, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Month, "UTC").round(x), at(2024, 1, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Quarter, "UTC").round(at(2024, 5, 15, 0, 0)), at(2024, 4, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Year, "UTC").round(at(2024, 5, 15, 0, 0)), at(2024, 1, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Month, "UTC").next_rounding_value(at(2024, 1, 1, 0, 0)), at(2024, 2, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Quarter, "UTC").next_rounding_value(at(2024, 10, 1, 0, 0)), at(2025, 1, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Year, "UTC").next_rounding_value(at(2024, 1, 1, 0, 0)), at(2025, 1, 1, 0, 0));
    assert_eq!(cal(CalendarUnit::Week, "UTC").next_rounding_value(at(2024, 1, 1, 0, 0)), at(2024, 1, 8, 0, 0));
    // Before 1970 and across the epoch.
    assert_eq!(cal(CalendarUnit::Day, "UTC").round(-1), -DAY);
    assert_eq!(cal(CalendarUnit::Week, "UTC").round(0), at(1969, 12, 29, 0, 0));
    assert_eq!(cal(CalendarUnit::Year, "UTC").round(at(1900, 3, 1, 5, 0)), at(1900, 1, 1, 0, 0));
    // In -02:00 a day starts at 02:00 UTC; in +05:30 at 18:30 UTC the day before.
    assert_eq!(cal(CalendarUnit::Day, "-02:00").round(at(2024, 1, 3, 1, 0)), at(2024, 1, 2, 2, 0));
    assert_eq!(cal(CalendarUnit::Day, "+05:30").round(at(2024, 1, 3, 1, 0)), at(2024, 1, 2, 18, 30));
    // The year in Paris starts at 23:00 UTC on December 31.
    assert_eq!(cal(CalendarUnit::Year, "Europe/Paris").round(at(2024, 6, 1, 0, 0)), at(2023, 12, 31, 23, 0));
}

#[test]
fn days_and_months_across_new_york_dst() {
    let day = cal(CalendarUnit::Day, "America/New_York");
    // The spring-forward day starts at midnight EST and lasts 23 hours.
    assert_eq!(day.round(at(2024, 3, 10, 12, 0)), at(2024, 3, 10, 5, 0));
    assert_eq!(day.next_rounding_value(at(2024, 3, 10, 5, 0)), at(2024, 3, 11, 4, 0));
    // The fall-back day starts at midnight EDT and lasts 25 hours.
    assert_eq!(day.round(at(2024, 11, 3, 6, 30)), at(2024, 11, 3, 4, 0));
    assert_eq!(day.next_rounding_value(at(2024, 11, 3, 4, 0)), at(2024, 11, 4, 5, 0));
    let month = cal(CalendarUnit::Month, "America/New_York");
    assert_eq!(month.round(at(2024, 3, 20, 12, 0)), at(2024, 3, 1, 5, 0));
    assert_eq!(month.next_rounding_value(at(2024, 3, 1, 5, 0)), at(2024, 4, 1, 4, 0));
    let week = cal(CalendarUnit::Week, "America/New_York");
    assert_eq!(week.round(at(2024, 3, 13, 12, 0)), at(2024, 3, 11, 4, 0));
    assert_eq!(week.next_rounding_value(at(2024, 3, 4, 5, 0)), at(2024, 3, 11, 4, 0));
}

#[test]
fn hours_across_new_york_dst() {
    let hour = cal(CalendarUnit::Hour, "America/New_York");
    // 01:30 EDT and 01:30 EST (an hour later) fall in two different 01:00 buckets.
    assert_eq!(hour.round(at(2024, 11, 3, 5, 30)), at(2024, 11, 3, 5, 0));
    assert_eq!(hour.round(at(2024, 11, 3, 6, 30)), at(2024, 11, 3, 6, 0));
    assert_eq!(hour.next_rounding_value(at(2024, 11, 3, 5, 0)), at(2024, 11, 3, 6, 0));
    // 03:15 EDT right after the jump is in the 03:00 bucket starting at the jump.
    assert_eq!(hour.round(at(2024, 3, 10, 7, 15)), at(2024, 3, 10, 7, 0));
    assert_eq!(hour.next_rounding_value(at(2024, 3, 10, 6, 0)), at(2024, 3, 10, 7, 0));
}

#[test]
fn lord_howe_half_hour_jumps() {
    let hour = cal(CalendarUnit::Hour, "Australia/Lord_Howe");
    // 2024-10-06 02:00 +10:30 jumps to 02:30 +11:00 (15:30 UTC): 02:30-03:00 has no hour start,
    // so it rounds from just before the gap, into the 01:00 bucket (14:30 UTC).
    assert_eq!(hour.round(at(2024, 10, 5, 15, 45)), at(2024, 10, 5, 14, 30));
    assert_eq!(hour.round(at(2024, 10, 5, 16, 5)), at(2024, 10, 5, 16, 0));
    assert_eq!(hour.next_rounding_value(at(2024, 10, 5, 14, 30)), at(2024, 10, 5, 16, 0));
    // 2024-04-07 02:00 +11:00 goes back to 01:30 +10:30 (15:00 UTC): the half hour repeats.
    assert_eq!(hour.round(at(2024, 4, 6, 14, 45)), at(2024, 4, 6, 14, 0));
    assert_eq!(hour.round(at(2024, 4, 6, 15, 10)), at(2024, 4, 6, 14, 0));
    assert_eq!(hour.round(at(2024, 4, 6, 15, 40)), at(2024, 4, 6, 15, 30));
    let day = cal(CalendarUnit::Day, "Australia/Lord_Howe");
    assert_eq!(day.round(at(2024, 10, 6, 3, 0)), at(2024, 10, 5, 13, 30));
    assert_eq!(day.next_rounding_value(at(2024, 10, 5, 13, 30)), at(2024, 10, 6, 13, 0));
}

#[test]
fn a_day_without_midnight_starts_at_the_transition() {
    // Sao Paulo moved its clocks from 00:00 to 01:00 on 2018-11-04 (03:00 UTC).
    let day = cal(CalendarUnit::Day, "America/Sao_Paulo");
    assert_eq!(day.round(at(2018, 11, 4, 12, 0)), at(2018, 11, 4, 3, 0));
    assert_eq!(day.next_rounding_value(at(2018, 11, 3, 3, 0)), at(2018, 11, 4, 3, 0));
    assert_eq!(day.next_rounding_value(at(2018, 11, 4, 3, 0)), at(2018, 11, 5, 2, 0));
    // Samoa skipped 2011-12-30 entirely: the day after the 29th is the 31st.
    let apia = cal(CalendarUnit::Day, "Pacific/Apia");
    let dec29 = apia.round(at(2011, 12, 29, 12, 0));
    assert_eq!(dec29, at(2011, 12, 29, 10, 0));
    assert_eq!(apia.next_rounding_value(dec29), at(2011, 12, 30, 10, 0));
}

#[test]
fn fixed_intervals_in_local_time() {
    // 90 minutes in UTC counts from the epoch.
    assert_eq!(fixed(90 * M, "UTC").round(at(2024, 1, 1, 1, 0)), at(2024, 1, 1, 0, 0));
    assert_eq!(fixed(90 * M, "UTC").next_rounding_value(at(2024, 1, 1, 0, 0)), at(2024, 1, 1, 1, 30));
    // A fixed day in New York behaves as the calendar day across the spring jump.
    let d = fixed(DAY, "America/New_York");
    assert_eq!(d.round(at(2024, 3, 10, 12, 0)), at(2024, 3, 10, 5, 0));
    assert_eq!(d.next_rounding_value(at(2024, 3, 10, 5, 0)), at(2024, 3, 11, 4, 0));
    // 12h in -05:00 local time: buckets at 00:00 and 12:00 local.
    let h12 = fixed(12 * H, "-05:00");
    assert_eq!(h12.round(at(2024, 1, 1, 16, 0)), at(2024, 1, 1, 5, 0));
    assert_eq!(h12.round(at(2024, 1, 1, 17, 0)), at(2024, 1, 1, 17, 0));
    // 1h in New York during the repeated hour: each occurrence is its own bucket.
    let h = fixed(H, "America/New_York");
    assert_eq!(h.round(at(2024, 11, 3, 5, 30)), at(2024, 11, 3, 5, 0));
    assert_eq!(h.round(at(2024, 11, 3, 6, 30)), at(2024, 11, 3, 6, 0));
    assert_eq!(h.next_rounding_value(at(2024, 11, 3, 5, 0)), at(2024, 11, 3, 6, 0));
    // 3h in New York on the spring day: 00:00, then 03:00 EDT (there is no 02:00-03:00).
    let h3 = fixed(3 * H, "America/New_York");
    assert_eq!(h3.round(at(2024, 3, 10, 6, 0)), at(2024, 3, 10, 5, 0));
    assert_eq!(h3.round(at(2024, 3, 10, 7, 30)), at(2024, 3, 10, 7, 0));
    assert_eq!(h3.next_rounding_value(at(2024, 3, 10, 5, 0)), at(2024, 3, 10, 7, 0));
}

#[test]
fn offsets_shift_buckets() {
    let r = Rounding::new(Interval::Calendar(CalendarUnit::Day), zone("UTC"), 6 * H);
    assert_eq!(r.round(at(2024, 1, 1, 3, 0)), at(2023, 12, 31, 6, 0));
    assert_eq!(r.round(at(2024, 1, 1, 7, 0)), at(2024, 1, 1, 6, 0));
    assert_eq!(r.next_rounding_value(at(2024, 1, 1, 6, 0)), at(2024, 1, 2, 6, 0));
    let r = Rounding::new(Interval::Fixed(DAY), zone("UTC"), -H);
    assert_eq!(r.round(at(2024, 1, 1, 23, 30)), at(2024, 1, 1, 23, 0));
    let r = Rounding::new(Interval::Calendar(CalendarUnit::Month), zone("America/New_York"), 15 * DAY);
    assert_eq!(r.round(at(2024, 3, 20, 0, 0)), at(2024, 3, 16, 5, 0));
}

const ZONES: &[&str] = &[
    "UTC",
    "+05:30",
    "-02:00",
    "America/New_York",
    "Europe/Paris",
    "Europe/London",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "America/Sao_Paulo",
    "Pacific/Apia",
    "America/St_Johns",
    "Asia/Tehran",
    "Pacific/Chatham",
    "America/Havana",
    "Africa/Casablanca",
    "Antarctica/Troll",
];

fn intervals() -> Vec<Interval> {
    use CalendarUnit::*;
    let mut v: Vec<Interval> =
        [Second, Minute, Hour, Day, Week, Month, Quarter, Year].into_iter().map(Interval::Calendar).collect();
    v.extend([1000, 90_000, 15 * M, H, 3 * H, 12 * H, DAY, 36 * H, 7 * DAY].map(Interval::Fixed));
    v
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn round_is_a_floor_onto_increasing_keys() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let offsets = [0, 6 * H, -H, 30 * M];
    for id in ZONES {
        let z = zone(id);
        for interval in intervals() {
            for offset in offsets {
                let r = Rounding::new(interval, z.clone(), offset);
                for _ in 0..60 {
                    // 1900 to 2100, dense around DST transitions by taking some near midnights.
                    let mut x = rng.below(6_300_000_000_000) as i64 - 2_208_988_800_000;
                    if rng.below(2) == 0 {
                        x = x - x.rem_euclid(DAY) + (rng.below(6 * H as u64) as i64 - 3 * H);
                    }
                    let k = r.round(x);
                    let ctx = format!("{id} {interval:?} offset {offset} x {x} key {k}");
                    assert!(k <= x, "{ctx}");
                    assert_eq!(r.round(k), k, "not idempotent: {ctx}");
                    let next = r.next_rounding_value(k);
                    assert!(x < next, "next {next}: {ctx}");
                    assert_eq!(r.round(next), next, "next {next} is not a key: {ctx}");
                    assert_eq!(r.round(next - 1), k, "next {next} skips a key: {ctx}");
                }
            }
        }
    }
}

#[test]
fn keys_walk_strictly_upwards_through_transitions() {
    for id in ZONES {
        let z = zone(id);
        for interval in intervals() {
            let r = Rounding::new(interval, z.clone(), 0);
            let step = match interval {
                Interval::Calendar(CalendarUnit::Second) | Interval::Fixed(1000) => continue,
                Interval::Calendar(CalendarUnit::Minute) | Interval::Fixed(90_000) => continue,
                _ => 1,
            };
            // Walk 2024 (and 2011 for Apia's lost day) key by key.
            for year in [2011, 2024] {
                let mut k = r.round(midnight(year, 1, 1));
                let end = midnight(year + 1, 1, 1);
                let mut n = 0;
                while k < end && n < 20_000 {
                    let next = r.next_rounding_value(k);
                    assert!(next > k, "{id} {interval:?} {k} -> {next}");
                    assert_eq!(r.round(next - step), k, "{id} {interval:?} {k} -> {next}");
                    k = next;
                    n += 1;
                }
            }
        }
    }
}

#[test]
fn extreme_instants_do_not_panic() {
    for id in ["UTC", "America/New_York", "Australia/Lord_Howe"] {
        for interval in intervals() {
            for offset in [0, i64::MAX, i64::MIN, 6 * H] {
                let r = Rounding::new(interval, zone(id), offset);
                for x in [i64::MIN, i64::MIN + 1, -1, 0, i64::MAX - 1, i64::MAX] {
                    let k = r.round(x);
                    let _ = r.next_rounding_value(k);
                }
            }
        }
    }
    assert_eq!(Rounding::new(Interval::Fixed(0), zone("UTC"), 0).interval(), Interval::Fixed(1));
}

#[path = "rounding_java.rs"]
mod java;

#[test]
fn keys_match_java_time() {
    let mut bad = Vec::new();
    for (id, interval, offset, x, key, next) in java::CASES {
        let r = Rounding::new(*interval, zone(id), *offset);
        let (k, n) = (r.round(*x), r.next_rounding_value(*key));
        if (k, n) != (*key, *next) {
            bad.push(format!("{id} {interval:?} offset {offset} x {x}: got ({k}, {n}) want ({key}, {next})"));
        }
    }
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
}
