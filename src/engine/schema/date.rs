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

/// OpenSearch's default `format` of `date` and `date_nanos` fields.
pub const DEFAULT_FORMAT: &str = "strict_date_optional_time||epoch_millis";

const NANOS_PER_SEC: i64 = 1_000_000_000;

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
        let Ok(parser) = compile(alt) else { continue };
        if let Some(v) = parser.parse(s) {
            return Ok(v);
        }
    }
    Err(failed(s, format))
}

fn print_instant(secs: i64, nanos: u32, format: &str) -> String {
    let first = format.split("||").next().unwrap_or(format);
    match compile(first) {
        Ok(p) => p.print(secs, nanos),
        Err(_) => print_iso(secs, nanos),
    }
}

fn print_iso(secs: i64, nanos: u32) -> String {
    match compile("strict_date_optional_time") {
        Ok(p) => p.print(secs, nanos),
        Err(_) => secs.to_string(),
    }
}

/// One alternative of a format, ready to parse and print.
enum Parser {
    EpochMillis,
    EpochSecond,
    Pattern(Vec<Tok>),
}

/// A pattern element. Numeric fields carry (min digits, max digits).
#[derive(Clone, Debug)]
enum Tok {
    Year(usize, usize),
    TwoDigitYear,
    Month(usize, usize),
    MonthText(bool),
    Day(usize, usize),
    DayOfYear(usize, usize),
    DayOfWeekText(bool),
    Hour(usize, usize),
    Hour12(usize, usize),
    AmPm,
    Minute(usize, usize),
    Second(usize, usize),
    /// Fraction of a second: (min digits, max digits, decimal point included).
    Fraction(usize, usize, bool),
    /// Offset: `Z` allowed for zero, and whether a colon separates hours and minutes when printing.
    Offset {
        z: bool,
        colon: bool,
        minutes: bool,
    },
    ZoneName,
    Lit(String),
    Opt(Vec<Tok>),
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
    let zone = || Offset { z: true, colon: false, minutes: true };
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
            zone(),
        ],
        "basic_date_time_no_millis" => {
            vec![Year(4, 4), Month(2, 2), Day(2, 2), Lit("T".into()), Hour(2, 2), Minute(2, 2), Second(2, 2), zone()]
        }
        _ if strict => return Err(format!("Unknown date format [{alt}]")),
        _ => compile_pattern(alt)?,
    };
    Ok(Parser::Pattern(toks))
}

