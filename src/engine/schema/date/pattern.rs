//! java.time-style patterns: compiling (`yyyy-MM-dd'T'HH:mm[:ss]`), parsing with optional
//! sections (backtracking per section) and printing. Resolution of the parsed fields is strict
//! (no 30 February, hours 0-23) as OpenSearch's `ResolverStyle.STRICT` formatters are.

use super::civil::{days_from_civil, days_in_month, is_leap};

/// A pattern element. Numeric fields carry (min digits, max digits).
#[derive(Clone, Debug)]
pub(super) enum Tok {
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

/// Compiles a java.time-style pattern.
pub(super) fn compile_pattern(p: &str) -> Result<Vec<Tok>, String> {
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
pub(super) struct Fields {
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

pub(super) fn parse_toks<'a>(toks: &[Tok], mut s: &'a [u8], f: &mut Fields) -> Option<&'a [u8]> {
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

pub(super) fn resolve(f: &Fields) -> Option<(i64, u32)> {
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

/// Prints `t` (local civil fields) with `toks`; `off` is the zone offset in seconds the fields
/// are shifted by (printed by the offset tokens; `Z` for 0 where the pattern allows).
pub(super) fn print_toks(toks: &[Tok], out: &mut String, t: (i64, i64, i64, i64, i64, u32), off: i64) {
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
            Tok::Offset { z: true, .. } if off == 0 => out.push('Z'),
            Tok::Offset { colon, minutes, .. } => {
                let sign = if off < 0 { '-' } else { '+' };
                let (h, mi) = (off.abs() / 3600, off.abs() % 3600 / 60);
                out.push(sign);
                pad(out, h, 2);
                if *minutes || mi != 0 {
                    if *colon {
                        out.push(':');
                    }
                    pad(out, mi, 2);
                }
            }
            Tok::ZoneName => out.push_str("UTC"),
            Tok::Lit(l) => out.push_str(l),
            Tok::Opt(inner) => print_toks(inner, out, t, off),
        }
    }
}
