//! `include` and `exclude` of terms-like aggregations (OpenSearch's `IncludeExclude`): a regular
//! expression (string fields only), a list of exact values, or (include only) a hash partition
//! `{"partition": p, "num_partitions": n}`.

use regex::Regex;
use serde_json::Value;

use super::result::Key;
use crate::engine::codec::murmur3::murmur3_x86_32;
use crate::engine::schema::ip;
use crate::error::{OsError, OsResult};

#[derive(Debug, Clone)]
enum Rule {
    Regex(Regex),
    Set(Vec<String>),
    Partition { partition: u64, num: u64 },
}

/// A parsed include/exclude pair.
#[derive(Debug, Clone, Default)]
pub struct IncludeExclude {
    include: Option<Rule>,
    exclude: Option<Rule>,
}

fn regex(s: &str) -> OsResult<Regex> {
    // Lucene's RegExp matches the whole term; its common syntax is the regex crate's.
    Regex::new(&format!("^(?:{s})$")).map_err(|e| OsError::illegal(format!("Invalid regular expression [{s}]: {e}")))
}

fn set(v: &[Value]) -> Vec<String> {
    v.iter()
        .map(|x| match x {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

impl IncludeExclude {
    pub fn is_empty(&self) -> bool {
        self.include.is_none() && self.exclude.is_none()
    }

    /// Takes `include` or `exclude`; `Ok(false)` for other keys.
    pub fn take(&mut self, agg: &str, key: &str, v: &Value) -> OsResult<bool> {
        let rule = match (key, v) {
            ("include" | "exclude", Value::String(s)) => Rule::Regex(regex(s)?),
            ("include" | "exclude", Value::Array(a)) => Rule::Set(set(a)),
            ("include", Value::Object(m)) => {
                let num = m.get("num_partitions").and_then(Value::as_u64);
                let p = m.get("partition").and_then(Value::as_u64);
                for k in m.keys() {
                    if k != "num_partitions" && k != "partition" {
                        return Err(OsError::parsing(format!("Unknown parameter in Include/Exclude clause: {k}")));
                    }
                }
                match (p, num) {
                    (Some(partition), Some(num)) if num > 0 && partition < num => Rule::Partition { partition, num },
                    (_, None) => {
                        return Err(OsError::parsing("Missing [num_partitions] parameter for partition-based include"))
                    }
                    (None, _) => {
                        return Err(OsError::parsing("Missing [partition] parameter for partition-based include"))
                    }
                    (Some(p), Some(n)) => {
                        return Err(OsError::illegal(format!("Invalid partition [{p}] for [{n}] partitions")))
                    }
                }
            }
            ("include" | "exclude", other) => {
                return Err(OsError::parsing(format!("Unrecognized token for an {key} [{}] in [{agg}]", other)))
            }
            _ => return Ok(false),
        };
        if key == "include" {
            self.include = Some(rule);
        } else {
            self.exclude = Some(rule);
        }
        if matches!(self.include, Some(Rule::Partition { .. })) && self.exclude.is_some() {
            return Err(OsError::illegal("Cannot specify any excludes when using a partition-based include"));
        }
        Ok(true)
    }

    /// Numeric fields take no regular expression.
    pub fn check_numeric(&self, name: &str) -> OsResult<()> {
        if matches!(self.include, Some(Rule::Regex(_))) || matches!(self.exclude, Some(Rule::Regex(_))) {
            return Err(OsError::new(crate::error::ErrorKind::AggregationExecution, format!("Aggregation [{name}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses")).status(400));
        }
        Ok(())
    }

    /// A regular expression on terms printed by a format (ips) is OpenSearch's
    /// `AggregationExecutionException` (a server error there too).
    pub fn check_formatted(&self, name: &str) -> OsResult<()> {
        if self.has_regex() {
            return Err(OsError::new(crate::error::ErrorKind::AggregationExecution, format!("Aggregation [{name}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses")));
        }
        Ok(())
    }

    /// Whether a term (bytes of a keyword; 16 bytes of an ip) passes.
    pub fn accept_bytes(&self, b: &[u8], is_ip: bool) -> bool {
        let text = |b: &[u8]| -> String {
            if is_ip {
                <[u8; 16]>::try_from(b).map(|a| ip::format_ip(u128::from_be_bytes(a))).unwrap_or_default()
            } else {
                String::from_utf8_lossy(b).into_owned()
            }
        };
        let matches = |r: &Rule| match r {
            Rule::Regex(re) => re.is_match(&text(b)),
            Rule::Set(s) => {
                if is_ip {
                    s.iter().any(|x| ip::parse_ip(x).is_some_and(|a| a.to_be_bytes().as_slice() == b))
                } else {
                    s.iter().any(|x| x.as_bytes() == b)
                }
            }
            Rule::Partition { partition, num } => {
                (murmur3_x86_32(b, 31) as i32).rem_euclid(*num as i32) as u64 == *partition
            }
        };
        self.include.as_ref().is_none_or(matches) && !self.exclude.as_ref().is_some_and(matches)
    }

    /// Whether a regular expression is given (string fields only).
    pub fn has_regex(&self) -> bool {
        matches!(self.include, Some(Rule::Regex(_))) || matches!(self.exclude, Some(Rule::Regex(_)))
    }

    /// Whether a numeric key passes (`raw`: the column's long, hashed by partitions).
    pub fn accept_number(&self, key: &Key, raw: i64) -> bool {
        self.accept_number_with(key, raw, &|_| None)
    }

    /// [`Self::accept_number`] where listed values that are not numbers parse by `parse` (a
    /// date field's format, as OpenSearch's `convertToLongFilter(format)`).
    pub fn accept_number_with(&self, key: &Key, raw: i64, parse: &dyn Fn(&str) -> Option<f64>) -> bool {
        let x = key.as_f64();
        let matches = |r: &Rule| match r {
            Rule::Regex(_) => false,
            Rule::Set(s) => s.iter().any(|v| match v.as_str() {
                "true" => x == 1.0,
                "false" => x == 0.0,
                v => v.parse::<f64>().ok().or_else(|| parse(v)).is_some_and(|y| y == x),
            }),
            Rule::Partition { partition, num } => (mix64(raw).rem_euclid(*num as i64)) as u64 == *partition,
        };
        self.include.as_ref().is_none_or(matches) && !self.exclude.as_ref().is_some_and(matches)
    }
}

/// hppc's `BitMixer.mix64` (OpenSearch partitions long terms with it).
pub fn mix64(z: i64) -> i64 {
    let mut z = z as u64;
    z = (z ^ (z >> 32)).wrapping_mul(0x4cd6944c5cc20b6d);
    z = (z ^ (z >> 29)).wrapping_mul(0xfc12c5b19d3259e9);
    (z ^ (z >> 32)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ie(inc: Option<Value>, exc: Option<Value>) -> IncludeExclude {
        let mut x = IncludeExclude::default();
        if let Some(v) = inc {
            x.take("terms", "include", &v).unwrap();
        }
        if let Some(v) = exc {
            x.take("terms", "exclude", &v).unwrap();
        }
        x
    }

    #[test]
    fn regex_and_sets() {
        let x = ie(Some(json!("ba.*")), Some(json!(["bad"])));
        assert!(x.accept_bytes(b"bar", false));
        assert!(!x.accept_bytes(b"bad", false));
        assert!(!x.accept_bytes(b"foo", false));
        assert!(!x.accept_bytes(b"xbar", false));
        let n = ie(Some(json!([1, 3])), None);
        assert!(n.accept_number(&Key::Long(3), 3));
        assert!(!n.accept_number(&Key::Long(2), 2));
        // Formatted terms (ips) take sets, not regular expressions.
        assert!(n.check_formatted("a").is_ok());
        let e = ie(None, Some(json!("127.*"))).check_formatted("a").unwrap_err();
        assert_eq!(e.status, 500);
        assert!(e.reason.starts_with("Aggregation [a] cannot support regular expression style"));
    }

    #[test]
    fn partitions_split_every_term_once() {
        let parts: Vec<IncludeExclude> =
            (0..4).map(|p| ie(Some(json!({"partition": p, "num_partitions": 4})), None)).collect();
        for t in ["a", "b", "c", "dd", "eee"] {
            assert_eq!(parts.iter().filter(|x| x.accept_bytes(t.as_bytes(), false)).count(), 1);
        }
        for v in -5i64..5 {
            assert_eq!(parts.iter().filter(|x| x.accept_number(&Key::Long(v), v)).count(), 1);
        }
    }
}
