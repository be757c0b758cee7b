//! `date_histogram`: dates in calendar (`calendar_interval`) or fixed (`fixed_interval`)
//! buckets, in a `time_zone`, shifted by `offset`, over the histogram collector and reduce with a
//! date [`Rounder`] (OpenSearch's `Rounding`).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::fmt::Fmt;
use super::histogram::{histo_collector, reduce_histo, render_histo, Bounds, HistoCommon, Rounder};
use super::range_histogram::{range_field, range_histo_collector};
use super::result::{AggResult, Buckets, Key, KeyKind};
use super::source::{resolve, token, NumKind, VType};
use super::{AggDef, AggSpec, Collector, ReduceCtx, RenderCtx, ShardEnv};
use crate::action::search::rounding::{
    parse_calendar_interval, parse_fixed_interval, parse_offset, CalendarUnit, Interval, Rounding,
};
use crate::clock::tz::Zone;
use crate::engine::schema::date;
use crate::engine::schema::range::RangeType;
use crate::error::{OsError, OsResult};

/// A date rounding as a histogram rounder; `nanos`: the column holds nanoseconds.
#[derive(Debug, Clone)]
pub struct DateRounder {
    pub rounding: Rounding,
    pub nanos: bool,
}

impl Rounder for DateRounder {
    fn key_of(&self, _v: f64, raw: i64) -> Key {
        let ms = if self.nanos { raw.div_euclid(1_000_000) } else { raw };
        Key::Long(self.rounding.round(ms))
    }
    fn next(&self, k: &Key) -> Key {
        Key::Long(self.rounding.next_rounding_value(k.as_f64() as i64))
    }
    fn round_bound(&self, v: f64) -> Key {
        Key::Long(self.rounding.round(v as i64))
    }
    fn value_range(&self, k: &Key) -> (f64, f64) {
        let scale = if self.nanos { 1e6 } else { 1.0 };
        (k.as_f64() * scale, self.next(k).as_f64() * scale)
    }
}

/// The interval, `time_zone` and `offset` options shared by the `date_histogram` aggregation
/// and the composite's `date_histogram` source (OpenSearch's `DateIntervalWrapper` and the
/// builders' `time_zone`/`offset` fields).
#[derive(Debug, Default)]
pub struct DateIntervalOpts {
    calendar: Option<CalendarUnit>,
    fixed: Option<i64>,
    legacy: Option<String>,
    pub zone: Option<Zone>,
    pub offset: i64,
}

impl DateIntervalOpts {
    /// Takes `k` when it is one of these options (false for other keys).
    pub fn take(&mut self, ty: &str, k: &str, v: &Value) -> OsResult<bool> {
        let s = || super::source::string(ty, k, v);
        match k {
            "calendar_interval" => self.calendar = Some(parse_calendar_interval(&s()?).map_err(OsError::illegal)?),
            "fixed_interval" => self.fixed = Some(parse_fixed_interval(&s()?).map_err(OsError::illegal)?),
            "interval" => {
                self.legacy = Some(match v {
                    // A number is the legacy interval in millis.
                    Value::Number(n) if n.as_i64().is_some() => format!("{n}ms"),
                    _ => s()?,
                })
            }
            "time_zone" => {
                self.zone = Some(match v.as_i64() {
                    Some(h) => Zone::of_hours(h).map_err(OsError::illegal)?,
                    None => Zone::parse(&s()?).map_err(OsError::illegal)?,
                })
            }
            "offset" => {
                self.offset = match v {
                    Value::Number(n) => n.as_i64().ok_or_else(|| OsError::illegal(format!("bad offset [{v}]")))?,
                    _ => parse_offset(&s()?).map_err(OsError::illegal)?,
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The interval the options give (aggregation `name` for the messages).
    pub fn interval(&self, name: &str) -> OsResult<Interval> {
        if self.calendar.is_some() && self.fixed.is_some() {
            return Err(OsError::illegal("Cannot use [fixed_interval] with [calendar_interval] configuration option."));
        }
        if self.legacy.is_some() && (self.calendar.is_some() || self.fixed.is_some()) {
            return Err(OsError::illegal(
                "Cannot use [interval] with [fixed_interval] or [calendar_interval] configuration options.",
            ));
        }
        let interval = match (self.calendar, self.fixed, &self.legacy) {
            (Some(u), _, _) => Interval::Calendar(u),
            (_, Some(ms), _) => Interval::Fixed(ms),
            (_, _, Some(l)) => match parse_calendar_interval(l) {
                Ok(u) => Interval::Calendar(u),
                Err(_) => Interval::Fixed(parse_fixed_interval(l).map_err(OsError::illegal)?),
            },
            _ => return Err(OsError::illegal("Invalid interval specified, must be non-null and non-empty")),
        };
        if let Interval::Fixed(ms) = interval {
            if ms <= 0 {
                return Err(OsError::illegal(format!("[interval] must be 1 or greater for aggregation [{name}]")));
            }
        }
        Ok(interval)
    }
}

#[derive(Debug, Clone)]
pub struct DateHistogramSpec {
    pub common: HistoCommon,
    pub interval: Interval,
    pub zone: Zone,
    pub offset: i64,
}

fn date_bound(v: &Value, format: &str, now: i64) -> OsResult<f64> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| OsError::illegal(format!("bad bound [{v}]"))),
        Value::String(s) => {
            if let Ok(ms) = date::parse_date(s, format) {
                return Ok(ms as f64);
            }
            crate::action::search::date_math::eval(s, format, &Zone::utc(), now, false).map(|ms| ms as f64).map_err(
                |e| {
                    OsError::new(
                        crate::error::ErrorKind::Parse,
                        format!("failed to parse date field [{s}] with format [{format}]: [{e}]"),
                    )
                    .status(400)
                },
            )
        }
        other => {
            Err(OsError::parsing(format!("[date_histogram] bounds doesn't support values of type: {}", token(other))))
        }
    }
}

impl DateHistogramSpec {
    pub fn parse(name: &str, body: &Map<String, Value>) -> OsResult<DateHistogramSpec> {
        let mut c = HistoCommon::new();
        let mut iv = DateIntervalOpts::default();
        let mut ext = None;
        let mut hard = None;
        for (k, v) in body {
            if c.take("date_histogram", name, k, v)? || iv.take("date_histogram", k, v)? {
                continue;
            }
            match k.as_str() {
                "extended_bounds" => ext = Some(v.clone()),
                "hard_bounds" => hard = Some(v.clone()),
                _ => {
                    return Err(OsError::parsing(crate::error::unknown_field(
                        "date_histogram",
                        k,
                        &[
                            "field",
                            "script",
                            "missing",
                            "format",
                            "value_type",
                            "calendar_interval",
                            "fixed_interval",
                            "interval",
                            "time_zone",
                            "offset",
                            "order",
                            "keyed",
                            "min_doc_count",
                            "extended_bounds",
                            "hard_bounds",
                        ],
                    )))
                }
            }
        }
        let interval = iv.interval(name)?;
        let (zone, offset) = (iv.zone.clone().unwrap_or_else(Zone::utc), iv.offset);
        let fmt = c.source.format.clone().unwrap_or_else(|| "strict_date_optional_time||epoch_millis".into());
        let now = crate::clock::now_millis();
        let num = |x: &Value| date_bound(x, &fmt, now);
        if let Some(v) = ext {
            c.extended = Some(Bounds::parse("date_histogram", "extended_bounds", &v, &num)?);
        }
        if let Some(v) = hard {
            c.hard = Some(Bounds::parse("date_histogram", "hard_bounds", &v, &num)?);
        }
        c.source.require("date_histogram", name)?;
        Ok(DateHistogramSpec { common: c, interval, zone, offset })
    }

