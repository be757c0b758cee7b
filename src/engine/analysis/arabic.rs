//! Arabic-script stemming and normalization: Lucene's `ArabicStemmer` (light10: the `arabic_stem`
//! filter and the `stemmer` language `arabic`) and `SoraniNormalizer` (`sorani_normalization`).
//!
//! Lucene works on UTF-16 units; every rule here matches BMP characters only, so working on
//! `char`s gives the same result (a supplementary character is never matched, as a surrogate
//! unit is never matched in Lucene).

use super::token_op::TokenOp;
use super::token_stream::TokenState;

const ALEF: char = '\u{0627}';
const BEH: char = '\u{0628}';
const TEH_MARBUTA: char = '\u{0629}';
const TEH: char = '\u{062A}';
const FEH: char = '\u{0641}';
const KAF: char = '\u{0643}';
const LAM: char = '\u{0644}';
const NOON: char = '\u{0646}';
const HEH: char = '\u{0647}';
const WAW: char = '\u{0648}';
const YEH: char = '\u{064A}';

/// `ArabicStemmer.prefixes`, tried in order; the first that fits is removed.
const PREFIXES: [&[char]; 7] =
    [&[ALEF, LAM], &[WAW, ALEF, LAM], &[BEH, ALEF, LAM], &[KAF, ALEF, LAM], &[FEH, ALEF, LAM], &[LAM, LAM], &[WAW]];

/// `ArabicStemmer.suffixes`, each removed in turn when it fits.
const SUFFIXES: [&[char]; 10] = [
    &[HEH, ALEF],
    &[ALEF, NOON],
    &[ALEF, TEH],
    &[WAW, NOON],
    &[YEH, NOON],
    &[YEH, HEH],
    &[YEH, TEH_MARBUTA],
    &[HEH],
    &[TEH_MARBUTA],
    &[YEH],
];

/// Lucene's `ArabicStemmer.stem`: one prefix (the definite article, conjunction `و`,
/// prepositions), then suffixes, each leaving at least two characters (`و` needs four letters).
pub fn arabic_stem(term: &str) -> String {
    let chars: Vec<char> = term.chars().collect();
    let mut s: &[char] = &chars;
    for prefix in PREFIXES {
        let fits = if prefix.len() == 1 { s.len() >= 4 } else { s.len() >= prefix.len() + 2 };
        if fits && s.starts_with(prefix) {
            s = &s[prefix.len()..];
            break;
        }
    }
    for suffix in SUFFIXES {
        if s.len() >= suffix.len() + 2 && s.ends_with(suffix) {
            s = &s[..s.len() - suffix.len()];
        }
    }
    s.iter().collect()
}

/// The `arabic_stem` filter; keyword-marked tokens are left alone.
pub fn arabic_stem_filter() -> TokenOp {
    TokenOp::new("arabic_stem", false, |token: &mut TokenState| {
        if !token.keyword {
            token.term = arabic_stem(&token.term);
        }
        true
    })
    .with_keyword_attribute()
}

/// Whether Java's `Character.getType(c) == FORMAT` (Unicode `Cf`) for a BMP character.
pub(crate) fn is_format_char(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB)
}

/// Lucene's `SoraniNormalizer`: `ي`/`ى` → `ی`, `ك` → `ک`, `ە` for `ه`+ZWNJ, word-final `ه` and
/// `ة`, `ھ` → `ه`, `ڒ` and word-initial `ر` → `ڕ`; harakat, tatweel and format characters
/// removed.
pub fn sorani_normalize(term: &str) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let mut i = 0;
    // every step either advances `i` or shortens `s`
    while i < s.len() {
        match s[i] {
            '\u{064A}' | '\u{0649}' => s[i] = '\u{06CC}',
            '\u{0643}' => s[i] = '\u{06A9}',
            '\u{200C}' => {
                if i > 0 && s[i - 1] == '\u{0647}' {
                    s[i - 1] = '\u{06D5}';
                }
                s.remove(i);
                continue;
            }
            '\u{0647}' if i + 1 == s.len() => s[i] = '\u{06D5}',
            '\u{0629}' => s[i] = '\u{06D5}',
            '\u{06BE}' => s[i] = '\u{0647}',
            '\u{0631}' if i == 0 => s[i] = '\u{0695}',
            '\u{0692}' => s[i] = '\u{0695}',
            '\u{0640}' | '\u{064B}'..='\u{0652}' => {
                s.remove(i);
                continue;
            }
            c if is_format_char(c) => {
                s.remove(i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    s.into_iter().collect()
}

/// The `sorani_normalization` filter (usable in normalizers).
pub fn sorani_normalization() -> TokenOp {
    TokenOp::new("sorani_normalization", true, |token: &mut TokenState| {
        token.term = sorani_normalize(&token.term);
        true
    })
}

#[cfg(test)]
mod tests;
