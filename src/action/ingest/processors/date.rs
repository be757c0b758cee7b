//! The `date` processor: parses a field with the given formats (`ISO8601`, `UNIX`, `UNIX_MS`,
//! `TAI64N` or java.time patterns) in a time zone and writes it with `output_format`.

use serde_json::Value;

use super::super::config::Config;
use super::super::doc::IngestDocument;
use super::super::pipeline::{Exec, Flow, Op};
use super::super::template::{java_string, Template};
use crate::clock::Zone;
use crate::engine::schema::date;
use crate::error::{OsError, OsResult};

#[derive(Debug)]
pub struct DateOp {
    field: String,
    target: String,
    formats: Vec<String>,
    timezone: Option<Template>,
    output_format: String,
}

impl DateOp {
    pub fn new(c: &mut Config) -> OsResult<DateOp> {
        let field = c.req_str("field")?;
        let target = c.opt_str("target_field")?.unwrap_or_else(|| "@timestamp".into());
        let formats = c.req_str_list("formats")?;
        let timezone = c.opt_template("timezone")?;
        if let Some(l) = c.opt_str("locale")? {
            // Fathom prints and parses month and day names in English only.
            if !matches!(l.as_str(), "ENGLISH" | "en" | "en_US" | "en-US" | "ROOT" | "") {
                return Err(c.err("locale", &format!("Unsupported locale [{l}]")));
            }
        }
        let output_format = c.opt_str("output_format")?.unwrap_or_else(|| "yyyy-MM-dd'T'HH:mm:ss.SSSXXX".into());
        date::validate_format(&output_format).map_err(|e| c.err("output_format", &e))?;
        for f in &formats {
            if !matches!(f.as_str(), "ISO8601" | "UNIX" | "UNIX_MS" | "TAI64N") {
                date::validate_format(f).map_err(|e| c.err("formats", &e))?;
            }
        }
        Ok(DateOp { field, target, formats, timezone, output_format })
    }
}

/// Epoch millis of `s` read with one of the date processor's formats; zone-less values are
/// wall-clock time in `zone`.
fn parse_one(s: &str, format: &str, zone: &Zone) -> Result<i64, String> {
    let bad = || format!("failed to parse date field [{s}] with format [{format}]");
    match format {
        "UNIX" => s.trim().parse::<f64>().map(|x| (x * 1000.0) as i64).map_err(|_| bad()),
        "UNIX_MS" => s.trim().parse::<i64>().map_err(|_| bad()),
        "TAI64N" => {
            let hex = s.strip_prefix('@').unwrap_or(s);
            if hex.len() != 24 {
                return Err(bad());
            }
            let secs = i64::from_str_radix(&hex[..16], 16).map_err(|_| bad())?;
            let nanos = i64::from_str_radix(&hex[16..24], 16).map_err(|_| bad())?;
            Ok((secs - 4_611_686_018_427_387_914) * 1000 + nanos / 1_000_000)
        }
        f => {
            let java = if f == "ISO8601" { "iso8601" } else { f };
            let utc = date::parse_date(s, java)?;
            let zoned = s.ends_with('Z') || s.rfind(['+', '-']).is_some_and(|i| s[..i].contains(':'));
            Ok(if zoned { utc } else { zone.local_to_utc_preferring(utc, None) })
        }
    }
}

impl Op for DateOp {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let value = match doc.get(&self.field)? {
            Value::Null => return Err(OsError::illegal(format!("field [{}] is null, cannot parse date", self.field))),
            v => java_string(v),
        };
        let zone = match &self.timezone {
            Some(t) => {
                let z = t.render(doc);
                crate::action::search::date_math::parse_time_zone(&z)
                    .map_err(|e| OsError::illegal(format!("The datetime zone id '{z}' is not recognised: {e}")))?
            }
            None => Zone::utc(),
        };
        let mut last = String::new();
        for f in &self.formats {
            match parse_one(&value, f, &zone) {
                Ok(ms) => {
                    let out = date::format_date_at_offset(ms, &self.output_format, zone.offset_at(ms));
                    doc.set(&self.target, Value::String(out))?;
                    return Ok(Flow::Continue);
                }
                Err(e) => last = e,
            }
        }
        Err(OsError::illegal(format!("unable to parse date [{value}]")).caused_by(OsError::illegal(last)))
    }
}

/// The `date_index_name` processor: points `_index` at a date-math index name
/// (`<prefix{date||/unit{format|zone}}>`) built from a date field.
#[derive(Debug)]
pub struct DateIndexName {
    field: String,
    prefix: Template,
    rounding: Template,
    formats: Vec<String>,
    timezone: Zone,
    tz_id: String,
    name_format: Template,
}

