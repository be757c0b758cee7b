//! POSIX TZ strings (`EST5EDT,M3.2.0,M11.1.0`), the rules a TZif footer gives for instants after
//! the file's last transition, with RFC 8536's extensions (`<+0330>` quoted names, rule times
//! from -167 to 167 hours). java.time's "last rules" play the same part.

use super::civil::{day_of_week, days_from_civil, days_in_month, is_leap, DAY};

/// One transition: at `at` (UTC millis) the offset changes from `before` to `after` (millis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub at: i64,
    pub before: i64,
    pub after: i64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Date {
    /// `Jn`: day 1..=365, February 29 never counted.
    Julian1(i64),
    /// `n`: day 0..=365, February 29 counted.
    Julian0(i64),
    /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
    Month(i64, i64, i64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Rule {
    date: Date,
    /// Local time of day in seconds (may be negative or past 24h).
    time: i64,
}

/// A parsed TZ string: the standard offset, and daylight time with its rules if any.
#[derive(Debug, Clone, PartialEq)]
pub struct PosixTz {
    /// UT offset of standard time in millis (east positive, the reverse of the string's sign).
    pub std: i64,
    dst: Option<(i64, Rule, Rule)>,
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn name(&mut self) -> Result<(), String> {
        if self.peek() == Some(b'<') {
            let end = self.s[self.i..].iter().position(|c| *c == b'>').ok_or("unterminated zone name")?;
            self.i += end + 1;
            return Ok(());
        }
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        if self.i - start < 3 {
            return Err("zone name too short".into());
        }
        Ok(())
    }

    fn num(&mut self, max: i64) -> Result<i64, String> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) && self.i - start < 4 {
            self.i += 1;
        }
        let n: i64 =
            std::str::from_utf8(&self.s[start..self.i]).ok().and_then(|x| x.parse().ok()).ok_or("number expected")?;
        if n > max {
            return Err(format!("number [{n}] out of range"));
        }
        Ok(n)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    fn hms(&mut self, max_hours: i64) -> Result<i64, String> {
        let sign = match self.peek() {
            Some(b'-') => {
                self.i += 1;
                -1
            }
            Some(b'+') => {
                self.i += 1;
                1
            }
            _ => 1,
        };
        let mut secs = self.num(max_hours)? * 3600;
        for mult in [60, 1] {
            if self.peek() != Some(b':') {
                break;
            }
            self.i += 1;
            secs += self.num(59)? * mult;
        }
        Ok(sign * secs)
    }

    fn rule(&mut self) -> Result<Rule, String> {
        let date = match self.peek() {
            Some(b'J') => {
                self.i += 1;
                let n = self.num(365)?;
                if n == 0 {
                    return Err("julian day 0".into());
                }
                Date::Julian1(n)
            }
            Some(b'M') => {
                self.i += 1;
                let m = self.num(12)?;
                self.expect(b'.')?;
                let w = self.num(5)?;
                self.expect(b'.')?;
                let d = self.num(6)?;
                if m == 0 || w == 0 {
                    return Err("month and week count from 1".into());
                }
                Date::Month(m, w, d)
            }
            _ => Date::Julian0(self.num(365)?),
        };
        let time = if self.peek() == Some(b'/') {
            self.i += 1;
            self.hms(167)?
        } else {
            7200
        };
        Ok(Rule { date, time })
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() != Some(c) {
            return Err(format!("expected [{}]", c as char));
        }
        self.i += 1;
        Ok(())
    }
}

impl Rule {
    /// Local millis at which the rule fires in year `y`.
    fn local(&self, y: i64) -> i64 {
        let day = match self.date {
            Date::Julian1(n) => {
                let n = if is_leap(y) && n >= 60 { n } else { n - 1 };
                days_from_civil(y, 1, 1) + n
            }
            Date::Julian0(n) => days_from_civil(y, 1, 1) + n,
            Date::Month(m, w, d) => {
                let first = days_from_civil(y, m, 1);
                // day_of_week: Monday 1 .. Sunday 7; the rule's d: Sunday 0 .. Saturday 6.
                let first_dow = day_of_week(first) % 7;
                let mut day = first + (d - first_dow).rem_euclid(7) + (w - 1) * 7;
                let last = first + days_in_month(y, m) - 1;
                while day > last {
                    day -= 7;
                }
                day
            }
        };
        day.saturating_mul(DAY).saturating_add(self.time * 1000)
    }
}

impl PosixTz {
    pub fn parse(s: &str) -> Result<PosixTz, String> {
        let bad = |e: String| format!("invalid TZ string [{s}]: {e}");
        let mut p = P { s: s.as_bytes(), i: 0 };
        p.name().map_err(bad)?;
        let std = -p.hms(24).map_err(bad)? * 1000;
        if p.peek().is_none() {
            return Ok(PosixTz { std, dst: None });
        }
        p.name().map_err(bad)?;
        let dst = match p.peek() {
            Some(b',') | None => std + 3_600_000,
            _ => -p.hms(24).map_err(bad)? * 1000,
        };
        let (start, end) = if p.peek().is_none() {
            // POSIX leaves the default rules to the implementation; the tz code uses the US ones.
            (Rule { date: Date::Month(3, 2, 0), time: 7200 }, Rule { date: Date::Month(11, 1, 0), time: 7200 })
        } else {
            p.expect(b',').map_err(bad)?;
            let a = p.rule().map_err(bad)?;
            p.expect(b',').map_err(bad)?;
            let b = p.rule().map_err(bad)?;
            (a, b)
        };
        if p.peek().is_some() {
            return Err(bad("trailing characters".into()));
        }
        Ok(PosixTz { std, dst: Some((dst, start, end)) })
    }

    /// Whether the string has no daylight time.
    pub fn is_fixed(&self) -> bool {
        self.dst.is_none()
    }

    /// The transitions of local year `y` in time order (none without daylight time, and none
    /// when the rules keep daylight time all year).
    pub fn transitions(&self, y: i64) -> Option<[Transition; 2]> {
        let (dst, start, end) = self.dst?;
        let on = Transition { at: start.local(y).saturating_sub(self.std), before: self.std, after: dst };
        let off = Transition { at: end.local(y).saturating_sub(dst), before: dst, after: self.std };
        // Daylight time all year (`0/0,J365/25`): the year's end rule fires at the next start.
        if off.at >= start.local(y + 1).saturating_sub(self.std) {
            return None;
        }
        Some(if on.at <= off.at { [on, off] } else { [off, on] })
    }

    /// The offset in effect all year when daylight time never ends, if it is so.
    pub fn permanent_dst(&self) -> Option<i64> {
        let (dst, start, end) = self.dst?;
        (end.local(2000) - dst >= start.local(2001) - self.std).then_some(dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::civil::midnight;

    #[test]
    fn us_and_eu_rules() {
        let ny = PosixTz::parse("EST5EDT,M3.2.0,M11.1.0").unwrap();
        assert_eq!(ny.std, -5 * 3_600_000);
        let [a, b] = ny.transitions(2040).unwrap();
        // 2040-03-11 02:00 EST = 07:00 UTC; 2040-11-04 02:00 EDT = 06:00 UTC.
        assert_eq!(
            a,
            Transition { at: midnight(2040, 3, 11) + 7 * 3_600_000, before: -18_000_000, after: -14_400_000 }
        );
        assert_eq!(b.at, midnight(2040, 11, 4) + 6 * 3_600_000);
        let paris = PosixTz::parse("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        let [a, b] = paris.transitions(2040).unwrap();
        // Last Sundays: 2040-03-25 and 2040-10-28, both at 01:00 UTC.
        assert_eq!(a.at, midnight(2040, 3, 25) + 3_600_000);
        assert_eq!(b.at, midnight(2040, 10, 28) + 3_600_000);
    }

    #[test]
    fn southern_quoted_and_odd_forms() {
        let lh = PosixTz::parse("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0").unwrap();
        assert_eq!(lh.std, 37_800_000);
        let [a, b] = lh.transitions(2040).unwrap();
        assert_eq!((a.before, a.after), (39_600_000, 37_800_000));
        assert!(a.at < b.at);
        let dublin = PosixTz::parse("IST-1GMT0,M10.5.0,M3.5.0/1").unwrap();
        assert_eq!(dublin.std, 3_600_000);
        assert!(PosixTz::parse("<-02>2<-01>,M3.5.0/-1,M10.5.0/0").is_ok());
        assert!(PosixTz::parse("EET-2EEST,M3.4.4/50,M10.4.4/50").is_ok());
        assert!(PosixTz::parse("<+00>0").unwrap().is_fixed());
        let perm = PosixTz::parse("EST5EDT4,0/0,J365/25").unwrap();
        assert_eq!(perm.permanent_dst(), Some(-4 * 3_600_000));
        assert!(perm.transitions(2040).is_none());
        for bad in ["", "E5", "EST", "EST5EDT,M13.1.0,M1.1.0", "EST5EDT,M3.2.0", "<EST5", "EST5EDT,J0,J5", "EST99"] {
            assert!(PosixTz::parse(bad).is_err(), "{bad}");
        }
    }
}
