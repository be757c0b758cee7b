//! Date math in range queries (`now-1d/d`, `2024-01-01||+1M/d`) with `format` and `time_zone`,
//! rounding as OpenSearch's `JavaDateMathParser`: a rounded lower bound (`gte`) and an exclusive
//! upper bound (`lt`) round down; `gt` and `lte` round up to the last millisecond of the unit.

use crate::clock::civil::{add_months, civil_from_days, days_from_civil, DAY};
use crate::clock::Zone;
use crate::engine::schema::date;

/// Rounds local millis down to the start of `unit`.
fn floor_unit(t: i64, unit: char) -> Option<i64> {
    let days = t.div_euclid(DAY);
    Some(match unit {
        'y' => {
            let (y, _, _) = civil_from_days(days);
            days_from_civil(y, 1, 1) * DAY
        }
        'M' => {
            let (y, m, _) = civil_from_days(days);
            days_from_civil(y, m, 1) * DAY
        }
        'w' => {
            // ISO weeks start on Monday; 1970-01-01 was a Thursday.
            let dow = (days + 3).rem_euclid(7);
            (days - dow) * DAY
        }
        'd' => days * DAY,
        'h' | 'H' => t.div_euclid(3_600_000) * 3_600_000,
        'm' => t.div_euclid(60_000) * 60_000,
        's' => t.div_euclid(1000) * 1000,
        _ => return None,
    })
}

/// Adds `n` calendar units (years, months, weeks, days) to local millis.
fn add_local(t: i64, n: i64, unit: char) -> Option<i64> {
    Some(match unit {
        'y' => add_months(t, n.checked_mul(12)?),
        'M' => add_months(t, n),
        'w' => t.checked_add(n.checked_mul(7 * DAY)?)?,
        'd' => t.checked_add(n.checked_mul(DAY)?)?,
        _ => return None,
    })
}

/// Millis of a time unit (hours, minutes, seconds), added on the instant time-line.
fn unit_millis(unit: char) -> Option<i64> {
    Some(match unit {
        'h' | 'H' => 3_600_000,
        'm' => 60_000,
        's' => 1000,
        _ => return None,
    })
}

/// A `ZonedDateTime`: local millis with the offset they are at. Calendar steps move the local
/// time and resolve it again preferring the current offset; time steps move the instant.
#[derive(Clone, Copy)]
struct Zoned<'a> {
    zone: &'a Zone,
    local: i64,
    offset: i64,
}

impl<'a> Zoned<'a> {
    fn of_instant(zone: &'a Zone, utc: i64) -> Zoned<'a> {
        let offset = zone.offset_at(utc);
        Zoned { zone, local: utc.saturating_add(offset), offset }
    }

    fn of_local(zone: &'a Zone, local: i64, preferred: Option<i64>) -> Zoned<'a> {
        Zoned::of_instant(zone, zone.local_to_utc_preferring(local, preferred))
    }

    fn utc(&self) -> i64 {
        self.local.saturating_sub(self.offset)
    }

    fn with_local(self, local: i64) -> Zoned<'a> {
        Zoned::of_local(self.zone, local, Some(self.offset))
    }

    fn plus(self, n: i64, unit: char) -> Option<Zoned<'a>> {
        match unit_millis(unit) {
            Some(ms) => Some(Zoned::of_instant(self.zone, self.utc().checked_add(n.checked_mul(ms)?)?)),
            None => Some(self.with_local(add_local(self.local, n, unit)?)),
        }
    }
}

/// Parses a `time_zone` as `ZoneId.of` does (`Z`, `UTC`, `+01:00`, `-0530`, `+5`, `GMT+2`,
/// `America/New_York`); surrounding spaces and the case of `utc`/`gmt` are forgiven.
pub fn parse_time_zone(tz: &str) -> Result<Zone, String> {
    let t = tz.trim();
    if t.eq_ignore_ascii_case("utc") {
        return Zone::parse("UTC");
    }
    if t.eq_ignore_ascii_case("gmt") {
        return Zone::parse("GMT");
    }
    Zone::parse(t).map_err(|e| if t != tz { e.replace(t, tz) } else { e })
}

/// Whether a date string carries its own offset (`Z`, `+01:00` after the time).
fn has_zone(s: &str) -> bool {
    match s.find('T') {
        Some(i) => {
            let time = &s[i..];
            time.ends_with('Z') || time.contains('+') || time.contains('-')
        }
        None => false,
    }
}

