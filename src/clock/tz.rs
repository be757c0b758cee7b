//! Time zones as java.time's `ZoneId.of` names them: `Z`, offsets (`+01:00`, `-0530`, `+5`),
//! `UTC`/`GMT`/`UT` with or without an offset (`GMT+2`), and tz database regions
//! (`America/New_York`) read from the system's TZif files (`/usr/share/zoneinfo`, or the
//! directory in the `TZDIR` environment variable), with the footer's POSIX rules past the last
//! transition. Parsed zones are cached per directory and id; a [`Zone`] clones cheaply.

use super::civil::{year_of, DAY};
use super::posix_tz::PosixTz;
pub use super::posix_tz::Transition;
use super::tzif;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A time zone: a fixed offset or a region's offset history.
#[derive(Clone)]
pub struct Zone(Arc<Inner>);

struct Inner {
    id: String,
    /// Offset (millis) before the first transition, or always for a fixed zone.
    initial: i64,
    /// Offset changes from the file, in time order (changes of name or DST flag alone dropped).
    trans: Vec<Transition>,
    /// Daylight-saving rules past the last transition.
    rules: Option<PosixTz>,
}

impl std::fmt::Debug for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Zone({})", self.0.id)
    }
}

impl PartialEq for Zone {
    fn eq(&self, other: &Zone) -> bool {
        self.0.id == other.0.id
    }
}

/// What a local (wall-clock) time means in a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalOffsets {
    /// The local time happens once, at this offset.
    Unique(i64),
    /// The local time never happens: the clocks jumped forward over it at this transition.
    Gap(Transition),
    /// The local time happens twice, first at `before` then at `after` of this transition.
    Overlap(Transition),
}

const MAX_CACHED: usize = 4096;

fn cache() -> &'static Mutex<HashMap<(PathBuf, String), Zone>> {
    static CACHE: OnceLock<Mutex<HashMap<(PathBuf, String), Zone>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The tz database directory: `TZDIR` if set and not empty, else `/usr/share/zoneinfo`.
pub fn tz_dir_from(env: Option<std::ffi::OsString>) -> PathBuf {
    env.filter(|v| !v.is_empty()).map_or_else(|| PathBuf::from("/usr/share/zoneinfo"), PathBuf::from)
}

/// `ZoneOffset.of`: `+h`, `+hh`, `+hh:mm`, `+hhmm`, `+hh:mm:ss`, `+hhmmss` (and `Z`), in seconds.
fn parse_offset(id: &str) -> Result<i64, String> {
    if id == "Z" {
        return Ok(0);
    }
    let bad = || format!("Invalid ID for ZoneOffset, invalid format: {id}");
    let b = id.as_bytes();
    let num = |pos: usize, colon: bool| -> Result<i64, String> {
        if colon && b[pos - 1] != b':' {
            return Err(bad());
        }
        match (b.get(pos), b.get(pos + 1)) {
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                Ok(i64::from((x - b'0') * 10 + (y - b'0')))
            }
            _ => Err(bad()),
        }
    };
    let (h, m, s) = match b.len() {
        2 if b[1].is_ascii_digit() => (i64::from(b[1] - b'0'), 0, 0),
        3 => (num(1, false)?, 0, 0),
        5 => (num(1, false)?, num(3, false)?, 0),
        6 => (num(1, false)?, num(4, true)?, 0),
        7 => (num(1, false)?, num(3, false)?, num(5, false)?),
        9 => (num(1, false)?, num(4, true)?, num(7, true)?),
        _ => return Err(bad()),
    };
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return Err(bad()),
    };
    if h > 18 {
        return Err(format!("Zone offset hours not in valid range: value {h} is not in the range -18 to 18"));
    }
    if m > 59 {
        return Err(format!(
            "Zone offset minutes not in valid range: value {} is not in the range -59 to 59",
            sign * m
        ));
    }
    if s > 59 {
        return Err(format!(
            "Zone offset seconds not in valid range: value {} is not in the range -59 to 59",
            sign * s
        ));
    }
    if h == 18 && (m > 0 || s > 0) {
        return Err("Zone offset not in valid range: -18:00 to +18:00".into());
    }
    Ok(sign * (h * 3600 + m * 60 + s))
}

/// `ZoneOffset.getId`: `Z`, `+01:00`, `-05:30:15`.
fn offset_id(secs: i64) -> String {
    if secs == 0 {
        return "Z".into();
    }
    let a = secs.abs();
    let sign = if secs < 0 { '-' } else { '+' };
    let mut s = format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60);
    if a % 60 != 0 {
        s.push_str(&format!(":{:02}", a % 60));
    }
    s
}