    fn rounder(&self, nanos: bool) -> DateRounder {
        DateRounder { rounding: Rounding::new(self.interval, self.zone.clone(), self.offset), nanos }
    }
}

impl AggSpec for DateHistogramSpec {
    fn type_name(&self) -> &'static str {
        "date_histogram"
    }

    fn histogram_min_doc_count(&self) -> Option<u64> {
        Some(self.common.min_doc_count)
    }

    fn next_key(&self, key: &Key, _interval: Option<&str>) -> Option<Key> {
        Some(self.rounder(false).next(key))
    }

    fn collector(&self, def: &AggDef, env: &ShardEnv<'_>) -> OsResult<Box<dyn Collector>> {
        if let Some(rf) = range_field(&self.common.source, env.qc.mapping) {
            if rf.rt != RangeType::Date {
                return Err(OsError::illegal(format!(
                    "Expected date range type but found range type [{}]",
                    rf.rt.type_name()
                )));
            }
            let format = self.common.source.format.clone().or(rf.format.clone());
            let format = format.unwrap_or_else(|| date::DEFAULT_FORMAT.to_string());
            date::validate_format(&format).map_err(OsError::illegal)?;
            let fmt = Fmt::Date { format, nanos: false, zone: self.zone_id() };
            return range_histo_collector(def, env, rf, fmt, &self.common, Arc::new(self.rounder(false)));
        }
        let mut cfg = resolve(&self.common.source, env.qc, "date_histogram")?;
        let nanos = matches!(cfg.vt, Some(VType::Num(NumKind::Date { nanos: true })));
        // Keys print as dates in the zone (numbers and unmapped fields too, as OpenSearch).
        cfg.fmt = match cfg.fmt {
            Fmt::Date { format, .. } => Fmt::Date { format, nanos: false, zone: self.zone_id() },
            _ => Fmt::Date {
                format: self.common.source.format.clone().unwrap_or_else(|| "strict_date_optional_time".into()),
                nanos: false,
                zone: self.zone_id(),
            },
        };
        histo_collector(def, env, cfg, "date_histogram", &self.common, Arc::new(self.rounder(nanos)))
    }

    fn empty(&self, _def: &AggDef) -> AggResult {
        AggResult::Buckets(Buckets::of(KeyKind::Long, Vec::new()))
    }

    fn reduce(&self, def: &AggDef, parts: Vec<AggResult>, rc: &mut ReduceCtx) -> OsResult<AggResult> {
        reduce_histo(def, &self.common, &self.rounder(false), parts, rc)
    }

    fn render(&self, def: &AggDef, r: &AggResult, rc: &RenderCtx) -> OsResult<Map<String, Value>> {
        render_histo(def, self.common.keyed, r, rc)
    }
}

impl DateHistogramSpec {
    fn zone_id(&self) -> Option<String> {
        (self.zone.id() != "UTC" && self.zone.id() != "Z").then(|| self.zone.id().to_string())
    }
}
