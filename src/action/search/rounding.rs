//! Date rounding for the date histograms, as OpenSearch's `org.opensearch.common.Rounding`: a
//! calendar unit (`TimeUnitRounding`: second to year, in local time of the zone) or a fixed
//! interval in millis (`TimeIntervalRounding`, also counted in local time), and an `offset` that
//! shifts every bucket. Bucket keys are UTC millis. Around daylight-saving transitions the keys
//! follow Java's strategies for local times that happen twice or never: the offset in effect at
//! the instant is looked up (`LocalTimeOffset`), the local time is rounded down, and a rounded
//! time that falls in a gap or an overlap is resolved per rounding kind. Next keys follow the
//! java.time code paths (`JavaTimeToMidnightRounding`, `JavaTimeRounding`) as Java does.
//! Interval strings parse as `DateHistogramAggregationBuilder`/`TimeValue` parse them.

// The date histogram aggregations are the callers; until they land nothing else uses this.
#![allow(dead_code)]

use crate::clock::civil::{self, DAY};
use crate::clock::tz::{LocalOffsets, Transition, Zone};

/// A calendar interval (`Rounding.DateTimeUnit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CalendarUnit {
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

/// What a date histogram buckets by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interval {
    Calendar(CalendarUnit),
    /// A fixed interval in millis (at least 1).
    Fixed(i64),
}

impl CalendarUnit {
    /// Whether keys fall on local midnights (day and longer units).
    fn rounds_to_midnight(self) -> bool {
        !matches!(self, CalendarUnit::Second | CalendarUnit::Minute | CalendarUnit::Hour)
    }

    /// Millis of a unit that does not round to midnight.
    fn millis(self) -> i64 {
        match self {
            CalendarUnit::Second => 1000,
            CalendarUnit::Minute => 60_000,
            CalendarUnit::Hour => 3_600_000,
            CalendarUnit::Day => DAY,
            _ => 7 * DAY,
        }
    }

    /// The name OpenSearch gives the unit (`DateTimeUnit.shortName`).
    pub fn short_name(self) -> &'static str {
        match self {
            CalendarUnit::Second => "second",
            CalendarUnit::Minute => "minute",
            CalendarUnit::Hour => "hour",
            CalendarUnit::Day => "day",
            CalendarUnit::Week => "week",
            CalendarUnit::Month => "month",
            CalendarUnit::Quarter => "quarter",
            CalendarUnit::Year => "year",
        }
    }

    /// Local millis rounded down to the unit's start (`DateTimeUnit.roundFloor`); weeks start
    /// on Monday.
    pub fn floor(self, local: i64) -> i64 {
        let days = local.div_euclid(DAY);
        match self {
            CalendarUnit::Second | CalendarUnit::Minute | CalendarUnit::Hour | CalendarUnit::Day => {
                floor_to(local, self.millis())
            }
            CalendarUnit::Week => (days - (civil::day_of_week(days) - 1)).saturating_mul(DAY),
            CalendarUnit::Month | CalendarUnit::Quarter | CalendarUnit::Year => {
                let (y, m, _) = civil::civil_from_days(days);
                let m = match self {
                    CalendarUnit::Month => m,
                    CalendarUnit::Quarter => (m - 1) / 3 * 3 + 1,
                    _ => 1,
                };
                civil::midnight(y, m, 1)
            }
        }
    }

    /// The local midnight one unit after a local midnight the unit starts at.
    fn next_midnight(self, midnight: i64) -> i64 {
        match self {
            CalendarUnit::Week => midnight.saturating_add(7 * DAY),
            CalendarUnit::Month => civil::add_months(midnight, 1),
            CalendarUnit::Quarter => civil::add_months(midnight, 3),
            CalendarUnit::Year => civil::add_months(midnight, 12),
            _ => midnight.saturating_add(DAY),
        }
    }
}

/// `value` rounded down to a multiple of `unit` (> 0).
fn floor_to(value: i64, unit: i64) -> i64 {
    value.div_euclid(unit).saturating_mul(unit)
}

