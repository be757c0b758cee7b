use super::*;
use crate::clock::civil::midnight;

const H: i64 = 3_600_000;

fn z(id: &str) -> Zone {
    Zone::parse_in(id, Path::new("/usr/share/zoneinfo")).unwrap()
}

#[test]
fn ids_as_java_parses_them() {
    assert_eq!(z("Z").id(), "Z");
    assert_eq!(z("+01:00").offset_at(0), H);
    assert_eq!(z("+5").id(), "+05:00");
    assert_eq!(z("-0530").offset_at(0), -(5 * H + 30 * 60_000));
    assert_eq!(z("+00:00").id(), "Z");
    assert_eq!(z("+01:02:03").offset_at(0), H + 2 * 60_000 + 3000);
    assert_eq!(z("UTC").id(), "UTC");
    assert!(z("UTC").is_fixed());
    assert_eq!(z("GMT+2").id(), "GMT+02:00");
    assert_eq!(z("GMT+2").offset_at(0), 2 * H);
    assert_eq!(z("UT-01:30").offset_at(0), -(H + H / 2));
    assert_eq!(z("UTC+0").id(), "UTC");
    assert_eq!(z("America/New_York").id(), "America/New_York");
    assert!(!z("America/New_York").is_fixed());
    assert!(z("Etc/GMT+5").is_fixed());
    assert_eq!(z("Etc/GMT+5").offset_at(0), -5 * H);
    assert_eq!(z("EST").offset_at(0), -5 * H);

    let err = |id: &str| Zone::parse_in(id, Path::new("/usr/share/zoneinfo")).unwrap_err();
    assert_eq!(err("Mars/Base"), "Unknown time-zone ID: Mars/Base");
    assert_eq!(err("+25:00"), "Zone offset hours not in valid range: value 25 is not in the range -18 to 18");
    assert_eq!(err("+1:00"), "Invalid ID for ZoneOffset, invalid format: +1:00");
    assert_eq!(err("A"), "Invalid ID for ZoneOffset, invalid format: A");
    assert_eq!(err("GMT+99"), "Invalid ID for offset-based ZoneId: GMT+99");
    assert_eq!(err("9abc"), "Invalid ID for region-based ZoneId, invalid format: 9abc");
    assert_eq!(err("Europe/../../etc/passwd"), "Unknown time-zone ID: Europe/../../etc/passwd");
    assert_eq!(err("right/America/New_York"), "Unknown time-zone ID: right/America/New_York");
    assert_eq!(err("America"), "Unknown time-zone ID: America");
    assert_eq!(err("zone.tab"), "Unknown time-zone ID: zone.tab");
}

#[test]
fn new_york_dst() {
    let ny = z("America/New_York");
    // 2024-03-10 02:00 EST jumps to 03:00 EDT at 07:00 UTC.
    let spring = midnight(2024, 3, 10) + 7 * H;
    assert_eq!(ny.offset_at(spring - 1), -5 * H);
    assert_eq!(ny.offset_at(spring), -4 * H);
    let t = ny.transition_at_or_before(spring + 5).unwrap();
    assert_eq!(t, Transition { at: spring, before: -5 * H, after: -4 * H });
    assert_eq!(ny.transition_after(spring - 1), Some(t));
    // 02:30 does not exist: it moves forward by the gap's hour to 03:30 EDT = 07:30 UTC.
    let gap_local = midnight(2024, 3, 10) + 2 * H + H / 2;
    assert!(matches!(ny.local_offsets(gap_local), LocalOffsets::Gap(_)));
    assert_eq!(ny.local_to_utc(gap_local), spring + H / 2);
    // 2024-11-03 02:00 EDT falls back to 01:00 EST at 06:00 UTC; 01:30 happens twice.
    let fall = midnight(2024, 11, 3) + 6 * H;
    assert_eq!(ny.offset_at(fall - 1), -4 * H);
    assert_eq!(ny.offset_at(fall), -5 * H);
    let twice = midnight(2024, 11, 3) + H + H / 2;
    assert!(matches!(ny.local_offsets(twice), LocalOffsets::Overlap(_)));
    assert_eq!(ny.local_to_utc(twice), twice + 4 * H);
    assert_eq!(ny.local_to_utc_preferring(twice, Some(-5 * H)), twice + 5 * H);
    assert_eq!(ny.local_to_utc(midnight(2024, 7, 1)), midnight(2024, 7, 1) + 4 * H);
}