impl Zone {
    /// A zone at a fixed offset in millis, named `id`.
    pub fn fixed(id: &str, offset_millis: i64) -> Zone {
        Zone(Arc::new(Inner { id: id.into(), initial: offset_millis, trans: Vec::new(), rules: None }))
    }

    /// UTC (`Z`).
    pub fn utc() -> Zone {
        static UTC: OnceLock<Zone> = OnceLock::new();
        UTC.get_or_init(|| Zone::fixed("Z", 0)).clone()
    }

    /// `ZoneOffset.ofHours`: a numeric `time_zone` in the aggregations.
    pub fn of_hours(hours: i64) -> Result<Zone, String> {
        if !(-18..=18).contains(&hours) {
            return Err(format!("Zone offset hours not in valid range: value {hours} is not in the range -18 to 18"));
        }
        Ok(Zone::fixed(&offset_id(hours * 3600), hours * 3_600_000))
    }

    /// Parses a zone id as `ZoneId.of` does, reading regions from the tz database directory.
    pub fn parse(id: &str) -> Result<Zone, String> {
        Zone::parse_in(id, &tz_dir_from(std::env::var_os("TZDIR")))
    }

    /// [`Zone::parse`] with regions read from `dir`.
    pub fn parse_in(id: &str, dir: &Path) -> Result<Zone, String> {
        if id == "Z" {
            return Ok(Zone::utc());
        }
        if id.len() <= 1 || id.starts_with('+') || id.starts_with('-') {
            let secs = parse_offset(id)?;
            return Ok(Zone::fixed(&offset_id(secs), secs * 1000));
        }
        for prefix in ["UTC", "GMT", "UT"] {
            if let Some(rest) = id.strip_prefix(prefix) {
                if rest.is_empty() {
                    return Ok(Zone::fixed(prefix, 0));
                }
                if rest.starts_with('+') || rest.starts_with('-') {
                    let secs = parse_offset(rest).map_err(|_| format!("Invalid ID for offset-based ZoneId: {id}"))?;
                    let name = if secs == 0 { prefix.to_string() } else { format!("{prefix}{}", offset_id(secs)) };
                    return Ok(Zone::fixed(&name, secs * 1000));
                }
                break;
            }
        }
        Zone::region(id, dir)
    }