/// Parses a `calendar_interval` (`1d`, `day`, `1M`, `month`, ...).
pub fn parse_calendar_interval(s: &str) -> Result<CalendarUnit, String> {
    Ok(match s {
        "1s" | "second" => CalendarUnit::Second,
        "1m" | "minute" => CalendarUnit::Minute,
        "1h" | "hour" => CalendarUnit::Hour,
        "1d" | "day" => CalendarUnit::Day,
        "1w" | "week" => CalendarUnit::Week,
        "1M" | "month" => CalendarUnit::Month,
        "1q" | "quarter" => CalendarUnit::Quarter,
        "1y" | "year" => CalendarUnit::Year,
        _ => return Err(format!("The supplied interval [{s}] could not be parsed as a calendar interval.")),
    })
}

/// Parses a time value (`TimeValue.parseTimeValue`: `nanos`, `micros`, `ms`, `s`, `m`, `h`, `d`,
/// case-insensitive but for `m`, and the bare `-1` and `0`) into millis. `setting` names the
/// value in errors.
pub fn parse_time_value(s: &str, setting: &str) -> Result<i64, String> {
    let norm = s.to_lowercase();
    let norm = norm.trim();
    let num = |suffix: &str| -> Result<i64, String> {
        let n = norm[..norm.len() - suffix.len()].trim();
        match n.parse::<i64>() {
            Ok(v) if v < -1 => Err(format!(
                "failed to parse setting [{setting}] with value [{s}] as a time value: negative durations are not supported"
            )),
            Ok(v) => Ok(v),
            Err(_) if n.parse::<f64>().is_ok() => {
                Err(format!("failed to parse [{s}], fractional time values are not supported"))
            }
            Err(_) => Err(format!("failed to parse [{s}]")),
        }
    };
    Ok(if norm.ends_with("nanos") {
        num("nanos")? / 1_000_000
    } else if norm.ends_with("micros") {
        num("micros")? / 1000
    } else if norm.ends_with("ms") {
        num("ms")?
    } else if norm.ends_with('s') {
        num("s")?.saturating_mul(1000)
    } else if s.trim_end().ends_with('m') {
        // Case-sensitive: `M` means months, which a time value does not have.
        num("m")?.saturating_mul(60_000)
    } else if norm.ends_with('h') {
        num("h")?.saturating_mul(3_600_000)
    } else if norm.ends_with('d') {
        num("d")?.saturating_mul(DAY)
    } else if norm.strip_prefix('-').is_some_and(|r| !r.is_empty() && r.trim_start_matches('0') == "1") {
        -1
    } else if !norm.is_empty() && norm.bytes().all(|b| b == b'0') {
        0
    } else {
        return Err(format!(
            "failed to parse setting [{setting}] with value [{s}] as a time value: unit is missing or unrecognized"
        ));
    })
}

/// Parses a `fixed_interval` (`90m`, `12h`, `1500ms`) into millis.
pub fn parse_fixed_interval(s: &str) -> Result<i64, String> {
    let ms = parse_time_value(s, "date_histogram.fixedInterval")?;
    if ms < 1 {
        return Err("Zero or negative time interval not supported".into());
    }
    Ok(ms)
}

/// Parses a string `offset` (`+6h`, `-1d`, `30m`) into millis
/// (`DateHistogramAggregationBuilder.parseStringOffset`).
pub fn parse_offset(s: &str) -> Result<i64, String> {
    const SETTING: &str = "DateHistogramAggregationBuilder.parseOffset";
    match s.as_bytes().first() {
        None => Err("Index 0 out of bounds for length 0".into()),
        Some(b'-') => Ok(parse_time_value(&s[1..], SETTING)?.saturating_neg()),
        Some(b'+') => parse_time_value(&s[1..], SETTING),
        Some(_) => parse_time_value(s, SETTING),
    }
}

/// The offset in effect from some instant on (`LocalTimeOffset`): the zone's first offset, or
/// the one a transition started.
#[derive(Debug, Clone, Copy)]
enum Span {
    First(i64),
    From(Transition),
}

impl Span {
    fn offset(self) -> i64 {
        match self {
            Span::First(o) => o,
            Span::From(t) => t.after,
        }
    }
}

