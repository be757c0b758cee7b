//! OpenSearch's human-readable renderings of sizes and durations (`human=true`, `_cat` cells).

/// `Strings.format1Decimals`: one decimal, truncated, dropped when zero.
fn one_decimal(v: f64, suffix: &str) -> String {
    let tenths = (v * 10.0).floor() as i64;
    if tenths % 10 == 0 {
        format!("{}{suffix}", tenths / 10)
    } else {
        format!("{}.{}{suffix}", tenths / 10, tenths % 10)
    }
}

/// `ByteSizeValue.toString()`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [(&str, u32); 5] = [("pb", 5), ("tb", 4), ("gb", 3), ("mb", 2), ("kb", 1)];
    for (suffix, p) in UNITS {
        let unit = 1024u64.pow(p);
        if b >= unit {
            return one_decimal(b as f64 / unit as f64, suffix);
        }
    }
    format!("{b}b")
}

/// `TimeValue.toString()` for nanoseconds (`123nanos`, `4.5micros`, `61.5ms`, `1.2s`, ...).
pub fn human_nanos(ns: u64) -> String {
    const UNITS: [(&str, u64); 6] = [
        ("d", 86_400_000_000_000),
        ("h", 3_600_000_000_000),
        ("m", 60_000_000_000),
        ("s", 1_000_000_000),
        ("ms", 1_000_000),
        ("micros", 1000),
    ];
    for (suffix, unit) in UNITS {
        if ns >= unit {
            return one_decimal(ns as f64 / unit as f64, suffix);
        }
    }
    format!("{ns}nanos")
}

/// Days since 1970-01-01 → (year, month, day) (proleptic Gregorian).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Epoch millis as `strict_date_time` in UTC (`2024-01-31T12:00:00.000Z`).
pub fn iso_millis(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, mo, d) = civil(days);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// `TimeValue.toString()` for milliseconds.
pub fn human_millis(ms: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)];
    for (suffix, unit) in UNITS {
        if ms >= unit {
            return one_decimal(ms as f64 / unit as f64, suffix);
        }
    }
    format!("{ms}ms")
}
