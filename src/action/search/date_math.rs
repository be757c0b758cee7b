//! Date math in range queries (`now-1d/d`, `2024-01-01||+1M/d`) with `format` and `time_zone`,
//! rounding as OpenSearch's `JavaDateMathParser`: a rounded lower bound (`gte`) and an exclusive
//! upper bound (`lt`) round down; `gt` and `lte` round up to the last millisecond of the unit.

use crate::engine::schema::date;

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day number.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
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

const DAY: i64 = 86_400_000;

fn days_in_month(y: i64, m: i64) -> i64 {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    days_from_civil(ny, nm, 1) - days_from_civil(y, m, 1)
}

/// Adds `n` months to local millis, clamping the day of month like java.time.
fn add_months(t: i64, n: i64) -> i64 {
    let days = t.div_euclid(DAY);
    let ms = t.rem_euclid(DAY);
    let (y, m, d) = civil_from_days(days);
    let total = y * 12 + (m - 1) + n;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) + 1);
    let nd = d.min(days_in_month(ny, nm));
    days_from_civil(ny, nm, nd) * DAY + ms
}

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

fn add_unit(t: i64, n: i64, unit: char) -> Option<i64> {
    Some(match unit {
        'y' => add_months(t, n.checked_mul(12)?),
        'M' => add_months(t, n),
        'w' => t.checked_add(n.checked_mul(7 * DAY)?)?,
        'd' => t.checked_add(n.checked_mul(DAY)?)?,
        'h' | 'H' => t.checked_add(n.checked_mul(3_600_000)?)?,
        'm' => t.checked_add(n.checked_mul(60_000)?)?,
        's' => t.checked_add(n.checked_mul(1000)?)?,
        _ => return None,
    })
}

/// Parses a `time_zone` (`Z`, `UTC`, `+01:00`, `-0530`, `+5`) into an offset in millis.
pub fn parse_time_zone(tz: &str) -> Result<i64, String> {
    let t = tz.trim();
    if t.eq_ignore_ascii_case("utc") || t == "Z" || t.eq_ignore_ascii_case("gmt") || t == "Etc/UTC" {
        return Ok(0);
    }
    let bad = || format!("Invalid ID for ZoneOffset, invalid format: {tz}");
    let sign = match t.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Err(format!("Unknown time-zone ID: {tz}")),
    };
    let rest: String = t[1..].chars().filter(|c| *c != ':').collect();
    if rest.is_empty() || rest.len() > 4 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (h, m) = match rest.len() {
        1 | 2 => (rest.parse::<i64>().map_err(|_| bad())?, 0),
        3 => (rest[..1].parse::<i64>().map_err(|_| bad())?, rest[1..].parse::<i64>().map_err(|_| bad())?),
        _ => (rest[..2].parse::<i64>().map_err(|_| bad())?, rest[2..].parse::<i64>().map_err(|_| bad())?),
    };
    if h > 18 || m > 59 {
        return Err(bad());
    }
    Ok(sign * (h * 3_600_000 + m * 60_000))
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

/// Evaluates a date-math expression to epoch millis. `round_up` selects the last millisecond of
/// a rounded unit (for `gt` and `lte`). `offset` is the `time_zone` offset in millis, which
/// applies to dates without their own zone and to rounding.
pub fn eval(expr: &str, format: &str, offset: i64, now: i64, round_up: bool) -> Result<i64, String> {
    let (base, math) = if let Some(rest) = expr.strip_prefix("now") {
        (now + offset, rest)
    } else {
        let (d, m) = match expr.find("||") {
            Some(i) => (&expr[..i], &expr[i + 2..]),
            None => (expr, ""),
        };
        let utc = date::parse_date(d, format)?;
        // A zone-less string is wall-clock time in `offset`; an explicit zone or epoch millis is
        // an instant, shifted to the wall clock for the math.
        let instant = has_zone(d) || d.bytes().all(|b| b.is_ascii_digit());
        (if instant { utc + offset } else { utc }, m)
    };
    let mut t = base;
    let b = math.as_bytes();
    let mut i = 0;
    let mut steps = 0;
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
                let f =
                    floor_unit(t, unit).ok_or_else(|| format!("unit [{unit}] not supported for date math [{expr}]"))?;
                t = if round_up { add_unit(f, 1, unit).ok_or("date math overflow")? - 1 } else { f };
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
                t = add_unit(t, n, unit)
                    .ok_or_else(|| format!("unit [{unit}] not supported for date math [{expr}]"))?;
            }
            other => return Err(format!("operator not supported for date math [{other}{}]", &math[i..])),
        }
    }
    Ok(t - offset)
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

    #[test]
    fn rounding_and_arithmetic() {
        let t = eval("2024-03-15T10:20:30Z", F, 0, 0, false).unwrap();
        assert_eq!(eval("2024-03-15T10:20:30Z||/d", F, 0, 0, false).unwrap(), t - (10 * 3600 + 20 * 60 + 30) * 1000);
        assert_eq!(
            eval("2024-03-15T10:20:30Z||/d", F, 0, 0, true).unwrap(),
            t - (10 * 3600 + 20 * 60 + 30) * 1000 + DAY - 1
        );
        assert_eq!(eval("2024-01-31||+1M", F, 0, 0, false).unwrap(), days_from_civil(2024, 2, 29) * DAY);
        assert_eq!(eval("now-1d/d", F, 0, 3 * DAY + 5, false).unwrap(), 2 * DAY);
        assert_eq!(eval("now/M", F, 0, 40 * DAY, false).unwrap(), 31 * DAY);
        assert!(eval("now+1x", F, 0, 0, false).is_err());
        assert!(eval("now/", F, 0, 0, false).is_err());
    }

    #[test]
    fn time_zones() {
        assert_eq!(parse_time_zone("+01:00").unwrap(), 3_600_000);
        assert_eq!(parse_time_zone("-0530").unwrap(), -(5 * 3_600_000 + 30 * 60_000));
        assert!(parse_time_zone("Mars/Base").is_err());
        // Midnight in +01:00 is 23:00 UTC the day before.
        assert_eq!(eval("now/d", F, 3_600_000, 10 * DAY, false).unwrap(), 10 * DAY - 3_600_000);
    }
}
