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
