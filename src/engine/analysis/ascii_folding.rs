//! ASCII folding exactly as Lucene's `ASCIIFoldingFilter.foldToASCII`: every character of its
//! table ([`super::ascii_folding_table`], 1242 entries: Latin letters with diacritics, ligatures,
//! small capitals, circled/parenthesized/fullwidth forms, superscript and subscript digits,
//! quotes, dashes, brackets) is replaced by its ASCII equivalent; ASCII and every other
//! character are kept.

use super::ascii_folding_table::ASCII_FOLDING;

/// The ASCII folding of `c`, or None when `c` folds to itself.
pub fn fold_char(c: char) -> Option<&'static str> {
    if c.is_ascii() {
        return None;
    }
    ASCII_FOLDING.binary_search_by_key(&c, |entry| entry.0).ok().and_then(|i| ASCII_FOLDING.get(i)).map(|entry| entry.1)
}

/// Folds `term`, or None when nothing changes.
pub fn fold(term: &str) -> Option<String> {
    if term.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(term.len());
    let mut changed = false;
    for c in term.chars() {
        match fold_char(c) {
            Some(folded) => {
                out.push_str(folded);
                changed = true;
            }
            None => out.push(c),
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_table_is_sorted_and_folds_to_ascii() {
        assert!(ASCII_FOLDING.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(ASCII_FOLDING.iter().all(|(c, s)| !c.is_ascii() && !s.is_empty() && s.is_ascii()));
        assert_eq!(ASCII_FOLDING.len(), 1242);
    }

    /// Lucene's TestASCIIFoldingFilter.testLatin1Accents and a few of testAllFoldings.
    #[test]
    fn lucene_cases() {
        let cases = [
            ("Des mot clés À LA CHAÎNE", "Des mot cles A LA CHAINE"),
            ("ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏĲÐÑÒÓÔÕÖØŒÞÙÚÛÜÝŸ", "AAAAAAAECEEEEIIIIIJDNOOOOOOOETHUUUUYY"),
            ("àáâãäåæçèéêëìíîïĳðñòóôõöøœßþùúûüýÿﬁﬂ", "aaaaaaaeceeeeiiiiijdnoooooooessthuuuuyyfifl"),
            ("Ꜳꜳ⒜ǅ⑳⒛⒇", "AAaa(a)Dz2020.(20)"),
            ("ɐəᶏₐⱥⓐａ", "aaaaaaa"),
            ("‐–—⁻₋－", "------"),
            ("«»“”„″‶❝❞❮❯＂", "\"\"\"\"\"\"\"\"\"\"\"\""),
            ("⸨⸩‼⁉⁇⁈＼", "(())!!!????!\\"),
        ];
        for (input, expected) in cases {
            assert_eq!(fold(input).as_deref(), Some(expected), "{input}");
        }
        assert_eq!(fold("plain"), None);
        assert_eq!(fold("中文 ×÷"), None);
    }

    proptest! {
        #[test]
        fn folding_never_grows_past_four_ascii_per_char(text in "\\PC{0,30}") {
            if let Some(folded) = fold(&text) {
                prop_assert!(folded.chars().count() <= 4 * text.chars().count());
                prop_assert!(folded.chars().filter(|c| !c.is_ascii()).count() <= text.chars().filter(|c| !c.is_ascii()).count());
            }
        }
    }
}
