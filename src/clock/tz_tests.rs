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

    assert_eq!(Zone::of_hours(-5).unwrap().id(), "-05:00");
    assert_eq!(Zone::of_hours(0).unwrap().id(), "Z");
    assert_eq!(
        Zone::of_hours(19).unwrap_err(),
        "Zone offset hours not in valid range: value 19 is not in the range -18 to 18"
    );
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
    assert_eq!(lh.local_to_utc(midnight(2024, 10, 6) + 2 * H + H / 4), on + H / 4);
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

/// `(zone, instant, offset at the instant, instant of the instant's wall-clock second resolved
/// back, which differs from the instant in gaps and overlaps)` from java.time (`ZoneRules.getOffset`, `ZonedDateTime.ofLocal`), 1980 to 2030 and half
/// of them within two hours of a transition.
const JAVA: &[(&str, i64, i64, i64)] = &[
    ("Asia/Tehran", 1443159938071, 12600000, 1443159938000),
    ("Pacific/Apia", 1285494321883, -39600000, 1285494321000),
    ("Australia/Lord_Howe", 1187281873416, 37800000, 1187281873000),
    ("Australia/Lord_Howe", 1864320179524, 39600000, 1864320179000),
    ("Asia/Tehran", 874872493104, 12600000, 874868893000),
    ("America/Santiago", 870883020284, -14400000, 870883020000),
    ("Asia/Kolkata", 1450736673108, 19800000, 1450736673000),
    ("Europe/Moscow", 1544335737250, 10800000, 1544335737000),
    ("Asia/Kolkata", 754558457876, 19800000, 754558457000),
    ("Europe/Moscow", 354921231280, 14400000, 354921231000),
    ("America/New_York", 1489308635762, -14400000, 1489308635000),
    ("America/New_York", 588601757494, -14400000, 588601757000),
    ("America/Santiago", 971582286250, -14400000, 971582286000),
    ("Europe/Paris", 1865966707001, 3600000, 1865966707000),
    ("Australia/Lord_Howe", 719944284468, 39600000, 719944284000),
    ("America/St_Johns", 1541309098008, -12600000, 1541305498000),
    ("Europe/London", 712480754514, 3600000, 712480754000),
    ("Pacific/Chatham", 1013550287005, 49500000, 1013550287000),
    ("America/Santiago", 371620213809, -14400000, 371620213000),
    ("America/Havana", 1035691378299, -14400000, 1035691378000),
    ("America/Havana", 1445980293922, -14400000, 1445980293000),
    ("Asia/Tehran", 1542710622875, 12600000, 1542710622000),
    ("Asia/Kolkata", 1339694147924, 19800000, 1339694147000),
    ("Asia/Tehran", 805398705513, 16200000, 805398705000),
    ("Pacific/Apia", 1285497625094, -39600000, 1285497625000),
    ("Asia/Tehran", 1600069150726, 16200000, 1600069150000),
    ("Asia/Kolkata", 1482223979909, 19800000, 1482223979000),
    ("Europe/Moscow", 1245757833662, 14400000, 1245757833000),
    ("Europe/London", 1544940562144, 0, 1544940562000),
    ("America/Havana", 667208192359, -18000000, 667208192000),
    ("America/Santiago", 737964789118, -14400000, 737964789000),
    ("Asia/Tehran", 1701446762690, 12600000, 1701446762000),
    ("Asia/Tehran", 1663791345033, 12600000, 1663787745000),
    ("America/Havana", 814417836266, -18000000, 814417836000),
    ("Asia/Tehran", 663364174937, 12600000, 663364174000),
    ("America/Havana", 710531030323, -14400000, 710531030000),
    ("Pacific/Apia", 1833398744625, 46800000, 1833398744000),
    ("Pacific/Apia", 1002926544711, -39600000, 1002926544000),
    ("Asia/Tehran", 1206049094956, 16200000, 1206049094000),
    ("Pacific/Chatham", 1411820252445, 45900000, 1411820252000),
    ("Asia/Kolkata", 1234889262713, 19800000, 1234889262000),
    ("America/Santiago", 744421290160, -14400000, 744421290000),
    ("Asia/Kolkata", 1001408894561, 19800000, 1001408894000),
    ("America/New_York", 1519395953151, -18000000, 1519395953000),
    ("Asia/Tehran", 673209156656, 12600000, 673209156000),
    ("America/St_Johns", 636282144591, -12600000, 636282144000),
    ("America/St_Johns", 1414906909300, -12600000, 1414906909000),
    ("Pacific/Chatham", 1775316883949, 45900000, 1775316883000),
    ("America/New_York", 1857023265847, -18000000, 1857023265000),
    ("UTC", 389541686475, 0, 389541686000),
    ("Asia/Tehran", 811707889370, 16200000, 811707889000),
    ("America/Havana", 466568160498, -14400000, 466568160000),
    ("Australia/Lord_Howe", 1664641978032, 39600000, 1664641978000),
    ("Pacific/Chatham", 795528829379, 49500000, 795528829000),
    ("Europe/Moscow", 1436661938354, 10800000, 1436661938000),
    ("Asia/Kolkata", 1435838305147, 19800000, 1435838305000),
    ("America/Havana", 1763466652259, -18000000, 1763466652000),
    ("America/St_Johns", 783478491082, -9000000, 783478491000),
    ("Pacific/Apia", 1285500316730, -36000000, 1285500316000),
    ("Europe/Paris", 1171443342928, 3600000, 1171443342000),
    ("Europe/Paris", 1628971991292, 7200000, 1628971991000),
    ("America/Sao_Paulo", 416239682664, -10800000, 416239682000),
    ("Australia/Lord_Howe", 756657254955, 39600000, 756657254000),
    ("Australia/Lord_Howe", 1709626068105, 39600000, 1709626068000),
    ("America/Havana", 1225002700922, -18000000, 1225002700000),
    ("America/Sao_Paulo", 1860109688338, -10800000, 1860109688000),
    ("Europe/London", 845024528962, 3600000, 845024528000),
    ("Australia/Lord_Howe", 1743868080129, 37800000, 1743868080000),
    ("Asia/Kolkata", 819615419858, 19800000, 819615419000),
    ("America/Sao_Paulo", 352827771061, -10800000, 352827771000),
    ("Asia/Kolkata", 1065978634060, 19800000, 1065978634000),
    ("Australia/Lord_Howe", 1538838868265, 37800000, 1538838868000),
    ("Europe/London", 386124804641, 0, 386124804000),
    ("Europe/Paris", 1048980803750, 3600000, 1048980803000),
    ("Europe/London", 515105691969, 3600000, 515105691000),
    ("America/Sao_Paulo", 1674386572606, -10800000, 1674386572000),
    ("UTC", 1796512920656, 0, 1796512920000),
    ("Asia/Tehran", 413530886038, 12600000, 413530886000),
    ("Pacific/Chatham", 530404673620, 45900000, 530404673000),
    ("America/St_Johns", 1004232331849, -9000000, 1004232331000),
    ("America/Havana", 974625288357, -18000000, 974625288000),
    ("Pacific/Apia", 1099041994816, -39600000, 1099041994000),
    ("America/Havana", 1378183038030, -14400000, 1378183038000),
    ("Europe/London", 372813209357, 3600000, 372813209000),
    ("America/Santiago", 687328242240, -10800000, 687328242000),
    ("America/St_Johns", 972786334871, -9000000, 972786334000),
    ("Europe/Moscow", 552880160153, 14400000, 552880160000),
    ("Europe/London", 751423488501, 3600000, 751423488000),
    ("Asia/Tehran", 1253563994575, 12600000, 1253560394000),
    ("Asia/Kolkata", 921941770767, 19800000, 921941770000),
    ("America/St_Johns", 388565394603, -9000000, 388565394000),
    ("America/Sao_Paulo", 427016367390, -10800000, 427016367000),
    ("Europe/London", 1863372581418, 0, 1863372581000),
    ("America/St_Johns", 733891697086, -12600000, 733891697000),
    ("Pacific/Apia", 1301746969907, -36000000, 1301746969000),
    ("Australia/Lord_Howe", 1728142763851, 39600000, 1728142763000),
    ("UTC", 538325992104, 0, 538325992000),
    ("Pacific/Apia", 914098657899, -39600000, 914098657000),
    ("Asia/Tehran", 1206046153688, 16200000, 1206046153000),
    ("America/St_Johns", 388606729896, -9000000, 388606729000),
    ("America/St_Johns", 1425786024160, -12600000, 1425786024000),
    ("Europe/Paris", 1223133171389, 7200000, 1223133171000),
    ("America/Santiago", 1097386604512, -10800000, 1097386604000),
    ("Europe/Moscow", 733279460494, 14400000, 733279460000),
    ("Australia/Lord_Howe", 1875157893632, 37800000, 1875157893000),
    ("America/New_York", 380388371500, -18000000, 380388371000),
    ("Asia/Tehran", 868788019575, 16200000, 868788019000),
    ("Australia/Lord_Howe", 1124016177675, 37800000, 1124016177000),
    ("America/Sao_Paulo", 1447128817631, -7200000, 1447128817000),
    ("America/Santiago", 909485554707, -10800000, 909485554000),
    ("Europe/Paris", 1589127743392, 7200000, 1589127743000),
    ("America/Santiago", 353480225293, -14400000, 353480225000),
    ("Asia/Kolkata", 1586997098212, 19800000, 1586997098000),
    ("UTC", 1282310817306, 0, 1282310817000),
    ("Asia/Kolkata", 1260976643194, 19800000, 1260976643000),
    ("America/St_Johns", 372836063222, -12600000, 372836063000),
    ("Europe/Moscow", 972767824027, 14400000, 972767824000),
    ("America/St_Johns", 1530865865064, -9000000, 1530865865000),
    ("Europe/Paris", 985483907444, 7200000, 985483907000),
    ("Europe/Paris", 1130628655947, 7200000, 1130628655000),
    ("Australia/Lord_Howe", 415722948917, 37800000, 415719348000),
    ("Europe/Moscow", 484622164243, 14400000, 484622164000),
    ("America/New_York", 1678603217470, -18000000, 1678603217000),
    ("Europe/Moscow", 1839558877427, 10800000, 1839558877000),
    ("America/Sao_Paulo", 719985169036, -7200000, 719985169000),
    ("America/St_Johns", 828845239049, -12600000, 828845239000),
    ("Asia/Tehran", 914393060965, 12600000, 914393060000),
    ("Australia/Lord_Howe", 542729013223, 39600000, 542729013000),
    ("America/St_Johns", 685674064356, -9000000, 685674064000),
    ("Europe/Paris", 1806190539042, 3600000, 1806190539000),
    ("Europe/London", 1319931403441, 3600000, 1319931403000),
    ("Australia/Lord_Howe", 1892936571431, 39600000, 1892936571000),
    ("America/Havana", 1148233938964, -14400000, 1148233938000),
    ("Pacific/Apia", 1285497806402, -39600000, 1285497806000),
    ("Australia/Lord_Howe", 558108788164, 37800000, 558108788000),
    ("Europe/Paris", 338946822574, 7200000, 338946822000),
    ("America/Santiago", 739733971027, -14400000, 739733971000),
    ("America/Santiago", 722453310441, -10800000, 722453310000),
    ("Pacific/Chatham", 1758985773980, 49500000, 1758985773000),
    ("America/New_York", 436342967516, -18000000, 436339367000),
    ("Pacific/Chatham", 651918219939, 45900000, 651918219000),
    ("America/Havana", 1541301490266, -14400000, 1541301490000),
    ("Europe/London", 877828835364, 0, 877825235000),
    ("Pacific/Chatham", 1246991436785, 45900000, 1246991436000),
    ("America/New_York", 1289114351584, -18000000, 1289114351000),
    ("Asia/Tehran", 1186205569226, 12600000, 1186205569000),
    ("America/St_Johns", 523084838250, -9000000, 523084838000),
    ("Asia/Kolkata", 351953185666, 19800000, 351953185000),
    ("Australia/Lord_Howe", 596230407829, 39600000, 596230407000),
    ("UTC", 1045566901445, 0, 1045566901000),
    ("America/St_Johns", 680409068090, -9000000, 680409068000),
    ("America/Santiago", 1757223291550, -10800000, 1757223291000),
    ("Europe/Paris", 1746830145376, 7200000, 1746830145000),
    ("Australia/Lord_Howe", 1213019619233, 37800000, 1213019619000),
    ("Pacific/Chatham", 1537271772166, 45900000, 1537271772000),
    ("America/Sao_Paulo", 1287283567325, -10800000, 1287283567000),
    ("America/New_York", 694338711498, -18000000, 694338711000),
    ("Asia/Kolkata", 332563806186, 19800000, 332563806000),
    ("Europe/London", 858753683982, 0, 858753683000),
    ("Australia/Lord_Howe", 1336786634304, 37800000, 1336786634000),
    ("America/Santiago", 1795851260800, -10800000, 1795851260000),
    ("Australia/Lord_Howe", 1317487457152, 39600000, 1317487457000),
    ("Asia/Tehran", 1061878133303, 16200000, 1061878133000),
    ("Pacific/Chatham", 852840069941, 49500000, 852840069000),
    ("Europe/Paris", 559701822350, 7200000, 559701822000),
    ("Europe/Moscow", 828231179029, 14400000, 828231179000),
    ("Asia/Kolkata", 1262787129030, 19800000, 1262787129000),
    ("Asia/Kolkata", 733005807890, 19800000, 733005807000),
    ("America/St_Johns", 1532802956489, -9000000, 1532802956000),
    ("Asia/Kolkata", 980704891893, 19800000, 980704891000),
    ("UTC", 1834416160840, 0, 1834416160000),
    ("America/St_Johns", 372835161892, -12600000, 372831561000),
    ("America/Havana", 464142849121, -14400000, 464142849000),
    ("Europe/London", 630830978387, 0, 630830978000),
    ("America/New_York", 702457015827, -18000000, 702457015000),
    ("Australia/Lord_Howe", 719934732863, 37800000, 719934732000),
    ("America/St_Johns", 846383807078, -12600000, 846380207000),
    ("Asia/Kolkata", 691991650993, 19800000, 691991650000),
    ("Asia/Kolkata", 1436555933998, 19800000, 1436555933000),
    ("America/St_Johns", 1436241023720, -9000000, 1436241023000),
    ("Pacific/Chatham", 442835667144, 49500000, 442835667000),
    ("Asia/Kolkata", 751803665897, 19800000, 751803665000),
    ("Australia/Lord_Howe", 462457479673, 37800000, 462457479000),
    ("Europe/Moscow", 1130671266191, 10800000, 1130671266000),
    ("Asia/Kolkata", 1517403268426, 19800000, 1517403268000),
    ("America/St_Johns", 1035687071103, -12600000, 1035683471000),
    ("UTC", 1852945285140, 0, 1852945285000),
    ("Pacific/Apia", 1285493897364, -39600000, 1285493897000),
    ("Australia/Lord_Howe", 612578657209, 37800000, 612578657000),
    ("America/New_York", 1377584656921, -14400000, 1377584656000),
    ("Europe/Paris", 1174784076896, 3600000, 1174784076000),
    ("Asia/Tehran", 562480849863, 12600000, 562480849000),
    ("Asia/Kolkata", 1199946294775, 19800000, 1199946294000),
    ("Europe/Moscow", 1669288084721, 10800000, 1669288084000),
    ("America/Sao_Paulo", 1330240619966, -10800000, 1330240619000),
    ("Europe/Moscow", 1340266342832, 14400000, 1340266342000),
    ("Asia/Tehran", 754709323966, 12600000, 754709323000),
    ("America/New_York", 1394346778086, -18000000, 1394346778000),
    ("Asia/Kolkata", 1592454460305, 19800000, 1592454460000),
    ("America/Havana", 981764162255, -18000000, 981764162000),
    ("Europe/Paris", 877830112221, 3600000, 877826512000),
    ("Australia/Lord_Howe", 384266544550, 41400000, 384266544000),
    ("America/Santiago", 1838263198541, -14400000, 1838263198000),
    ("UTC", 340760830792, 0, 340760830000),
    ("Asia/Tehran", 767672695948, 16200000, 767672695000),
    ("Pacific/Chatham", 1534742688833, 45900000, 1534742688000),
    ("Australia/Lord_Howe", 530032760914, 37800000, 530032760000),
    ("Europe/Moscow", 1829381713254, 10800000, 1829381713000),
    ("America/Sao_Paulo", 1790677079780, -10800000, 1790677079000),
    ("America/Havana", 784938922287, -18000000, 784938922000),
    ("America/Havana", 358316468792, -18000000, 358316468000),
    ("UTC", 1240430917218, 0, 1240430917000),
    ("UTC", 984298559959, 0, 984298559000),
    ("Pacific/Apia", 1651756949615, 46800000, 1651756949000),
    ("America/Havana", 648780831759, -14400000, 648780831000),
    ("Pacific/Chatham", 530630900540, 45900000, 530630900000),
    ("America/Havana", 1662737564006, -14400000, 1662737564000),
    ("Pacific/Apia", 956103718416, -39600000, 956103718000),
    ("America/Sao_Paulo", 1705714599576, -10800000, 1705714599000),
    ("UTC", 1571300492548, 0, 1571300492000),
    ("America/St_Johns", 1636259555196, -12600000, 1636255955000),
    ("UTC", 1670233622537, 0, 1670233622000),
    ("Pacific/Chatham", 1516131221445, 49500000, 1516131221000),
    ("Australia/Lord_Howe", 372786232787, 41400000, 372786232000),
    ("Europe/London", 972778644363, 3600000, 972778644000),
    ("Asia/Kolkata", 1871159710321, 19800000, 1871159710000),
    ("Europe/Paris", 1824941730534, 7200000, 1824941730000),
    ("Europe/Moscow", 954029254255, 14400000, 954029254000),
    ("Pacific/Chatham", 1291779075442, 49500000, 1291779075000),
    ("Europe/Paris", 467061014404, 3600000, 467061014000),
    ("Pacific/Chatham", 686670595414, 45900000, 686670595000),
    ("America/Sao_Paulo", 530589266830, -10800000, 530589266000),
    ("America/New_York", 1714886475124, -14400000, 1714886475000),
    ("Pacific/Chatham", 938869308635, 45900000, 938869308000),
    ("America/Sao_Paulo", 495643869654, -10800000, 495643869000),
    ("Pacific/Apia", 1285500872347, -36000000, 1285500872000),
    ("Europe/Moscow", 846377520876, 10800000, 846377520000),
    ("Australia/Lord_Howe", 1223135773081, 39600000, 1223135773000),
    ("Europe/Paris", 1332643779542, 7200000, 1332643779000),
    ("Pacific/Chatham", 1663164810185, 45900000, 1663164810000),
    ("America/Sao_Paulo", 1871129983780, -10800000, 1871129983000),
    ("Europe/London", 354675286022, 0, 354675286000),
    ("Pacific/Apia", 1459607496125, 46800000, 1459603896000),
    ("America/Havana", 1478407831577, -14400000, 1478407831000),
    ("Australia/Lord_Howe", 1886927639266, 39600000, 1886927639000),
    ("UTC", 913879009471, 0, 913879009000),
    ("America/St_Johns", 1064458621590, -9000000, 1064458621000),
    ("Europe/Paris", 628059645062, 3600000, 628059645000),
    ("UTC", 1626831655943, 0, 1626831655000),
    ("Asia/Tehran", 1364531080288, 16200000, 1364531080000),
    ("Asia/Kolkata", 713921358762, 19800000, 713921358000),
    ("America/Santiago", 550517825713, -14400000, 550517825000),
    ("America/Havana", 492548976066, -14400000, 492548976000),
    ("Pacific/Apia", 1569681615918, 50400000, 1569681615000),
    ("America/New_York", 1701425129552, -18000000, 1701425129000),
    ("Asia/Tehran", 1442868190444, 12600000, 1442868190000),
    ("Asia/Kolkata", 1524972928315, 19800000, 1524972928000),
    ("America/New_York", 359042518953, -14400000, 359042518000),
    ("America/Santiago", 1645855700083, -10800000, 1645855700000),
    ("UTC", 347734612062, 0, 347734612000),
    ("Asia/Tehran", 935413198831, 16200000, 935413198000),
    ("UTC", 357587571517, 0, 357587571000),
    ("America/Santiago", 1220314110515, -14400000, 1220314110000),
    ("America/Havana", 1359398289193, -18000000, 1359398289000),
    ("America/Santiago", 529473653424, -10800000, 529473653000),
    ("Australia/Lord_Howe", 1749430573112, 37800000, 1749430573000),
    ("Pacific/Apia", 1285500836801, -36000000, 1285500836000),
    ("Asia/Tehran", 673216166278, 12600000, 673216166000),
    ("Europe/Paris", 417575570749, 7200000, 417575570000),
    ("America/Sao_Paulo", 1841642185612, -10800000, 1841642185000),
    ("Asia/Kolkata", 528738386727, 19800000, 528738386000),
    ("Europe/Paris", 762314955917, 3600000, 762314955000),
    ("Europe/London", 368769275374, 3600000, 368769275000),
    ("America/St_Johns", 1820921840493, -9000000, 1820921840000),
    ("Europe/Paris", 654649684852, 7200000, 654649684000),
    ("Pacific/Chatham", 562520448769, 49500000, 562520448000),
    ("Europe/London", 1465845434975, 3600000, 1465845434000),
    ("Europe/Moscow", 920335494428, 10800000, 920335494000),
    ("Asia/Tehran", 401418928281, 12600000, 401418928000),
    ("UTC", 1581315078522, 0, 1581315078000),
    ("America/Santiago", 1206846228750, -14400000, 1206842628000),
    ("America/Sao_Paulo", 1045361854394, -10800000, 1045358254000),
    ("America/St_Johns", 1143945263566, -12600000, 1143945263000),
    ("America/Sao_Paulo", 719985776258, -7200000, 719985776000),
    ("Europe/Paris", 1401168349004, 7200000, 1401168349000),
    ("Europe/London", 1757259526058, 3600000, 1757259526000),
    ("America/Sao_Paulo", 1000621454846, -10800000, 1000621454000),
    ("Asia/Tehran", 1382045738579, 12600000, 1382045738000),
    ("Asia/Tehran", 1521660487550, 12600000, 1521660487000),
    ("Pacific/Apia", 1285504328444, -36000000, 1285504328000),
    ("Europe/Paris", 1201929950983, 3600000, 1201929950000),
    ("America/New_York", 1667719766059, -18000000, 1667719766000),
    ("Australia/Lord_Howe", 1490667921647, 39600000, 1490667921000),
    ("Europe/Moscow", 686104185104, 7200000, 686100585000),
    ("Asia/Kolkata", 1112509112682, 19800000, 1112509112000),
    ("Europe/London", 391095419030, 3600000, 391095419000),
    ("UTC", 1246781846286, 0, 1246781846000),
    ("America/St_Johns", 576193459438, -5400000, 576193459000),
    ("Asia/Tehran", 1521659697223, 12600000, 1521659697000),
    ("America/Santiago", 1304827264156, -14400000, 1304827264000),
];