/// Compiles a java.time-style pattern.
fn compile_pattern(p: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut stack: Vec<Vec<Tok>> = vec![Vec::new()];
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mut n = 1;
        while i + n < chars.len() && chars[i + n] == c && c.is_ascii_alphabetic() {
            n += 1;
        }
        let tok = match c {
            'y' | 'u' | 'Y' => Some(if n == 2 { Tok::TwoDigitYear } else { Tok::Year(n, 10.max(n)) }),
            'M' | 'L' => Some(match n {
                1 => Tok::Month(1, 2),
                2 => Tok::Month(2, 2),
                3 => Tok::MonthText(false),
                _ => Tok::MonthText(true),
            }),
            'd' => Some(if n == 1 { Tok::Day(1, 2) } else { Tok::Day(n, n) }),
            'D' => Some(if n == 1 { Tok::DayOfYear(1, 3) } else { Tok::DayOfYear(n, 3.max(n)) }),
            'E' => Some(Tok::DayOfWeekText(n >= 4)),
            'H' => Some(if n == 1 { Tok::Hour(1, 2) } else { Tok::Hour(n, n) }),
            'h' => Some(if n == 1 { Tok::Hour12(1, 2) } else { Tok::Hour12(n, n) }),
            'a' => Some(Tok::AmPm),
            'm' => Some(if n == 1 { Tok::Minute(1, 2) } else { Tok::Minute(n, n) }),
            's' => Some(if n == 1 { Tok::Second(1, 2) } else { Tok::Second(n, n) }),
            'S' => Some(Tok::Fraction(n.min(9), n.min(9), false)),
            'Z' => Some(match n {
                1..=3 => Tok::Offset { z: false, colon: false, minutes: true },
                _ => Tok::Offset { z: true, colon: true, minutes: true },
            }),
            'X' => Some(Tok::Offset { z: true, colon: n >= 3, minutes: n >= 2 }),
            'x' => Some(Tok::Offset { z: false, colon: n >= 3, minutes: n >= 2 }),
            'z' | 'V' => Some(Tok::ZoneName),
            '\'' => {
                // Quoted literal; '' is a single quote.
                let mut lit = String::new();
                let mut j = i + 1;
                if j < chars.len() && chars[j] == '\'' {
                    lit.push('\'');
                    j += 1;
                } else {
                    loop {
                        match chars.get(j) {
                            None => return Err(format!("Pattern ends with an incomplete string literal: {p}")),
                            Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                                lit.push('\'');
                                j += 2;
                            }
                            Some('\'') => {
                                j += 1;
                                break;
                            }
                            Some(&ch) => {
                                lit.push(ch);
                                j += 1;
                            }
                        }
                    }
                }
                push_tok(&mut stack, Tok::Lit(lit));
                i = j;
                continue;
            }
            '[' => {
                stack.push(Vec::new());
                i += 1;
                continue;
            }
            ']' => {
                if stack.len() < 2 {
                    return Err(format!("Pattern invalid as it contains ] without previous [: {p}"));
                }
                let inner = stack.pop().expect("stack has at least two levels: checked above");
                push_tok(&mut stack, Tok::Opt(inner));
                i += 1;
                continue;
            }
            c if c.is_ascii_alphabetic() => return Err(format!("Unknown pattern letter: {c}")),
            c => {
                push_tok(&mut stack, Tok::Lit(c.to_string()));
                i += 1;
                continue;
            }
        };
        if let Some(t) = tok {
            push_tok(&mut stack, t);
        }
        i += n;
    }
    while stack.len() > 1 {
        let inner = stack.pop().expect("len > 1");
        push_tok(&mut stack, Tok::Opt(inner));
    }
    Ok(stack.pop().unwrap_or_default())
}

