//! Dates as search scripts see them: `doc['date'].value` is OpenSearch's
//! `JodaCompatibleZonedDateTime` in UTC (a `ZonedDateTime` with the Joda getters kept for
//! compatibility). The subset has its getters (`.millis` / `getMillis()`, `getYear()`,
//! `getMonthValue()`, `getDayOfMonth()`, `getHour()`, ... and the Joda names such as
//! `getMonthOfYear()` or `getHourOfDay()`), `toEpochSecond()`, comparisons and `toString()`
//! (`strict_date_time`); the `java.time` arithmetic (`plusDays`, `with...`, enums) is not here.

use super::methods::JavaError;
use super::value::Value;

/// The Java class a date value reports.
pub(crate) const CLASS: &str = "org.opensearch.script.JodaCompatibleZonedDateTime";

const MS_PER_DAY: i64 = 86_400_000;

/// The UTC calendar fields of an instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// Nanosecond of the second.
    pub nano: u32,
    /// 1 (January 1st) ..= 366.
    pub day_of_year: u32,
    /// 1 (Monday) ..= 7 (Sunday), `java.time.DayOfWeek`.
    pub day_of_week: u32,
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// The calendar fields of `millis` (+ `nanos` within the milli) since the epoch, in UTC.
pub(crate) fn civil(millis: i64, nanos: u32) -> Civil {
    let days = millis.div_euclid(MS_PER_DAY);
    let ms_of_day = millis.rem_euclid(MS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    const CUMULATIVE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let leap_extra = u32::from(month > 2 && is_leap(year));
    Civil {
        year,
        month,
        day,
        hour: (ms_of_day / 3_600_000) as u32,
        minute: (ms_of_day / 60_000 % 60) as u32,
        second: (ms_of_day / 1000 % 60) as u32,
        nano: (ms_of_day % 1000) as u32 * 1_000_000 + nanos,
        day_of_year: CUMULATIVE[(month - 1) as usize] + day + leap_extra,
        // 1970-01-01 was a Thursday (4).
        day_of_week: ((days + 3).rem_euclid(7) + 1) as u32,
    }
}

/// `strict_date_time` (`yyyy-MM-dd'T'HH:mm:ss.SSSZ`), as the value's `toString()` prints it;
/// sub-millisecond digits are added when present.
pub(crate) fn to_string(millis: i64, nanos: u32) -> String {
    let c = civil(millis, nanos);
    let year = if (0..=9999).contains(&c.year) { format!("{:04}", c.year) } else { format!("{:+}", c.year) };
    let frac = if c.nano % 1_000_000 == 0 {
        format!("{:03}", c.nano / 1_000_000)
    } else if c.nano % 1000 == 0 {
        format!("{:06}", c.nano / 1000)
    } else {
        format!("{:09}", c.nano)
    };
    format!("{year}-{:02}-{:02}T{:02}:{:02}:{:02}.{frac}Z", c.month, c.day, c.hour, c.minute, c.second)
}

/// A getter by its bean name (`year` for `getYear()`); `None`: no such getter.
fn getter(millis: i64, nanos: u32, name: &str) -> Option<Value> {
    let c = civil(millis, nanos);
    let int = |v: i64| Some(Value::Int(v as i32));
    match name {
        "millis" => Some(Value::Long(millis)),
        "year" | "yearOfEra" => int(c.year),
        "monthValue" | "monthOfYear" => int(c.month.into()),
        "dayOfMonth" => int(c.day.into()),
        "dayOfYear" => int(c.day_of_year.into()),
        "dayOfWeek" => int(c.day_of_week.into()),
        "hour" | "hourOfDay" => int(c.hour.into()),
        "minute" | "minuteOfHour" => int(c.minute.into()),
        "second" | "secondOfMinute" => int(c.second.into()),
        "nano" => int(c.nano.into()),
        "millisOfSecond" => int((c.nano / 1_000_000).into()),
        "millisOfDay" => int(millis.rem_euclid(MS_PER_DAY)),
        "secondOfDay" => int(millis.rem_euclid(MS_PER_DAY) / 1000),
        "minuteOfDay" => int(millis.rem_euclid(MS_PER_DAY) / 60_000),
        "yearOfCentury" => int(c.year % 100),
        "centuryOfEra" => int(c.year / 100),
        "era" => int(i64::from(c.year > 0)),
        _ => None,
    }
}

/// `date.name` (a getter read as a field).
pub(crate) fn get_field(millis: i64, nanos: u32, name: &str) -> Result<Value, JavaError> {
    getter(millis, nanos, name)
        .ok_or_else(|| ("illegal_argument_exception", format!("dynamic getter [{CLASS}, {name}] not found")))
}

/// `date.name(args)`.
pub(crate) fn call(millis: i64, nanos: u32, name: &str, args: &[Value]) -> Result<Value, JavaError> {
    let bean = name.strip_prefix("get").filter(|_| args.is_empty()).map(|rest| {
        let mut cs = rest.chars();
        cs.next().map(|f| f.to_ascii_lowercase().to_string() + cs.as_str()).unwrap_or_default()
    });
    if let Some(v) = bean.and_then(|b| getter(millis, nanos, &b)) {
        return Ok(v);
    }
    let other = |v: &Value| match v {
        Value::Date(m, n) => Ok((*m, *n)),
        Value::Null => Err(("null_pointer_exception", format!("Cannot invoke \"{name}\" with a null argument"))),
        other => Err((
            "class_cast_exception",
            format!("Cannot cast {} to java.time.chrono.ChronoZonedDateTime", other.java_class()),
        )),
    };
    match (name, args) {
        ("toEpochSecond", []) => Ok(Value::Long(millis.div_euclid(1000))),
        ("compareTo", [o]) => {
            let o = other(o)?;
            Ok(Value::Int((millis, nanos).cmp(&o) as i32))
        }
        ("isBefore", [o]) => Ok(Value::Bool((millis, nanos) < other(o)?)),
        ("isAfter", [o]) => Ok(Value::Bool((millis, nanos) > other(o)?)),
        ("isEqual", [o]) => Ok(Value::Bool((millis, nanos) == other(o)?)),
        _ => Err(("illegal_argument_exception", format!("dynamic method [{CLASS}, {name}/{}] not found", args.len()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A naive model: walk day by day from 1970.
    fn model(days: i64) -> (i64, u32, u32) {
        let (mut y, mut m, mut d) = (1970i64, 1u32, 1u32);
        let month_len = |y: i64, m: u32| match m {
            2 if is_leap(y) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        for _ in 0..days {
            d += 1;
            if d > month_len(y, m) {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
        (y, m, d)
    }

    #[test]
    fn civil_matches_a_day_walk() {
        for days in (0..80_000).step_by(37) {
            assert_eq!(civil_from_days(days), model(days), "day {days}");
        }
    }

    #[test]
    fn fields_and_string() {
        // 2017-01-01T12:11:12.345Z, a Sunday.
        let ms = 1_483_272_672_345;
        let c = civil(ms, 0);
        assert_eq!((c.year, c.month, c.day, c.hour, c.minute, c.second), (2017, 1, 1, 12, 11, 12));
        assert_eq!((c.day_of_week, c.day_of_year, c.nano), (7, 1, 345_000_000));
        assert_eq!(to_string(ms, 0), "2017-01-01T12:11:12.345Z");
        assert_eq!(to_string(ms, 500), "2017-01-01T12:11:12.345000500Z");
        assert_eq!(to_string(-1, 0), "1969-12-31T23:59:59.999Z");
        assert_eq!(civil(951_782_400_000, 0).day_of_year, 60); // 2000-02-29
        assert!(matches!(call(ms, 0, "getMonthValue", &[]), Ok(Value::Int(1))));
        assert!(matches!(get_field(ms, 0, "millis"), Ok(Value::Long(v)) if v == ms));
        assert!(matches!(call(ms, 0, "getHourOfDay", &[]), Ok(Value::Int(12))));
        assert!(matches!(call(ms, 0, "isBefore", &[Value::Date(ms + 1, 0)]), Ok(Value::Bool(true))));
        assert!(call(ms, 0, "plusDays", &[Value::Int(1)]).unwrap_err().1.contains("plusDays/1"));
    }
}
