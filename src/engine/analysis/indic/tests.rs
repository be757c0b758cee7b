use proptest::prelude::*;

use super::{bengali_normalize, bengali_stem, hindi_normalize, indic_normalize};

#[test]
fn hindi_normalizer_cases() {
    // Lucene's TestHindiNormalizer
    assert_eq!(hindi_normalize("अँगरेज़ी"), hindi_normalize("अंगरेजि"));
    assert_eq!(hindi_normalize("क़िताब"), "किताब");
}

#[test]
fn indic_compositions() {
    // devanagari candra O from its decomposition; bengali khanda ta with ZWJ
    assert_eq!(indic_normalize("\u{0905}\u{093E}\u{0945}"), "\u{0911}");
    assert_eq!(indic_normalize("\u{09A4}\u{09CD}\u{200D}"), "\u{09CE}");
}

#[test]
fn bengali_cases() {
    // Lucene's TestBengaliStemmer / TestBengaliNormalizer
    assert_eq!(bengali_stem("কিনেছিলাম"), "কিন");
    assert_eq!(bengali_stem("কিনিতেছিলাম"), "কিন");
    assert_eq!(bengali_normalize("চাঁদ"), "চাদ");
    assert_eq!(bengali_normalize("দুঃখ"), "দুখখ");
}

proptest! {
    #[test]
    fn never_panic(term in "[\u{0900}-\u{0D7F}\u{200C}\u{200D}]{0,12}") {
        let n = term.chars().count();
        prop_assert!(indic_normalize(&term).chars().count() <= n);
        prop_assert!(hindi_normalize(&term).chars().count() <= n);
        prop_assert!(bengali_normalize(&term).chars().count() <= n);
        prop_assert!(bengali_stem(&term).chars().count() <= n);
    }
}
