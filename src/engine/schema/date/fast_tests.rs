//! `iso_utc_seconds` (the shortcut for `yyyy-MM-ddTHH:mm:ssZ`) against the format's own parser.

use proptest::prelude::*;

use super::{compiled, iso_utc_seconds};

const ISO: [&str; 4] =
    ["strict_date_optional_time", "date_optional_time", "strict_date_optional_time_nanos", "date_optional_time_nanos"];

fn check(s: &str) {
    for alt in ISO {
        let full = compiled(alt).expect("built-in format").parse(s);
        if let Some(fast) = iso_utc_seconds(alt, s) {
            assert_eq!(Some(fast), full, "{alt} {s}");
        } else if s.len() == 20 && s.ends_with('Z') {
            // The shortcut may only decline strings the parser rejects too, or other shapes.
            assert!(
                full.is_none()
                    || !s.bytes().enumerate().all(|(i, c)| [4, 7, 10, 13, 16, 19].contains(&i) || c.is_ascii_digit()),
                "{alt} {s}"
            );
        }
    }
    assert_eq!(iso_utc_seconds("epoch_millis", s), None);
}

#[test]
fn known_dates() {
    for s in [
        "2025-07-26T07:39:03Z",
        "1970-01-01T00:00:00Z",
        "2000-02-29T23:59:59Z",
        "1969-12-31T23:59:59Z",
        "0001-01-01T00:00:00Z",
    ] {
        assert!(iso_utc_seconds("strict_date_optional_time", s).is_some(), "{s}");
        check(s);
    }
    for s in [
        "2001-02-29T00:00:00Z",
        "2025-13-01T00:00:00Z",
        "2025-07-26T24:00:00Z",
        "2025-07-26T07:60:03Z",
        "2025-07-26T07:39:60Z",
        "2025-07-26 07:39:03Z",
        "2025-07-26T07:39:03+",
        "+025-07-26T07:39:03Z",
        "2025-07-00T00:00:00Z",
    ] {
        check(s);
    }
}

proptest! {
    #[test]
    fn shortcut_is_the_parser(
        y in 0u32..10000, mo in 0u32..14, d in 0u32..33, h in 0u32..26, mi in 0u32..62, sec in 0u32..62,
        junk in prop::option::of((0usize..20, "[0-9a-zA-Z:+ -]")),
    ) {
        let mut s = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}Z");
        if let Some((at, c)) = junk {
            s.replace_range(at..at + 1, &c);
        }
        check(&s);
    }
}