#[test]
fn paris_dst() {
    let p = z("Europe/Paris");
    let spring = midnight(2024, 3, 31) + H;
    assert_eq!((p.offset_at(spring - 1), p.offset_at(spring)), (H, 2 * H));
    let fall = midnight(2024, 10, 27) + H;
    assert_eq!((p.offset_at(fall - 1), p.offset_at(fall)), (2 * H, H));
    // 02:30 on the spring day is in the gap; on the fall day it happens twice.
    assert_eq!(p.local_to_utc(midnight(2024, 3, 31) + 2 * H + H / 2), midnight(2024, 3, 31) + H + H / 2);
    assert_eq!(p.local_to_utc(midnight(2024, 10, 27) + 2 * H + H / 2), midnight(2024, 10, 27) + H / 2);
}

#[test]
fn lord_howe_half_hour_dst() {
    let lh = z("Australia/Lord_Howe");
    // 2024-10-06 02:00 +10:30 becomes 02:30 +11:00 at 2024-10-05 15:30 UTC.
    let on = midnight(2024, 10, 5) + 15 * H + H / 2;
    assert_eq!(lh.offset_at(on - 1), 10 * H + H / 2);
    assert_eq!(lh.offset_at(on), 11 * H);
    // 2024-04-07 02:00 +11:00 goes back to 01:30 +10:30 at 2024-04-06 15:00 UTC.
    let off = midnight(2024, 4, 6) + 15 * H;
    assert_eq!(lh.offset_at(off - 1), 11 * H);
    assert_eq!(lh.offset_at(off), 10 * H + H / 2);
    let t = lh.transition_at_or_before(off).unwrap();
    assert_eq!(t.before - t.after, H / 2);
    // 02:15 on 2024-10-06 is in the half-hour gap.
    assert_eq!(lh.local_to_utc(midnight(2024, 10, 6) + 2 * H + H / 4), on + H / 4 - 0);
}

#[test]
fn far_future_follows_the_footer() {
    let ny = z("America/New_York");
    // 2100-03-14 is the second Sunday of March 2100; 2100-11-07 the first of November.
    let spring = midnight(2100, 3, 14) + 7 * H;
    assert_eq!((ny.offset_at(spring - 1), ny.offset_at(spring)), (-5 * H, -4 * H));
    let fall = midnight(2100, 11, 7) + 6 * H;
    assert_eq!((ny.offset_at(fall - 1), ny.offset_at(fall)), (-4 * H, -5 * H));
    assert_eq!(ny.transition_after(spring), Some(Transition { at: fall, before: -4 * H, after: -5 * H }));
    assert_eq!(ny.transition_at_or_before(fall - 1).map(|t| t.at), Some(spring));
    // The file's explicit transitions end in 2037; 2038's come from the rules.
    let y2038 = midnight(2038, 3, 14) + 7 * H;
    assert_eq!((ny.offset_at(y2038 - 1), ny.offset_at(y2038)), (-5 * H, -4 * H));
    // Extreme instants neither panic nor lose the standard offset.
    for t in [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1] {
        let o = ny.offset_at(t);
        assert!(o.abs() <= 6 * H);
        let _ = ny.local_to_utc(t);
        let _ = ny.transition_after(t);
    }
}