fn push_tok(stack: &mut [Vec<Tok>], t: Tok) {
    if let Some(top) = stack.last_mut() {
        top.push(t);
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// Fields collected while parsing.
#[derive(Clone, Copy, Default)]
struct Fields {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    day_of_year: Option<i64>,
    hour: Option<i64>,
    hour12: Option<i64>,
    pm: Option<bool>,
    minute: i64,
    second: i64,
    nano: i64,
    offset_secs: i64,
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
                let days = secs.div_euclid(86_400);
                let sod = secs.rem_euclid(86_400);
                let (y, m, d) = civil_from_days(days);
                print_toks(toks, &mut out, (y, m, d, days, sod, nanos));
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

fn take_digits(s: &[u8], min: usize, max: usize) -> Option<(i64, &[u8])> {
    let n = s.iter().take(max).take_while(|b| b.is_ascii_digit()).count();
    if n < min || n > 18 {
        return None;
    }
    let v = std::str::from_utf8(s.get(..n)?).ok()?.parse().ok()?;
    Some((v, s.get(n..)?))
}

fn take_text<'a>(s: &'a [u8], names: &[&str], full: bool) -> Option<(i64, &'a [u8])> {
    for (i, name) in names.iter().enumerate() {
        let n = if full { name.as_bytes() } else { name.as_bytes().get(..3)? };
        if s.len() >= n.len() && s.get(..n.len())?.eq_ignore_ascii_case(n) {
            return Some((i as i64 + 1, s.get(n.len()..)?));
        }
    }
    None
}

fn parse_toks<'a>(toks: &[Tok], mut s: &'a [u8], f: &mut Fields) -> Option<&'a [u8]> {
    for t in toks {
        s = match t {
            Tok::Year(min, max) => {
                let (sign, rest) = match s.first() {
                    Some(b'-') => (Some(true), s.get(1..)?),
                    Some(b'+') => (Some(false), s.get(1..)?),
                    _ => (None, s),
                };
                let (v, after) = take_digits(rest, *min, *max)?;
                // java.time's EXCEEDS_PAD in strict parsing: '+' only and always when the year
                // has more digits than the minimum width; '-' always allowed.
                let len = rest.len() - after.len();
                match sign {
                    Some(false) if len <= *min || *min < 4 => return None,
                    None if len > *min && *min >= 4 => return None,
                    _ => {}
                }
                let neg = sign == Some(true);
                let rest = after;
                f.year = Some(if neg { -v } else { v });
                rest
            }
            Tok::TwoDigitYear => {
                let (v, rest) = take_digits(s, 2, 2)?;
                f.year = Some(2000 + v);
                rest
            }
            Tok::Month(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.month = Some(v);
                rest
            }
            Tok::MonthText(full) => {
                let (v, rest) = take_text(s, &MONTHS, *full)?;
                f.month = Some(v);
                rest
            }
            Tok::Day(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.day = Some(v);
                rest
            }
            Tok::DayOfYear(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.day_of_year = Some(v);
                rest
            }
            Tok::DayOfWeekText(full) => take_text(s, &DAYS, *full)?.1,
            Tok::Hour(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.hour = Some(v);
                rest
            }
            Tok::Hour12(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.hour12 = Some(v);
                rest
            }
            Tok::AmPm => {
                let (v, rest) = take_text(s, &["AM", "PM"], true)?;
                f.pm = Some(v == 2);
                rest
            }
            Tok::Minute(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.minute = v;
                rest
            }
            Tok::Second(a, b) => {
                let (v, rest) = take_digits(s, *a, *b)?;
                f.second = v;
                rest
            }
            Tok::Fraction(min, max, point) => {
                let rest = if *point {
                    match s.first() {
                        Some(b'.') | Some(b',') => s.get(1..)?,
                        _ => return None,
                    }
                } else {
                    s
                };
                let n = rest.iter().take(*max).take_while(|b| b.is_ascii_digit()).count();
                if n < *min {
                    return None;
                }
                let digits = std::str::from_utf8(rest.get(..n)?).ok()?;
                f.nano = format!("{digits:0<9}").parse().ok()?;
                rest.get(n..)?
            }
            Tok::Offset { z, .. } => {
                let (v, rest) = parse_offset(s, *z)?;
                f.offset_secs = v;
                rest
            }
            Tok::ZoneName => {
                if let Some((v, rest)) = parse_offset(s, true) {
                    f.offset_secs = v;
                    rest
                } else if s.starts_with(b"UTC") || s.starts_with(b"GMT") {
                    s.get(3..)?
                } else {
                    return None;
                }
            }
            Tok::Lit(l) => s.strip_prefix(l.as_bytes())?,
            Tok::Opt(inner) => {
                let mut trial = *f;
                match parse_toks(inner, s, &mut trial) {
                    Some(rest) => {
                        *f = trial;
                        rest
                    }
                    None => s,
                }
            }
        };
    }
    Some(s)
}

/// `Z` (if allowed) or `±HH`, `±HHmm`, `±HH:mm`, `±HH:mm:ss`.
fn parse_offset(s: &[u8], z: bool) -> Option<(i64, &[u8])> {
    if z && s.first() == Some(&b'Z') {
        return Some((0, s.get(1..)?));
    }
    let sign = match s.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, mut rest) = take_digits(s.get(1..)?, 2, 2)?;
    let mut m = 0;
    let mut sec = 0;
    let colon = rest.first() == Some(&b':');
    let after = if colon { rest.get(1..)? } else { rest };
    if let Some((mm, r)) = take_digits(after, 2, 2) {
        m = mm;
        rest = r;
        if colon && rest.first() == Some(&b':') {
            if let Some((ss, r)) = take_digits(rest.get(1..)?, 2, 2) {
                sec = ss;
                rest = r;
            }
        }
    }
    if h > 18 || m > 59 || sec > 59 {
        return None;
    }
    Some((sign * (h * 3600 + m * 60 + sec), rest))
}