/// How a rounded-down local time that falls near a transition becomes an instant
/// (`LocalTimeOffset.Strategy` of each prepared rounding).
#[derive(Debug, Clone, Copy)]
enum Strategy {
    /// `TimeUnitRounding.ToMidnightRounding`.
    ToMidnight,
    /// `TimeUnitRounding.NotToMidnightRounding`.
    NotToMidnight(CalendarUnit),
    /// `TimeIntervalRounding.VariableRounding`.
    Interval(i64),
}

/// How far a resolution may walk back through earlier transitions.
const MAX_DEPTH: u32 = 64;

/// A prepared rounding: interval, zone and offset.
#[derive(Debug, Clone)]
pub struct Rounding {
    interval: Interval,
    zone: Zone,
    offset: i64,
}

impl Rounding {
    /// A rounding; a fixed interval below 1ms counts as 1ms ([`parse_fixed_interval`] refuses
    /// those with OpenSearch's message).
    pub fn new(interval: Interval, zone: Zone, offset: i64) -> Rounding {
        let interval = match interval {
            Interval::Fixed(ms) => Interval::Fixed(ms.max(1)),
            cal => cal,
        };
        Rounding { interval, zone, offset }
    }

    pub fn interval(&self) -> Interval {
        self.interval
    }

    pub fn zone(&self) -> &Zone {
        &self.zone
    }

    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// The key of the bucket holding `utc_millis`: the greatest key not after it.
    pub fn round(&self, utc_millis: i64) -> i64 {
        let x = utc_millis.saturating_sub(self.offset);
        let r = match self.interval {
            Interval::Calendar(u) => self.round_unit(u, x),
            Interval::Fixed(i) => self.round_interval(i, x),
        };
        r.saturating_add(self.offset)
    }

    /// The key of the bucket after the one keyed `key`.
    pub fn next_rounding_value(&self, key: i64) -> i64 {
        let x = key.saturating_sub(self.offset);
        let r = match self.interval {
            Interval::Calendar(u) if u.rounds_to_midnight() => self.next_midnight_key(u, x),
            Interval::Calendar(u) => {
                let once = self.round_unit(u, x.saturating_add(u.millis()));
                if x < once {
                    once
                } else {
                    self.round_unit(u, x.saturating_add(2 * u.millis()))
                }
            }
            Interval::Fixed(i) => self.next_interval_key(i, x),
        };
        r.saturating_add(self.offset)
    }

    fn span_at(&self, utc: i64) -> Span {
        match self.zone.transition_at_or_before(utc) {
            Some(t) => Span::From(t),
            None => Span::First(self.zone.offset_at(utc)),
        }
    }

    /// The span before the one a transition started.
    fn previous(&self, t: Transition) -> Span {
        match self.zone.transition_at_or_before(t.at.saturating_sub(1)) {
            Some(p) if p.after == t.before => Span::From(p),
            _ => Span::First(t.before),
        }
    }

    /// `LocalTimeOffset.localToUtc`: a local time that happens in `span` or before it, resolved
    /// with the strategy where it is in or before a gap or an overlap.
    fn local_to_utc(&self, span: Span, local: i64, strategy: Strategy, depth: u32) -> i64 {
        let t = match span {
            Span::First(o) => return local.saturating_sub(o),
            Span::From(t) => t,
        };
        let this = local.saturating_sub(t.after);
        if depth >= MAX_DEPTH {
            return this;
        }
        let prev = |local: i64| self.local_to_utc(self.previous(t), local, strategy, depth + 1);
        if t.after > t.before {
            let (first_missing, first_after) = (t.at.saturating_add(t.before), t.at.saturating_add(t.after));
            if local >= first_after {
                return this;
            }
            let in_gap = local >= first_missing;
            match strategy {
                Strategy::ToMidnight | Strategy::Interval(_) if in_gap => t.at,
                Strategy::ToMidnight | Strategy::Interval(_) => prev(local),
                // Round from just before the gap's start.
                Strategy::NotToMidnight(u) => prev(u.floor(first_missing - 1)),
            }
        } else {
            let (first_overlapping, first_non_overlapping) =
                (t.at.saturating_add(t.after), t.at.saturating_add(t.before));
            if local >= first_non_overlapping {
                return this;
            }
            if local >= first_overlapping {
                return match strategy {
                    Strategy::ToMidnight => prev(local),
                    Strategy::NotToMidnight(_) | Strategy::Interval(_) => this,
                };
            }
            match strategy {
                Strategy::ToMidnight => prev(local),
                Strategy::NotToMidnight(u) if first_non_overlapping - first_overlapping >= u.millis() => this,
                Strategy::NotToMidnight(_) => prev(local),
                Strategy::Interval(i) => prev(floor_to(first_non_overlapping - 1, i)),
            }
        }
    }