#[test]
fn offsets_and_local_times_match_java_time() {
    for (id, x, off, local_utc) in JAVA {
        let zone = z(id);
        assert_eq!(zone.offset_at(*x), *off, "{id} offset at {x}");
        let local = (x + off).div_euclid(1000) * 1000;
        assert_eq!(zone.local_to_utc(local), *local_utc, "{id} local {local}");
    }
}

#[test]
fn slim_files_rely_on_the_footer() {
    // As `zic -b slim` writes New York: the transitions of 2007 only, then the rules.
    let spring07 = (midnight(2007, 3, 11) + 7 * H) / 1000;
    let fall07 = (midnight(2007, 11, 4) + 6 * H) / 1000;
    let bytes =
        crate::clock::tzif::tests::build(&[-18_000, -14_400], &[(spring07, 1), (fall07, 0)], "EST5EDT,M3.2.0,M11.1.0");
    let ny = Zone::from_tzif("Slim/New_York", &bytes).unwrap();
    assert!(!ny.is_fixed());
    assert_eq!(ny.offset_at(midnight(2007, 12, 1)), -5 * H);
    assert_eq!(ny.offset_at(midnight(2008, 1, 1)), -5 * H);
    assert_eq!(ny.offset_at(midnight(2008, 7, 1)), -4 * H);
    let spring08 = midnight(2008, 3, 9) + 7 * H;
    assert_eq!((ny.offset_at(spring08 - 1), ny.offset_at(spring08)), (-5 * H, -4 * H));
    assert_eq!(ny.transition_after(fall07 * 1000).map(|t| t.at), Some(spring08));
    assert_eq!(ny.transition_at_or_before(spring08 - 1).map(|t| t.at), Some(fall07 * 1000));
    assert!(matches!(ny.local_offsets(midnight(2008, 3, 9) + 2 * H + H / 2), LocalOffsets::Gap(_)));
    let real = z("America/New_York");
    let mut t = midnight(2007, 1, 1);
    while t < midnight(2060, 1, 1) {
        assert_eq!(ny.offset_at(t), real.offset_at(t), "{t}");
        t += 7 * H + 13 * 60_000;
    }
    // A footer the rules cannot read makes the zone an error.
    let bad = crate::clock::tzif::tests::build(&[0], &[], "EST5EDT,M13.2.0,M11.1.0");
    assert!(Zone::from_tzif("x", &bad).is_err());
}