impl DateIndexName {
    pub fn new(c: &mut Config) -> OsResult<DateIndexName> {
        let field = c.req_str("field")?;
        let prefix = c.opt_template("index_name_prefix")?.unwrap_or(Template::Plain(String::new()));
        let rounding = c.req_template("date_rounding")?;
        if let Template::Plain(r) = &rounding {
            if !matches!(r.as_str(), "y" | "M" | "w" | "d" | "h" | "m" | "s") {
                return Err(c.err("date_rounding", "date rounding must be one of [y, M, w, d, h, m, s]"));
            }
        }
        let formats = c.opt_str_list("date_formats")?.unwrap_or_else(|| vec!["yyyy-MM-dd'T'HH:mm:ss.SSSXX".into()]);
        let tz_id = c.opt_str("timezone")?.unwrap_or_else(|| "UTC".into());
        let timezone = crate::action::search::date_math::parse_time_zone(&tz_id).map_err(|e| c.err("timezone", &e))?;
        if let Some(l) = c.opt_str("locale")? {
            if !matches!(l.as_str(), "ENGLISH" | "en" | "en_US" | "en-US" | "ROOT" | "") {
                return Err(c.err("locale", &format!("Unsupported locale [{l}]")));
            }
        }
        let name_format = c.opt_template("index_name_format")?.unwrap_or(Template::Plain("yyyy-MM-dd".into()));
        Ok(DateIndexName { field, prefix, rounding, formats, timezone, tz_id, name_format })
    }
}

impl Op for DateIndexName {
    fn run(&self, doc: &mut IngestDocument, _x: &mut Exec<'_>) -> OsResult<Flow> {
        let value = java_string(doc.get(&self.field)?);
        let mut parsed = None;
        let mut last = String::new();
        for f in &self.formats {
            match parse_one(&value, f, &self.timezone) {
                Ok(ms) => {
                    parsed = Some(ms);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let Some(ms) = parsed else {
            return Err(OsError::illegal(format!("unable to parse date [{value}]")).caused_by(OsError::illegal(last)));
        };
        let date = date::format_date_at_offset(ms, "yyyy-MM-dd'T'HH:mm:ss.SSSXX", self.timezone.offset_at(ms));
        let name = format!(
            "<{}{{{date}||/{}{{{}|{}}}}}>",
            self.prefix.render(doc),
            self.rounding.render(doc),
            self.name_format.render(doc),
            self.tz_id
        );
        doc.set("_index", Value::String(name))?;
        Ok(Flow::Continue)
    }
}

/// Resolves a date-math index name (`<static{date-math{format|zone}}>`, as
/// `IndexNameExpressionResolver.DateMathExpressionResolver`); other names are returned as
/// they are.
pub fn resolve_index_name(name: &str, now: i64) -> OsResult<String> {
    let Some(inner) = name.strip_prefix('<').and_then(|n| n.strip_suffix('>')) else {
        return Ok(name.to_string());
    };
    let bad = |why: &str| {
        OsError::new(crate::error::ErrorKind::Parse, format!("invalid date math expression [{name}]: {why}"))
    };
    let mut out = String::new();
    let mut rest = inner;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open].replace('\\', ""));
        let body = &rest[open + 1..];
        // The expression ends at the `}` that closes this block (a `{format|zone}` may nest).
        let mut depth = 1;
        let mut end = None;
        for (i, ch) in body.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| bad("missing closing `}`"))?;
        let block = &body[..end];
        let (expr, format, zone) = match block.find('{') {
            Some(i) => {
                let spec = block[i + 1..].strip_suffix('}').ok_or_else(|| bad("missing closing `}` of the format"))?;
                let (f, z) = match spec.split_once('|') {
                    Some((f, z)) => (f, Some(z)),
                    None => (spec, None),
                };
                (&block[..i], f, z)
            }
            None => (block, "uuuu.MM.dd", None),
        };
        let zone = match zone {
            Some(z) => crate::action::search::date_math::parse_time_zone(z).map_err(|e| bad(&e))?,
            None => Zone::utc(),
        };
        let ms = crate::action::search::date_math::eval(expr, date::DEFAULT_FORMAT, &zone, now, false)
            .map_err(|e| bad(&e))?;
        let format = if format.is_empty() { "uuuu.MM.dd" } else { format };
        out.push_str(&date::format_date_at_offset(ms, &format.replace('u', "y"), zone.offset_at(ms)));
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_formats_in_zones() {
        let utc = Zone::utc();
        assert_eq!(parse_one("1000", "UNIX", &utc), Ok(1_000_000));
        assert_eq!(parse_one("1500", "UNIX_MS", &utc), Ok(1500));
        assert_eq!(parse_one("2020-01-01T00:00:00Z", "ISO8601", &utc), Ok(1_577_836_800_000));
        let plus2 = Zone::fixed("+02:00", 7_200_000);
        assert_eq!(parse_one("2020-01-01 02:00:00", "yyyy-MM-dd HH:mm:ss", &plus2), Ok(1_577_836_800_000));
        let ms = 1_577_836_800_000;
        assert_eq!(date::format_date_at_offset(ms, "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", 0), "2020-01-01T00:00:00.000Z");
    }

    #[test]
    fn date_math_index_names_resolve() {
        let r = resolve_index_name("<my-index-{2016-04-25T12:24:17.000Z||/M{yyyy-MM-dd|UTC}}>", 0);
        assert_eq!(r.ok().as_deref(), Some("my-index-2016-04-01"));
        assert_eq!(resolve_index_name("plain", 0).ok().as_deref(), Some("plain"));
        assert!(resolve_index_name("<bad-{now>", 0).is_err());
    }
}