/// Offsets checked against Python's zoneinfo over the same database.
const CASES: &[(&str, i64, i64)] = &[
    ("America/New_York", 1470981467000, -14400000),
    ("America/New_York", -1576297463000, -18000000),
    ("America/New_York", -1173064684000, -18000000),
    ("America/New_York", 3125466606000, -18000000),
    ("Europe/Paris", -112329938000, 3600000),
    ("Europe/Paris", -1243924714000, 3600000),
    ("Europe/Paris", 1678354499000, 3600000),
    ("Europe/Paris", 113423936000, 3600000),
    ("Australia/Lord_Howe", 2845112719000, 39600000),
    ("Australia/Lord_Howe", -1478485662000, 36000000),
    ("Australia/Lord_Howe", 2977123431000, 37800000),
    ("Australia/Lord_Howe", 3545761583000, 37800000),
    ("Asia/Kolkata", 3126590789000, 19800000),
    ("Asia/Kolkata", -1454763742000, 19800000),
    ("Asia/Kolkata", 3152144426000, 19800000),
    ("Asia/Kolkata", -1564504574000, 19800000),
    ("America/Sao_Paulo", -54481799000, -10800000),
    ("America/Sao_Paulo", 2896462788000, -10800000),
    ("America/Sao_Paulo", -828081802000, -10800000),
    ("America/Sao_Paulo", 1686325802000, -10800000),
    ("Pacific/Chatham", 2755148367000, 45900000),
    ("Pacific/Chatham", 3021322682000, 49500000),
    ("Pacific/Chatham", 2927652407000, 49500000),
    ("Pacific/Chatham", 3999279581000, 45900000),
    ("Europe/Dublin", -1092985687000, 3600000),
    ("Europe/Dublin", 3023314722000, 3600000),
    ("Europe/Dublin", -347988446000, 0),
    ("Europe/Dublin", -1143702073000, 3600000),
    ("America/St_Johns", 4264414862000, -12600000),
    ("America/St_Johns", 2960956903000, -9000000),
    ("America/St_Johns", 3441979549000, -12600000),
    ("America/St_Johns", 2364571358000, -12600000),
    ("Asia/Tehran", 2675846713000, 12600000),
    ("Asia/Tehran", 2094453084000, 12600000),
    ("Asia/Tehran", 1180222211000, 12600000),
    ("Asia/Tehran", 183130875000, 12600000),
    ("Africa/Casablanca", -416040202000, 0),
    ("Africa/Casablanca", -1281692076000, 0),
    ("Africa/Casablanca", 639577050000, 0),
    ("Africa/Casablanca", 2353057572000, 0),
    ("Pacific/Apia", 1023120696000, -39600000),
    ("Pacific/Apia", 1950207888000, 46800000),
    ("Pacific/Apia", 3357060901000, 46800000),
    ("Pacific/Apia", -1355840054000, -41400000),
    ("Europe/Moscow", 2501632814000, 10800000),
    ("Europe/Moscow", -550800198000, 10800000),
    ("Europe/Moscow", 1009729002000, 10800000),
    ("Europe/Moscow", 1708656856000, 10800000),
];

#[test]
fn offsets_match_an_independent_reader() {
    for (id, ms, off) in CASES {
        assert_eq!(z(id).offset_at(*ms), *off, "{id} at {ms}");
    }
}

#[test]
fn local_offsets_agree_with_offset_at() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for id in ["America/New_York", "Europe/Paris", "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo"] {
        let zone = z(id);
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let utc = (seed % 8_000_000_000_000) as i64 - 2_000_000_000_000;
            let off = zone.offset_at(utc);
            let local = utc + off;
            match zone.local_offsets(local) {
                LocalOffsets::Unique(o) => assert_eq!(o, off, "{id} {utc}"),
                LocalOffsets::Overlap(t) => assert!(off == t.before || off == t.after, "{id} {utc}"),
                LocalOffsets::Gap(_) => panic!("{id}: the local time of {utc} is in a gap"),
            }
            assert!(zone.local_to_utc(local) <= utc, "{id} {utc}");
        }
    }
}

#[test]
fn damaged_files_are_errors() {
    let dir = std::env::temp_dir().join(format!("fathom-tz-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("Test")).unwrap();
    let good = std::fs::read("/usr/share/zoneinfo/America/New_York").unwrap();
    std::fs::write(dir.join("Test/Truncated"), &good[..good.len() / 2]).unwrap();
    let mut flipped = good.clone();
    flipped[20..24].copy_from_slice(&[0xFF; 4]);
    std::fs::write(dir.join("Test/Flipped"), &flipped).unwrap();
    std::fs::write(dir.join("Test/Garbage"), b"not a zone").unwrap();
    std::fs::write(dir.join("Test/Good"), &good).unwrap();
    let e = Zone::parse_in("Test/Truncated", &dir).unwrap_err();
    assert!(e.starts_with("Invalid time-zone data for [Test/Truncated]"), "{e}");
    assert!(Zone::parse_in("Test/Flipped", &dir).is_err());
    assert_eq!(Zone::parse_in("Test/Garbage", &dir).unwrap_err(), "Unknown time-zone ID: Test/Garbage");
    assert_eq!(Zone::parse_in("Test/Good", &dir).unwrap().offset_at(midnight(2024, 7, 1)), -4 * H);
    for n in (0..good.len()).step_by(7) {
        let _ = Zone::from_tzif("x", &good[..n]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(tz_dir_from(Some(dir.clone().into_os_string())), dir);
    assert_eq!(tz_dir_from(Some("".into())), PathBuf::from("/usr/share/zoneinfo"));
    assert_eq!(tz_dir_from(None), PathBuf::from("/usr/share/zoneinfo"));
}
