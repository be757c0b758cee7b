use proptest::prelude::*;

use super::{arabic_stem, sorani_normalize};

#[test]
fn light10_prefixes_and_suffixes() {
    // Lucene's TestArabicStemFilter
    assert_eq!(arabic_stem("الحسن"), "حسن");
    assert_eq!(arabic_stem("والحسن"), "حسن");
    assert_eq!(arabic_stem("وحسن"), "حسن");
    assert_eq!(arabic_stem("ساهدهات"), "ساهد");
    assert_eq!(arabic_stem("وساهدون"), "ساهد");
    assert_eq!(arabic_stem("ال"), "ال", "too short to stem");
    assert_eq!(arabic_stem("وا"), "وا");
}

#[test]
fn sorani_letters() {
    assert_eq!(sorani_normalize("\u{064A}"), "\u{06CC}");
    assert_eq!(sorani_normalize("\u{0647}\u{200C}ب"), "\u{06D5}ب");
    assert_eq!(sorani_normalize("\u{0631}ر"), "\u{0695}ر");
}

proptest! {
    #[test]
    fn never_panic(term in "[\u{0621}-\u{0652}\u{0692}\u{06BE}\u{200C}\u{200E}a]{0,12}") {
        prop_assert!(arabic_stem(&term).chars().count() <= term.chars().count());
        prop_assert!(sorani_normalize(&term).chars().count() <= term.chars().count());
    }
}
