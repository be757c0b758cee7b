//! Date parsing and printing with OpenSearch's format strings.
//!
//! A format is one or more alternatives joined by `||`; parsing tries them in order, printing uses
//! the first. Each alternative is a built-in name (`strict_date_optional_time`, `epoch_millis`, ...)
//! or a java.time-style pattern (`yyyy-MM-dd HH:mm:ss`, `dd/MMM/yyyy:HH:mm:ss Z`, optional sections
//! in `[...]`, literals in `'...'`). Time zones are `Z` and numeric offsets (`+01:00`, `+0100`,
//! `+01`); named zones other than `UTC`/`GMT` are not supported (no tz database in the engine).
//!
//! Limits: `date` holds epoch milliseconds in an `i64`; `date_nanos` holds epoch nanoseconds in
//! an `i64`, so only 1970-01-01T00:00:00Z ..= 2262-04-11T23:47:16.854775807Z (as OpenSearch).

/// OpenSearch's default `format` of `date` fields.
pub const DEFAULT_FORMAT: &str = "strict_date_optional_time||epoch_millis";
/// OpenSearch's default `format` of `date_nanos` fields (prints up to nine fraction digits).
pub const DEFAULT_NANOS_FORMAT: &str = "strict_date_optional_time_nanos||epoch_millis";

const NANOS_PER_SEC: i64 = 1_000_000_000;

mod civil;
mod pattern;

#[cfg(test)]
mod fast_tests;

use civil::civil_from_days;
use pattern::{compile_pattern, parse_toks, print_toks, resolve, Fields, Tok};

/// Parses `s` with `format` into epoch milliseconds (fractions below a millisecond are dropped,
/// rounding toward negative infinity as java.time does).
pub fn parse_date(s: &str, format: &str) -> Result<i64, String> {
    let (secs, nanos) = parse_instant(s, format)?;
    secs.checked_mul(1000).and_then(|ms| ms.checked_add(i64::from(nanos) / 1_000_000)).ok_or_else(|| failed(s, format))
}

/// Parses `s` with `format` into epoch nanoseconds (`date_nanos`).
pub fn parse_date_nanos(s: &str, format: &str) -> Result<i64, String> {
    let (secs, nanos) = parse_instant(s, format)?;
    if secs < 0 {
        return Err(format!(
            "date[{}] is before the epoch in 1970 and cannot be stored in nanosecond resolution",
            print_iso(secs, nanos)
        ));
    }
    secs.checked_mul(NANOS_PER_SEC).and_then(|n| n.checked_add(i64::from(nanos))).ok_or_else(|| {
        format!(
            "date[{}] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution",
            print_iso(secs, nanos)
        )
    })
}

/// Prints epoch milliseconds with the first alternative of `format`.
pub fn format_date(millis: i64, format: &str) -> String {
    let secs = millis.div_euclid(1000);
    let nanos = (millis.rem_euclid(1000) * 1_000_000) as u32; // < 1e9: fits
    print_instant(secs, nanos, format)
}

/// Prints epoch milliseconds in a zone `offset_millis` from UTC at that instant (the date
/// histograms' `key_as_string` with a `time_zone`): civil fields are local, offsets print as
/// `+01:00` (`Z` only for 0).
pub fn format_date_at_offset(millis: i64, format: &str, offset_millis: i64) -> String {
    let secs = millis.div_euclid(1000);
    let nanos = (millis.rem_euclid(1000) * 1_000_000) as u32;
    let first = match format.split("||").next().unwrap_or(format) {
        "iso8601" => "strict_date_optional_time",
        f => f,
    };
    let nanos = if matches!(first, "strict_date_optional_time" | "date_optional_time") {
        nanos - nanos % 1_000_000
    } else {
        nanos
    };
    match compiled(first) {
        Ok(p) => p.print_at(secs, nanos, offset_millis.div_euclid(1000)),
        Err(_) => print_iso(secs, nanos),
    }
}

/// Prints epoch nanoseconds with the first alternative of `format`.
pub fn format_date_nanos(nanos: i64, format: &str) -> String {
    let secs = nanos.div_euclid(NANOS_PER_SEC);
    let sub = nanos.rem_euclid(NANOS_PER_SEC) as u32; // < 1e9: fits
    print_instant(secs, sub, format)
}

/// Checks that every alternative of `format` is a known name or a valid pattern.
pub fn validate_format(format: &str) -> Result<(), String> {
    for alt in format.split("||") {
        compile(alt).map_err(|e| format!("Invalid format: [{format}]: {e}"))?;
    }
    Ok(())
}

fn failed(s: &str, format: &str) -> String {
    format!("failed to parse date field [{s}] with format [{format}]")
}