/// Evaluates a date-math expression to epoch millis, as `JavaDateMathParser`. `round_up`
/// selects the last millisecond of a rounded unit (for `gt` and `lte`). `zone` (the
/// `time_zone`) applies to dates without their own zone and to the math and rounding.
pub fn eval(expr: &str, format: &str, zone: &Zone, now: i64, round_up: bool) -> Result<i64, String> {
    let (base, math) = if let Some(rest) = expr.strip_prefix("now") {
        (Zoned::of_instant(zone, now), rest)
    } else {
        let (d, m) = match expr.find("||") {
            Some(i) => (&expr[..i], &expr[i + 2..]),
            None => (expr, ""),
        };
        let utc = date::parse_date(d, format)?;
        // A zone-less string is wall-clock time in `zone`; an explicit zone or epoch millis is
        // an instant.
        let instant = has_zone(d) || d.bytes().all(|b| b.is_ascii_digit());
        (if instant { Zoned::of_instant(zone, utc) } else { Zoned::of_local(zone, utc, Some(0)) }, m)
    };
    let mut t = base;
    let b = math.as_bytes();
    let mut i = 0;
    let mut steps = 0;
    let overflow = || format!("date math overflow in [{expr}]");
    while i < b.len() {
        steps += 1;
        if steps > 64 {
            return Err(format!("too many date math operations in [{expr}]"));
        }
        let op = b[i] as char;
        i += 1;
        match op {
            '/' => {
                let unit = *b.get(i).ok_or_else(|| format!("truncated date math [{expr}]"))? as char;
                i += 1;
                let f = floor_unit(t.local, unit)
                    .ok_or_else(|| format!("unit [{unit}] not supported for date math [{expr}]"))?;
                t = t.with_local(f);
                if round_up {
                    let next = t.plus(1, unit).ok_or_else(overflow)?;
                    t = Zoned::of_instant(zone, next.utc().saturating_sub(1));
                }
            }
            '+' | '-' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let n: i64 = if start == i {
                    1
                } else {
                    math[start..i].parse().map_err(|_| format!("bad number in date math [{expr}]"))?
                };
                let unit = *b.get(i).ok_or_else(|| format!("truncated date math [{expr}]"))? as char;
                i += 1;
                let n = if op == '-' { -n } else { n };
                if unit_millis(unit).is_none() && !matches!(unit, 'y' | 'M' | 'w' | 'd') {
                    return Err(format!("unit [{unit}] not supported for date math [{expr}]"));
                }
                t = t.plus(n, unit).ok_or_else(overflow)?;
            }
            other => return Err(format!("operator not supported for date math [{other}{}]", &math[i..])),
        }
    }
    Ok(t.utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: &str = date::DEFAULT_FORMAT;

    #[test]
    fn civil_round_trip() {
        for d in [-800_000i64, -1, 0, 1, 59, 365, 10_957, 19_000, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
    }

    fn fixed(ms: i64) -> Zone {
        Zone::fixed("test", ms)
    }

    #[test]
    fn rounding_and_arithmetic() {
        let z = &fixed(0);
        let t = eval("2024-03-15T10:20:30Z", F, z, 0, false).unwrap();
        assert_eq!(eval("2024-03-15T10:20:30Z||/d", F, z, 0, false).unwrap(), t - (10 * 3600 + 20 * 60 + 30) * 1000);
        assert_eq!(
            eval("2024-03-15T10:20:30Z||/d", F, z, 0, true).unwrap(),
            t - (10 * 3600 + 20 * 60 + 30) * 1000 + DAY - 1
        );
        assert_eq!(eval("2024-01-31||+1M", F, z, 0, false).unwrap(), days_from_civil(2024, 2, 29) * DAY);
        assert_eq!(eval("now-1d/d", F, z, 3 * DAY + 5, false).unwrap(), 2 * DAY);
        assert_eq!(eval("now/M", F, z, 40 * DAY, false).unwrap(), 31 * DAY);
        assert!(eval("now+1x", F, z, 0, false).is_err());
        assert!(eval("now/", F, z, 0, false).is_err());
        assert!(eval("now+9223372036854775807d", F, z, 0, false).is_err());
    }

    #[test]
    fn time_zones() {
        assert_eq!(parse_time_zone("+01:00").unwrap().offset_at(0), 3_600_000);
        assert_eq!(parse_time_zone("-0530").unwrap().offset_at(0), -(5 * 3_600_000 + 30 * 60_000));
        assert_eq!(parse_time_zone(" utc ").unwrap().offset_at(0), 0);
        assert_eq!(parse_time_zone("Mars/Base").unwrap_err(), "Unknown time-zone ID: Mars/Base");
        // Midnight in +01:00 is 23:00 UTC the day before.
        assert_eq!(eval("now/d", F, &fixed(3_600_000), 10 * DAY, false).unwrap(), 10 * DAY - 3_600_000);
    }

    #[test]
    fn named_zones_follow_zoned_date_time() {
        const H: i64 = 3_600_000;
        let ny = &parse_time_zone("America/New_York").unwrap();
        let day = days_from_civil(2024, 3, 10) * DAY;
        // On the spring-forward day midnight is still EST; the next midnight is EDT.
        assert_eq!(eval("now/d", F, ny, day + 12 * H, false).unwrap(), day + 5 * H);
        assert_eq!(eval("now/d", F, ny, day + 12 * H, true).unwrap(), day + DAY + 4 * H - 1);
        // A zone-less date is wall-clock time; 01:30 on the fall-back day takes the earlier offset.
        let fall = days_from_civil(2024, 11, 3) * DAY;
        assert_eq!(eval("2024-11-03T01:30:00", F, ny, 0, false).unwrap(), fall + H + H / 2 + 4 * H);
        assert_eq!(eval("2024-11-03T01:30:00||+1h", F, ny, 0, false).unwrap(), fall + H + H / 2 + 5 * H);
        // A day added into the gap moves forward by the gap: 02:30 EST + 1d is 03:30 EDT.
        assert_eq!(eval("2024-03-09T02:30:00||+1d", F, ny, 0, false).unwrap(), day + 7 * H + H / 2);
        // An explicit offset is an instant; the math still runs in the zone.
        assert_eq!(eval("2024-03-10T12:00:00Z||/d", F, ny, 0, false).unwrap(), day + 5 * H);
    }
}
