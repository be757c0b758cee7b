use proptest::prelude::*;

use super::{greek_lowercase, irish_lowercase, scandinavian_fold, scandinavian_normalize, serbian_normalize};

#[test]
fn scandinavian() {
    // Lucene's TestScandinavianNormalizationFilter / FoldingFilter
    assert_eq!(scandinavian_normalize("raeksmoergaas"), "ræksmørgås");
    assert_eq!(scandinavian_normalize("räksmörgås"), "ræksmørgås");
    assert_eq!(scandinavian_fold("räksmörgås"), "raksmorgas");
    assert_eq!(scandinavian_fold("raeksmoergaas"), "raksmorgas");
}

#[test]
fn serbian_irish_greek() {
    assert_eq!(serbian_normalize("ђура"), "djura");
    assert_eq!(irish_lowercase("nAthair"), "n-athair");
    assert_eq!(irish_lowercase("tAthair"), "t-athair");
    assert_eq!(greek_lowercase("ΆΣΟΣ"), "ασοσ");
    assert_eq!(greek_lowercase("ΐς"), "ισ");
}

proptest! {
    #[test]
    fn never_panic(term in "[aAoOeEåÅæÆäÄöÖøØnt\u{0386}-\u{03CE}\u{0430}-\u{045F}đ]{0,12}") {
        let n = term.chars().count();
        prop_assert!(scandinavian_normalize(&term).chars().count() <= n);
        prop_assert!(scandinavian_fold(&term).chars().count() <= n);
        prop_assert!(serbian_normalize(&term).chars().count() <= 2 * n);
        prop_assert!(irish_lowercase(&term).chars().count() <= n + 1);
        prop_assert_eq!(greek_lowercase(&term).chars().count(), n);
    }
}