fn resolve(f: &Fields) -> Option<(i64, u32)> {
    let year = f.year.unwrap_or(1970);
    let hour = match (f.hour, f.hour12, f.pm) {
        (Some(h), _, _) => h,
        (None, Some(h), pm) if (1..=12).contains(&h) => h % 12 + if pm == Some(true) { 12 } else { 0 },
        (None, Some(_), _) => return None,
        (None, None, _) => 0,
    };
    if !(0..24).contains(&hour) || !(0..60).contains(&f.minute) || !(0..60).contains(&f.second) {
        return None;
    }
    let days = if let Some(doy) = f.day_of_year {
        let len = if is_leap(year) { 366 } else { 365 };
        if !(1..=len).contains(&doy) {
            return None;
        }
        days_from_civil(year, 1, 1) + doy - 1
    } else {
        let month = f.month.unwrap_or(1);
        let day = f.day.unwrap_or(1);
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        days_from_civil(year, month, day)
    };
    let secs =
        days.checked_mul(86_400)?.checked_add(hour * 3600 + f.minute * 60 + f.second)?.checked_sub(f.offset_secs)?;
    Some((secs, u32::try_from(f.nano).ok()?))
}

fn print_toks(toks: &[Tok], out: &mut String, t: (i64, i64, i64, i64, i64, u32)) {
    let (y, m, d, days, sod, nanos) = t;
    let pad = |out: &mut String, v: i64, w: usize| out.push_str(&format!("{v:0w$}"));
    for tok in toks {
        match tok {
            Tok::Year(min, _) => {
                if y > 9999 && *min >= 4 {
                    out.push('+');
                }
                if y < 0 {
                    out.push('-');
                }
                pad(out, y.abs(), *min);
            }
            Tok::TwoDigitYear => pad(out, y.rem_euclid(100), 2),
            Tok::Month(a, _) => pad(out, m, *a),
            Tok::MonthText(full) => {
                let name = MONTHS.get((m - 1) as usize).copied().unwrap_or("");
                out.push_str(if *full { name } else { name.get(..3).unwrap_or(name) });
            }
            Tok::Day(a, _) => pad(out, d, *a),
            Tok::DayOfYear(a, _) => pad(out, days - days_from_civil(y, 1, 1) + 1, *a),
            Tok::DayOfWeekText(full) => {
                // 1970-01-01 was a Thursday (index 3).
                let name = DAYS.get((days + 3).rem_euclid(7) as usize).copied().unwrap_or("");
                out.push_str(if *full { name } else { name.get(..3).unwrap_or(name) });
            }
            Tok::Hour(a, _) => pad(out, sod / 3600, *a),
            Tok::Hour12(a, _) => pad(out, (sod / 3600 + 11) % 12 + 1, *a),
            Tok::AmPm => out.push_str(if sod / 3600 >= 12 { "PM" } else { "AM" }),
            Tok::Minute(a, _) => pad(out, sod / 60 % 60, *a),
            Tok::Second(a, _) => pad(out, sod % 60, *a),
            Tok::Fraction(min, max, point) => {
                if *point {
                    out.push('.');
                }
                let all = format!("{nanos:09}");
                let mut digits = all.get(..*max).unwrap_or(&all).to_string();
                if *point {
                    // ISO printing: at least 3 digits, trailing zeros beyond them trimmed.
                    while digits.len() > (*min).max(3) && digits.ends_with('0') {
                        digits.pop();
                    }
                }
                out.push_str(&digits);
            }
            Tok::Offset { z: true, .. } => out.push('Z'),
            Tok::Offset { colon, minutes, .. } => out.push_str(match (colon, minutes) {
                (_, false) => "+00",
                (false, true) => "+0000",
                (true, true) => "+00:00",
            }),
            Tok::ZoneName => out.push_str("UTC"),
            Tok::Lit(l) => out.push_str(l),
            Tok::Opt(inner) => print_toks(inner, out, t),
        }
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