    fn round_unit(&self, u: CalendarUnit, x: i64) -> i64 {
        if self.zone.is_fixed() {
            let o = self.zone.offset_at(x);
            return u.floor(x.saturating_add(o)).saturating_sub(o);
        }
        let span = self.span_at(x);
        let strategy = if u.rounds_to_midnight() { Strategy::ToMidnight } else { Strategy::NotToMidnight(u) };
        self.local_to_utc(span, u.floor(x.saturating_add(span.offset())), strategy, 0)
    }

    /// `JavaTimeToMidnightRounding.nextRoundingValue`: the first instant of the local day one
    /// unit after the local midnight `x` rounds down to.
    fn next_midnight_key(&self, u: CalendarUnit, x: i64) -> i64 {
        let local = x.saturating_add(self.zone.offset_at(x));
        let next = u.next_midnight(u.floor(local));
        match self.zone.local_offsets(next) {
            LocalOffsets::Unique(o) => next.saturating_sub(o),
            // The earlier of the two midnights.
            LocalOffsets::Overlap(t) => next.saturating_sub(t.before),
            // No midnight that day: the day starts at the transition.
            LocalOffsets::Gap(t) => t.at,
        }
    }

    fn round_interval(&self, i: i64, x: i64) -> i64 {
        if self.zone.is_fixed() {
            let o = self.zone.offset_at(x);
            return floor_to(x.saturating_add(o), i).saturating_sub(o);
        }
        let span = self.span_at(x);
        self.local_to_utc(span, floor_to(x.saturating_add(span.offset()), i), Strategy::Interval(i), 0)
    }

    /// `TimeIntervalRounding.JavaTimeRounding.round`.
    fn java_round_interval(&self, i: i64, x: i64, depth: u32) -> i64 {
        let zone = &self.zone;
        let rounded = floor_to(x.saturating_add(zone.offset_at(x)), i);
        let offsets = match zone.local_offsets(rounded) {
            LocalOffsets::Unique(o) => [Some(o), None],
            LocalOffsets::Overlap(t) => [Some(t.before), Some(t.after)],
            // Inside a gap: the gap's start.
            LocalOffsets::Gap(t) => return t.at,
        };
        let previous = zone.transition_at_or_before(x);
        for o in offsets.iter().rev().flatten() {
            let instant = rounded.saturating_sub(*o);
            if let Some(p) = previous {
                if instant < p.at && depth < MAX_DEPTH {
                    // Rounding down across the transition: round the transition's eve instead.
                    return self.java_round_interval(i, p.at.saturating_sub(1), depth + 1);
                }
            }
            if x >= instant {
                return instant;
            }
        }
        rounded.saturating_sub(offsets[0].unwrap_or(0))
    }

    /// `TimeIntervalRounding.JavaTimeRounding.nextRoundingValue`: a search for the smallest
    /// key above `x`'s, stepping by the interval and halving back when it overshoots.
    fn next_interval_key(&self, i: i64, x: i64) -> i64 {
        let round = |v: i64| self.java_round_interval(i, v, 0);
        let prev = round(x);
        let mut increment = i;
        let mut from = prev;
        for _ in 1..100 {
            from = from.saturating_add(increment);
            let rounded = round(from);
            if rounded <= prev {
                if increment < 0 {
                    increment = -increment / 2;
                }
                continue;
            }
            if round(rounded.saturating_sub(1)) > prev {
                if increment > 0 {
                    increment = -increment / 2;
                }
                continue;
            }
            return rounded;
        }
        round(from)
    }
}

#[cfg(test)]
#[path = "rounding_tests.rs"]
mod tests;