    fn region(id: &str, dir: &Path) -> Result<Zone, String> {
        let b = id.as_bytes();
        let valid = b.len() >= 2
            && b[0].is_ascii_alphabetic()
            && b[1..].iter().all(|c| c.is_ascii_alphanumeric() || b"~/._+-".contains(c));
        if !valid {
            return Err(format!("Invalid ID for region-based ZoneId, invalid format: {id}"));
        }
        let key = (dir.to_path_buf(), id.to_string());
        if let Some(z) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(z.clone());
        }
        let unknown = || format!("Unknown time-zone ID: {id}");
        // Only names of the database's zones: no path tricks, none of the copies under posix/
        // and right/ (the latter counts leap seconds), no tables or links to the host's zone.
        let parts: Vec<&str> = id.split('/').collect();
        if parts.iter().any(|p| p.is_empty() || p.starts_with('.'))
            || matches!(parts[0], "posix" | "right")
            || matches!(id, "localtime" | "posixrules" | "Factory")
        {
            return Err(unknown());
        }
        let bytes = std::fs::read(dir.join(id)).map_err(|_| unknown())?;
        if !bytes.starts_with(b"TZif") {
            return Err(unknown());
        }
        let zone = Zone::from_tzif(id, &bytes).map_err(|e| format!("Invalid time-zone data for [{id}]: {e}"))?;
        let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
        if c.len() < MAX_CACHED {
            c.insert(key, zone.clone());
        }
        Ok(zone)
    }

    /// A zone from the bytes of a TZif file.
    pub fn from_tzif(id: &str, bytes: &[u8]) -> Result<Zone, String> {
        let data = tzif::parse(bytes)?;
        if data.leap_seconds {
            return Err("leap-second zones are not supported".into());
        }
        let initial = i64::from(data.offsets[0]) * 1000;
        let mut trans: Vec<Transition> = Vec::with_capacity(data.transitions.len());
        let mut cur = initial;
        for (at, ty) in data.transitions {
            let off = i64::from(data.offsets[ty]) * 1000;
            if off != cur {
                trans.push(Transition { at: at.saturating_mul(1000), before: cur, after: off });
                cur = off;
            }
        }
        let rules = if data.footer.is_empty() {
            None
        } else {
            let p = PosixTz::parse(&data.footer)?;
            (!p.is_fixed() && p.permanent_dst().is_none()).then_some(p)
        };
        Ok(Zone(Arc::new(Inner { id: id.into(), initial, trans, rules })))
    }

    /// The id as given (offsets normalized like `ZoneOffset.getId`: `+5` is `+05:00`).
    #[allow(dead_code)] // for the aggregations' responses
    pub fn id(&self) -> &str {
        &self.0.id
    }

    /// Whether the offset never changes.
    pub fn is_fixed(&self) -> bool {
        self.0.trans.is_empty() && self.0.rules.is_none()
    }

    fn last_explicit(&self) -> i64 {
        self.0.trans.last().map_or(i64::MIN, |t| t.at)
    }

    /// The footer's transitions of the local years around `utc`, after the file's last one.
    fn rule_transitions(&self, utc: i64) -> impl Iterator<Item = Transition> + '_ {
        let last = self.last_explicit();
        let rules = self.0.rules.as_ref().filter(|_| utc >= last);
        let y = rules.map_or(0, |r| year_of(utc.saturating_add(r.std)));
        rules
            .into_iter()
            .flat_map(move |r| (y - 1..=y + 1).filter_map(|yy| r.transitions(yy)).flatten())
            .filter(move |t| t.at > last)
    }

    /// The last transition at or before `utc`.
    pub fn transition_at_or_before(&self, utc: i64) -> Option<Transition> {
        if utc > self.last_explicit() {
            if let Some(t) = self.rule_transitions(utc).filter(|t| t.at <= utc).last() {
                return Some(t);
            }
        }
        let i = self.0.trans.partition_point(|t| t.at <= utc);
        i.checked_sub(1).map(|i| self.0.trans[i])
    }

    /// The first transition after `utc`.
    pub fn transition_after(&self, utc: i64) -> Option<Transition> {
        let i = self.0.trans.partition_point(|t| t.at <= utc);
        if let Some(t) = self.0.trans.get(i) {
            return Some(*t);
        }
        let from = utc.max(self.last_explicit());
        self.rule_transitions(from).find(|t| t.at > utc).or_else(|| {
            // Past the last rule of the years looked at: the next year's first.
            self.rule_transitions(from.saturating_add(366 * DAY)).find(|t| t.at > utc)
        })
    }

    /// The offset in millis at an instant.
    pub fn offset_at(&self, utc_millis: i64) -> i64 {
        if self.is_fixed() {
            return self.0.initial;
        }
        self.transition_at_or_before(utc_millis).map_or(self.0.initial, |t| t.after)
    }

    /// What a local time means: one offset, a gap or an overlap (`ZoneRules.getValidOffsets`
    /// and `getTransition`).
    pub fn local_offsets(&self, local: i64) -> LocalOffsets {
        if self.is_fixed() {
            return LocalOffsets::Unique(self.0.initial);
        }
        // Offsets stay within a day of UTC, so transitions further than two days away cannot
        // make `local` ambiguous.
        let lo = local.saturating_sub(2 * DAY);
        let hi = local.saturating_add(2 * DAY);
        let mut res = LocalOffsets::Unique(self.offset_at(lo));
        let mut at = lo;
        for _ in 0..16 {
            let Some(t) = self.transition_after(at).filter(|t| t.at <= hi) else { break };
            at = t.at;
            if t.at.saturating_add(t.before.min(t.after)) > local {
                continue;
            }
            res = if local >= t.at.saturating_add(t.before.max(t.after)) {
                LocalOffsets::Unique(t.after)
            } else if t.after > t.before {
                LocalOffsets::Gap(t)
            } else {
                LocalOffsets::Overlap(t)
            };
        }
        res
    }

    /// The instant of a local time as `ZonedDateTime.ofLocal` without a preferred offset: in a
    /// gap the time moves forward by the gap's length, in an overlap the earlier offset wins.
    #[allow(dead_code)] // for the date range aggregation
    pub fn local_to_utc(&self, local_millis: i64) -> i64 {
        self.local_to_utc_preferring(local_millis, None)
    }

    /// As [`Zone::local_to_utc`], but in an overlap `preferred` wins if it is one of the two
    /// offsets (`ZonedDateTime.ofLocal` with a preferred offset).
    pub fn local_to_utc_preferring(&self, local: i64, preferred: Option<i64>) -> i64 {
        match self.local_offsets(local) {
            LocalOffsets::Unique(o) => local.saturating_sub(o),
            LocalOffsets::Gap(t) => local.saturating_sub(t.before),
            LocalOffsets::Overlap(t) => match preferred {
                Some(p) if p == t.after => local.saturating_sub(t.after),
                _ => local.saturating_sub(t.before),
            },
        }
    }
}

#[cfg(test)]
#[path = "tz_tests.rs"]
mod tests;