/// Parses into (epoch seconds, nanosecond of second).
fn parse_instant(s: &str, format: &str) -> Result<(i64, u32), String> {
    for alt in format.split("||") {
        if let Some(v) = iso_utc_seconds(alt, s) {
            return Ok(v);
        }
        let Ok(parser) = compiled(alt) else { continue };
        // A year outside Java's ±999,999,999 fails that alternative (`yyyy` reads up to ten
        // digits, so `-2160000000` is no date but is epoch millis), as in java.time.
        if let Some(v) = parser.parse(s).filter(|(secs, _)| JAVA_INSTANT_SECS.contains(secs)) {
            return Ok(v);
        }
    }
    Err(failed(s, format))
}

/// Epoch seconds of java.time's years -999,999,999 to 999,999,999.
const JAVA_INSTANT_SECS: std::ops::RangeInclusive<i64> = -31_557_014_167_219_200..=31_556_889_864_403_199;

/// The common shape of ISO dates, `yyyy-MM-ddTHH:mm:ssZ` exactly, under the ISO formats that
/// accept it, read without the pattern machinery (a date per document in most corpora); `None`
/// leaves `s` to the format's parser. Gives what that parser gives (`fast_tests.rs` checks it).
fn iso_utc_seconds(alt: &str, s: &str) -> Option<(i64, u32)> {
    if !matches!(
        alt,
        "strict_date_optional_time"
            | "date_optional_time"
            | "strict_date_optional_time_nanos"
            | "date_optional_time_nanos"
    ) {
        return None;
    }
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z'
    {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        b.get(from..to)?.iter().try_fold(0i64, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0')))
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > civil::days_in_month(y, mo) || h >= 24 || mi >= 60 || sec >= 60 {
        return None;
    }
    Some((civil::days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec, 0))
}

fn print_instant(secs: i64, nanos: u32, format: &str) -> String {
    let first = match format.split("||").next().unwrap_or(format) {
        "iso8601" => "strict_date_optional_time",
        f => f,
    };
    // `date_optional_time` parses up to nine fraction digits but prints milliseconds (its
    // `_nanos` variant prints them all), as OpenSearch's `DateFormatters`.
    let nanos = if matches!(first, "strict_date_optional_time" | "date_optional_time") {
        nanos - nanos % 1_000_000
    } else {
        nanos
    };
    match compiled(first) {
        Ok(p) => p.print(secs, nanos),
        Err(_) => print_iso(secs, nanos),
    }
}

fn print_iso(secs: i64, nanos: u32) -> String {
    match compiled("strict_date_optional_time") {
        Ok(p) => p.print(secs, nanos),
        Err(_) => secs.to_string(),
    }
}

/// Formats compiled on this thread, so parsing a date field per document does not rebuild its
/// parser. Bounded: cleared when it holds [`CACHE_LIMIT`] formats.
const CACHE_LIMIT: usize = 64;

thread_local! {
    static COMPILED: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Parser>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// [`compile`] through the per-thread cache (only successes are cached).
fn compiled(alt: &str) -> Result<std::rc::Rc<Parser>, String> {
    if let Some(p) = COMPILED.with(|c| c.borrow().get(alt).cloned()) {
        return Ok(p);
    }
    let parser = std::rc::Rc::new(compile(alt)?);
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(alt.to_owned(), parser.clone());
    });
    Ok(parser)
}

/// One alternative of a format, ready to parse and print.
enum Parser {
    EpochMillis,
    EpochSecond,
    Pattern(Vec<Tok>),
}

fn compile(alt: &str) -> Result<Parser, String> {
    use Tok::*;
    let iso_date = |strict: bool| -> Vec<Tok> {
        let (a, b) = if strict { (2, 2) } else { (1, 2) };
        vec![Year(4, 10), Opt(vec![Lit("-".into()), Month(a, b), Opt(vec![Lit("-".into()), Day(a, b)])])]
    };
    let full_date = |strict: bool| -> Vec<Tok> {
        let (a, b) = if strict { (2, 2) } else { (1, 2) };
        vec![Year(4, 10), Lit("-".into()), Month(a, b), Lit("-".into()), Day(a, b)]
    };
    let hms = |strict: bool| -> Vec<Tok> {
        let (a, b) = if strict { (2, 2) } else { (1, 2) };
        vec![Hour(a, b), Lit(":".into()), Minute(a, b), Lit(":".into()), Second(a, b)]
    };
    // The ISO formats print offsets as `+HH:MM` (java.time's `appendOffset("+HH:MM", "Z")`).
    let zone = || Offset { z: true, colon: true, minutes: true };
    let basic_zone = || Offset { z: true, colon: false, minutes: true };
    // `iso8601` parses lenient ISO dates (it prints as `strict_date_optional_time`).
    let alt = if alt == "iso8601" { "date_optional_time" } else { alt };
    let strict = alt.starts_with("strict_");
    let name = alt.strip_prefix("strict_").unwrap_or(alt);
    let toks = match name {
        "epoch_millis" if !strict => return Ok(Parser::EpochMillis),
        "epoch_second" if !strict => return Ok(Parser::EpochSecond),
        "date_optional_time" | "date_optional_time_nanos" => {
            let (a, b) = if strict { (2, 2) } else { (1, 2) };
            let mut t = iso_date(strict);
            t.push(Opt(vec![
                Lit("T".into()),
                Opt(vec![
                    Hour(a, b),
                    Opt(vec![
                        Lit(":".into()),
                        Minute(a, b),
                        Opt(vec![Lit(":".into()), Second(a, b), Opt(vec![Fraction(1, 9, true)])]),
                    ]),
                ]),
                Opt(vec![zone()]),
            ]));
            t
        }
        "date_time" => {
            [full_date(strict), vec![Lit("T".into())], hms(strict), vec![Fraction(1, 9, true), zone()]].concat()
        }
        "date_time_no_millis" => [full_date(strict), vec![Lit("T".into())], hms(strict), vec![zone()]].concat(),
        "date" | "year_month_day" => full_date(strict),
        "date_hour_minute_second" => [full_date(strict), vec![Lit("T".into())], hms(strict)].concat(),
        "date_hour_minute_second_millis" | "date_hour_minute_second_fraction" => {
            [full_date(strict), vec![Lit("T".into())], hms(strict), vec![Fraction(3, 9, true)]].concat()
        }
        "year_month" => vec![Year(4, 10), Lit("-".into()), Month(2, 2)],
        "year" => vec![Year(4, 10)],
        "basic_date" => vec![Year(4, 4), Month(2, 2), Day(2, 2)],
        "basic_date_time" => vec![
            Year(4, 4),
            Month(2, 2),
            Day(2, 2),
            Lit("T".into()),
            Hour(2, 2),
            Minute(2, 2),
            Second(2, 2),
            Fraction(1, 9, true),
            basic_zone(),
        ],
        "basic_date_time_no_millis" => {
            vec![
                Year(4, 4),
                Month(2, 2),
                Day(2, 2),
                Lit("T".into()),
                Hour(2, 2),
                Minute(2, 2),
                Second(2, 2),
                basic_zone(),
            ]
        }
        _ if strict => return Err(format!("Unknown date format [{alt}]")),
        _ => compile_pattern(alt)?,
    };
    Ok(Parser::Pattern(toks))
}

impl Parser {
    fn parse(&self, s: &str) -> Option<(i64, u32)> {
        match self {
            Parser::EpochMillis => parse_epoch(s, 3),
            Parser::EpochSecond => parse_epoch(s, 0),
            Parser::Pattern(toks) => {
                let mut f = Fields::default();
                let rest = parse_toks(toks, s.as_bytes(), &mut f)?;
                if !rest.is_empty() {
                    return None;
                }
                resolve(&f)
            }
        }
    }

    fn print(&self, secs: i64, nanos: u32) -> String {
        self.print_at(secs, nanos, 0)
    }

    /// Prints in a zone `off` seconds from UTC (epoch formats are zone-free).
    fn print_at(&self, secs: i64, nanos: u32, off: i64) -> String {
        match self {
            Parser::EpochMillis => {
                let ms = i128::from(secs) * 1000 + i128::from(nanos / 1_000_000);
                let sub = nanos % 1_000_000;
                if sub == 0 {
                    ms.to_string()
                } else {
                    let frac = format!("{sub:06}");
                    format!("{ms}.{}", frac.trim_end_matches('0'))
                }
            }
            Parser::EpochSecond => {
                if nanos == 0 {
                    secs.to_string()
                } else {
                    let frac = format!("{nanos:09}");
                    format!("{secs}.{}", frac.trim_end_matches('0'))
                }
            }
            Parser::Pattern(toks) => {
                let mut out = String::new();
                let local = secs.saturating_add(off);
                let days = local.div_euclid(86_400);
                let sod = local.rem_euclid(86_400);
                let (y, m, d) = civil_from_days(days);
                print_toks(toks, &mut out, (y, m, d, days, sod, nanos), off);
                out
            }
        }
    }
}

/// `[-]digits[.fraction]` where the integer part counts units of 10^-`scale` seconds.
fn parse_epoch(s: &str, scale: u32) -> Option<(i64, u32)> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let max_frac = 9 - scale as usize;
    if frac.len() > max_frac {
        return None;
    }
    let units: i128 = int.parse().ok()?;
    let frac_units: i128 = if frac.is_empty() { 0 } else { format!("{frac:0<max_frac$}").parse().ok()? };
    // total in nanoseconds
    let unit_nanos = 10i128.pow(9 - scale);
    let mut total = units.checked_mul(unit_nanos)?.checked_add(frac_units)?;
    if neg {
        total = -total;
    }
    let secs = i64::try_from(total.div_euclid(1_000_000_000)).ok()?;
    let nanos = u32::try_from(total.rem_euclid(1_000_000_000)).ok()?;
    Some((secs, nanos))
}
