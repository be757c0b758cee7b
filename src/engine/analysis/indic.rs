//! Indic normalization and stemming: Lucene's `IndicNormalizer` (`indic_normalization`),
//! `HindiNormalizer` (`hindi_normalization`), `BengaliNormalizer` (`bengali_normalization`) and
//! `BengaliStemmer` (the `stemmer` language `bengali`).
//!
//! Lucene works on UTF-16 units; all rules match BMP characters, so working on `char`s is the
//! same. Indexes into the buffers are signed where Lucene steps back (`i -= 2`) and every access
//! is bounds-checked by the same conditions Lucene checks.

use super::token_op::TokenOp;
use super::token_stream::TokenState;

const DEVANAGARI: u16 = 1;
const BENGALI: u16 = 2;
const GURMUKHI: u16 = 4;
const GUJARATI: u16 = 8;
const ORIYA: u16 = 16;
const TAMIL: u16 = 32;
const TELUGU: u16 = 64;
const KANNADA: u16 = 128;
const MALAYALAM: u16 = 256;

/// `IndicNormalizer.decompositions`: offsets into the script's block (`ch1`, `ch2`, `ch3` with
/// -1 for none and 0xFF for ZWJ), the composed offset, and the scripts it applies to.
const DECOMPOSITIONS: [(i32, i32, i32, u32, u16); 72] = [
    (0x05, 0x3E, 0x45, 0x11, DEVANAGARI | GUJARATI),
    (0x05, 0x3E, 0x46, 0x12, DEVANAGARI),
    (0x05, 0x3E, 0x47, 0x13, DEVANAGARI | GUJARATI),
    (0x05, 0x3E, 0x48, 0x14, DEVANAGARI | GUJARATI),
    (0x05, 0x3E, -1, 0x06, DEVANAGARI | BENGALI | GURMUKHI | GUJARATI | ORIYA),
    (0x05, 0x45, -1, 0x72, DEVANAGARI),
    (0x05, 0x45, -1, 0x0D, GUJARATI),
    (0x05, 0x46, -1, 0x04, DEVANAGARI),
    (0x05, 0x47, -1, 0x0F, GUJARATI),
    (0x05, 0x48, -1, 0x10, GURMUKHI | GUJARATI),
    (0x05, 0x49, -1, 0x11, DEVANAGARI | GUJARATI),
    (0x05, 0x4A, -1, 0x12, DEVANAGARI),
    (0x05, 0x4B, -1, 0x13, DEVANAGARI | GUJARATI),
    (0x05, 0x4C, -1, 0x14, DEVANAGARI | GURMUKHI | GUJARATI),
    (0x06, 0x45, -1, 0x11, DEVANAGARI | GUJARATI),
    (0x06, 0x46, -1, 0x12, DEVANAGARI),
    (0x06, 0x47, -1, 0x13, DEVANAGARI | GUJARATI),
    (0x06, 0x48, -1, 0x14, DEVANAGARI | GUJARATI),
    (0x07, 0x57, -1, 0x08, MALAYALAM),
    (0x09, 0x41, -1, 0x0A, DEVANAGARI),
    (0x09, 0x57, -1, 0x0A, TAMIL | MALAYALAM),
    (0x0E, 0x46, -1, 0x10, MALAYALAM),
    (0x0F, 0x45, -1, 0x0D, DEVANAGARI),
    (0x0F, 0x46, -1, 0x0E, DEVANAGARI),
    (0x0F, 0x47, -1, 0x10, DEVANAGARI),
    (0x0F, 0x57, -1, 0x10, ORIYA),
    (0x12, 0x3E, -1, 0x13, MALAYALAM),
    (0x12, 0x4C, -1, 0x14, TELUGU | KANNADA),
    (0x12, 0x55, -1, 0x13, TELUGU),
    (0x12, 0x57, -1, 0x14, TAMIL | MALAYALAM),
    (0x13, 0x57, -1, 0x14, ORIYA),
    (0x15, 0x3C, -1, 0x58, DEVANAGARI),
    (0x16, 0x3C, -1, 0x59, DEVANAGARI | GURMUKHI),
    (0x17, 0x3C, -1, 0x5A, DEVANAGARI | GURMUKHI),
    (0x1C, 0x3C, -1, 0x5B, DEVANAGARI | GURMUKHI),
    (0x21, 0x3C, -1, 0x5C, DEVANAGARI | BENGALI | ORIYA),
    (0x22, 0x3C, -1, 0x5D, DEVANAGARI | BENGALI | ORIYA),
    (0x23, 0x4D, 0xFF, 0x7A, MALAYALAM),
    (0x24, 0x4D, 0xFF, 0x4E, BENGALI),
    (0x28, 0x3C, -1, 0x29, DEVANAGARI),
    (0x28, 0x4D, 0xFF, 0x7B, MALAYALAM),
    (0x2B, 0x3C, -1, 0x5E, DEVANAGARI | GURMUKHI),
    (0x2F, 0x3C, -1, 0x5F, DEVANAGARI | BENGALI),
    (0x2C, 0x41, 0x41, 0x0B, TELUGU),
    (0x30, 0x3C, -1, 0x31, DEVANAGARI),
    (0x30, 0x4D, 0xFF, 0x7C, MALAYALAM),
    (0x32, 0x4D, 0xFF, 0x7D, MALAYALAM),
    (0x33, 0x3C, -1, 0x34, DEVANAGARI),
    (0x33, 0x4D, 0xFF, 0x7E, MALAYALAM),
    (0x35, 0x41, -1, 0x2E, TELUGU),
    (0x3E, 0x45, -1, 0x49, DEVANAGARI | GUJARATI),
    (0x3E, 0x46, -1, 0x4A, DEVANAGARI),
    (0x3E, 0x47, -1, 0x4B, DEVANAGARI | GUJARATI),
    (0x3E, 0x48, -1, 0x4C, DEVANAGARI | GUJARATI),
    (0x3F, 0x55, -1, 0x40, KANNADA),
    (0x41, 0x41, -1, 0x42, GURMUKHI),
    (0x46, 0x3E, -1, 0x4A, TAMIL | MALAYALAM),
    (0x46, 0x42, 0x55, 0x4B, KANNADA),
    (0x46, 0x42, -1, 0x4A, KANNADA),
    (0x46, 0x46, -1, 0x48, MALAYALAM),
    (0x46, 0x55, -1, 0x47, TELUGU | KANNADA),
    (0x46, 0x56, -1, 0x48, TELUGU | KANNADA),
    (0x46, 0x57, -1, 0x4C, TAMIL | MALAYALAM),
    (0x47, 0x3E, -1, 0x4B, BENGALI | ORIYA | TAMIL | MALAYALAM),
    (0x47, 0x57, -1, 0x4C, BENGALI | ORIYA),
    (0x4A, 0x55, -1, 0x4B, KANNADA),
    (0x72, 0x3F, -1, 0x07, GURMUKHI),
    (0x72, 0x40, -1, 0x08, GURMUKHI),
    (0x72, 0x47, -1, 0x0F, GURMUKHI),
    (0x73, 0x41, -1, 0x09, GURMUKHI),
    (0x73, 0x42, -1, 0x0A, GURMUKHI),
    (0x73, 0x4B, -1, 0x13, GURMUKHI),
];

/// The Unicode block of `c` among the nine Indic ones (U+0900..U+0D7F, 0x80 each): its script
/// index (0 Devanagari … 8 Malayalam).
fn indic_block(c: char) -> Option<u32> {
    let c = c as u32;
    (0x0900..0x0D80).contains(&c).then(|| (c - 0x0900) / 0x80)
}

/// Lucene's `IndicNormalizer.normalize`: composes the decomposed forms of the table.
pub fn indic_normalize(term: &str) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let mut pos = 0;
    while pos < s.len() {
        if let Some(block) = indic_block(s[pos]) {
            compose(&mut s, pos, block);
        }
        pos += 1;
    }
    s.into_iter().collect()
}

fn compose(s: &mut Vec<char>, pos: usize, block: u32) {
    let base = 0x0900 + block * 0x80;
    let flag = 1u16 << block;
    let offset = |c: char| c as i32 - base as i32;
    let ch0 = offset(s[pos]);
    if !DECOMPOSITIONS.iter().any(|d| d.0 == ch0 && d.4 & flag != 0) || pos + 1 >= s.len() {
        return;
    }
    if indic_block(s[pos + 1]) != Some(block) {
        return;
    }
    let ch1 = offset(s[pos + 1]);
    let ch2 = match s.get(pos + 2) {
        None => -1,
        Some('\u{200D}') => 0xFF,
        Some(&c) if indic_block(c) != Some(block) => -1,
        Some(&c) => offset(c),
    };
    for (d0, d1, d2, composed, flags) in DECOMPOSITIONS {
        if d0 == ch0 && flags & flag != 0 && d1 == ch1 && (d2 < 0 || d2 == ch2) {
            s[pos] = char::from_u32(base + composed).unwrap_or(s[pos]);
            s.remove(pos + 1);
            if d2 >= 0 {
                s.remove(pos + 1);
            }
            return;
        }
    }
}

/// Lucene's `HindiNormalizer.normalize`.
pub fn hindi_normalize(term: &str) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let mut i = 0;
    while i < s.len() {
        let replacement = match s[i] {
            '\u{0928}' => {
                if s.get(i + 1) == Some(&'\u{094D}') {
                    s[i] = '\u{0902}';
                    s.remove(i + 1);
                }
                None
            }
            '\u{0901}' => Some('\u{0902}'),
            '\u{093C}' | '\u{200D}' | '\u{200C}' | '\u{094D}' => {
                s.remove(i);
                continue;
            }
            '\u{0929}' => Some('\u{0928}'),
            '\u{0931}' => Some('\u{0930}'),
            '\u{0934}' => Some('\u{0933}'),
            '\u{0958}' => Some('\u{0915}'),
            '\u{0959}' => Some('\u{0916}'),
            '\u{095A}' => Some('\u{0917}'),
            '\u{095B}' => Some('\u{091C}'),
            '\u{095C}' => Some('\u{0921}'),
            '\u{095D}' => Some('\u{0922}'),
            '\u{095E}' => Some('\u{092B}'),
            '\u{095F}' => Some('\u{092F}'),
            '\u{0945}' | '\u{0946}' => Some('\u{0947}'),
            '\u{0949}' | '\u{094A}' => Some('\u{094B}'),
            '\u{090D}' | '\u{090E}' => Some('\u{090F}'),
            '\u{0911}' | '\u{0912}' => Some('\u{0913}'),
            '\u{0972}' => Some('\u{0905}'),
            '\u{0906}' => Some('\u{0905}'),
            '\u{0908}' => Some('\u{0907}'),
            '\u{090A}' => Some('\u{0909}'),
            '\u{0960}' => Some('\u{090B}'),
            '\u{0961}' => Some('\u{090C}'),
            '\u{0910}' => Some('\u{090F}'),
            '\u{0914}' => Some('\u{0913}'),
            '\u{0940}' => Some('\u{093F}'),
            '\u{0942}' => Some('\u{0941}'),
            '\u{0944}' => Some('\u{0943}'),
            '\u{0963}' => Some('\u{0962}'),
            '\u{0948}' => Some('\u{0947}'),
            '\u{094C}' => Some('\u{094B}'),
            _ => None,
        };
        if let Some(c) = replacement {
            s[i] = c;
        }
        i += 1;
    }
    s.into_iter().collect()
}

const HASANTA: char = '\u{09CD}';

/// Lucene's `BengaliNormalizer.normalize` (index arithmetic kept as Lucene's, signed).
pub fn bengali_normalize(term: &str) -> String {
    let mut s: Vec<char> = term.chars().collect();
    let mut i: isize = 0;
    // `i` only steps back right after removing characters, so the loop ends
    while i >= 0 && (i as usize) < s.len() {
        let u = i as usize;
        match s[u] {
            '\u{0981}' => {
                s.remove(u);
                i -= 1;
            }
            '\u{09C0}' => s[u] = '\u{09BF}',
            '\u{09C2}' => s[u] = '\u{09C1}',
            '\u{0995}' if u + 2 < s.len() && s[u + 1] == HASANTA && s[u + 2] == '\u{09BF}' => {
                if u == 0 {
                    s[u] = '\u{0996}';
                    s.remove(u + 2);
                    s.remove(u + 1);
                } else {
                    s[u + 1] = '\u{0996}';
                    s.remove(u + 2);
                }
            }
            '\u{0999}' => s[u] = '\u{0982}',
            '\u{09AF}' => {
                if u == 2 && s[u - 1] == HASANTA {
                    s[u - 1] = '\u{09C7}';
                    if u + 1 < s.len() && s[u + 1] == '\u{09BE}' {
                        s.remove(u + 1);
                    }
                    s.remove(u);
                    i -= 1;
                } else if u >= 1 && s[u - 1] == HASANTA {
                    s.remove(u);
                    s.remove(u - 1);
                    i -= 2;
                }
            }
            '\u{09AC}' if u >= 1 && s[u - 1] == HASANTA => {
                if u == 2 || (u >= 5 && s[u - 3] == HASANTA) {
                    s.remove(u);
                    s.remove(u - 1);
                    i -= 2;
                } else if u >= 2 {
                    s[u - 1] = s[u - 2];
                    s.remove(u);
                    i -= 1;
                }
            }
            '\u{0983}' => {
                if u + 1 == s.len() {
                    if s.len() <= 3 {
                        s[u] = '\u{09B9}';
                    } else {
                        s.remove(u);
                    }
                } else {
                    s[u] = s[u + 1];
                }
            }
            '\u{09B6}' | '\u{09B7}' => s[u] = '\u{09B8}',
            '\u{09A3}' => s[u] = '\u{09A8}',
            '\u{09DC}' | '\u{09DD}' => s[u] = '\u{09B0}',
            '\u{09CE}' => s[u] = '\u{09A4}',
            _ => {}
        }
        i += 1;
    }
    s.into_iter().collect()
}

/// `BengaliStemmer`'s suffix groups, tried in order: (the term must be longer than, chars
/// removed, suffixes). Generated from the Lucene class's string constants.
const BENGALI_SUFFIXES: [(usize, usize, &[&str]); 8] = [
    (
        9,
        8,
        &[
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B2}\u{09BE}\u{09AE}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09BE}\u{09AE}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
            "\u{0987}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
            "\u{0987}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
        ],
    ),
    (
        8,
        7,
        &[
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09BF}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09C7}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B2}\u{09BE}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B2}\u{09C7}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09BE}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B2}\u{09BF}",
            "\u{09DF}\u{09C7}\u{09A6}\u{09C7}\u{09B0}\u{0995}\u{09C7}",
        ],
    ),
    (
        7,
        6,
        &[
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}\u{09B8}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}\u{09B8}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09C7}\u{09A8}",
            "\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09BE}\u{09AE}",
            "\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
            "\u{09C7}\u{09A6}\u{09C7}\u{09B0}\u{0995}\u{09C7}",
        ],
    ),
    (
        6,
        5,
        &[
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BF}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09BE}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}\u{09C7}",
            "\u{099B}\u{09BF}\u{09B2}\u{09BE}\u{09AE}",
            "\u{099B}\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BF}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09BE}",
            "\u{09BF}\u{09DF}\u{09BE}\u{099B}\u{09C7}",
            "\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09C7}",
            "\u{09C7}\u{099B}\u{09BF}\u{09B2}\u{09BE}",
            "\u{09DF}\u{09C7}\u{09A6}\u{09C7}\u{09B0}",
            "\u{09A6}\u{09C7}\u{09B0}\u{0995}\u{09C7}",
        ],
    ),
    (
        5,
        4,
        &[
            "\u{09BF}\u{09B2}\u{09BE}\u{09AE}",
            "\u{09BF}\u{09B2}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09A4}\u{09BE}\u{09AE}",
            "\u{09BF}\u{09A4}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09AC}\u{09C7}\u{09A8}",
            "\u{099B}\u{09BF}\u{09B2}\u{09BF}",
            "\u{099B}\u{09BF}\u{09B2}\u{09C7}",
            "\u{099B}\u{09BF}\u{09B2}\u{09BE}",
            "\u{09A4}\u{09C7}\u{099B}\u{09C7}",
            "\u{09BF}\u{09A4}\u{09C7}\u{099B}",
            "\u{0996}\u{09BE}\u{09A8}\u{09BE}",
            "\u{0996}\u{09BE}\u{09A8}\u{09BF}",
            "\u{0997}\u{09C1}\u{09B2}\u{09CB}",
            "\u{0997}\u{09C1}\u{09B2}\u{09BF}",
            "\u{09DF}\u{09C7}\u{09B0}\u{09BE}",
            "\u{09C7}\u{09A6}\u{09C7}\u{09B0}",
        ],
    ),
    (
        4,
        3,
        &[
            "\u{09B2}\u{09BE}\u{09AE}",
            "\u{09BF}\u{09B2}\u{09BF}",
            "\u{0987}\u{09B2}\u{09BF}",
            "\u{09BF}\u{09B2}\u{09C7}",
            "\u{0987}\u{09B2}\u{09C7}",
            "\u{09B2}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09B2}\u{09BE}",
            "\u{0987}\u{09B2}\u{09BE}",
            "\u{09A4}\u{09BE}\u{09AE}",
            "\u{09BF}\u{09A4}\u{09BF}",
            "\u{0987}\u{09A4}\u{09BF}",
            "\u{09BF}\u{09A4}\u{09C7}",
            "\u{0987}\u{09A4}\u{09C7}",
            "\u{09A4}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09A4}\u{09BE}",
            "\u{09BF}\u{09AC}\u{09BE}",
            "\u{0987}\u{09AC}\u{09BE}",
            "\u{09BF}\u{09AC}\u{09BF}",
            "\u{0987}\u{09AC}\u{09BF}",
            "\u{09AC}\u{09C7}\u{09A8}",
            "\u{09BF}\u{09AC}\u{09C7}",
            "\u{0987}\u{09AC}\u{09C7}",
            "\u{099B}\u{09C7}\u{09A8}",
            "\u{09DF}\u{09CB}\u{09A8}",
            "\u{09DF}\u{09C7}\u{09B0}",
            "\u{09C7}\u{09B0}\u{09BE}",
            "\u{09A6}\u{09C7}\u{09B0}",
        ],
    ),
    (
        3,
        2,
        &[
            "\u{09BF}\u{09B8}",
            "\u{09C7}\u{09A8}",
            "\u{09B2}\u{09BF}",
            "\u{09B2}\u{09C7}",
            "\u{09B2}\u{09BE}",
            "\u{09A4}\u{09BF}",
            "\u{09A4}\u{09C7}",
            "\u{09A4}\u{09BE}",
            "\u{09AC}\u{09BF}",
            "\u{09AC}\u{09C7}",
            "\u{09AC}\u{09BE}",
            "\u{099B}\u{09BF}",
            "\u{099B}\u{09BE}",
            "\u{099B}\u{09C7}",
            "\u{09C1}\u{09A8}",
            "\u{09C1}\u{0995}",
            "\u{099F}\u{09BE}",
            "\u{099F}\u{09BF}",
            "\u{09A8}\u{09BF}",
            "\u{09C7}\u{09B0}",
            "\u{09A4}\u{09C7}",
            "\u{09B0}\u{09BE}",
            "\u{0995}\u{09C7}",
        ],
    ),
    (2, 1, &["\u{09BF}", "\u{09C0}", "\u{09BE}", "\u{09CB}", "\u{09C7}", "\u{09AC}", "\u{09A4}"]),
];

/// Lucene's `BengaliStemmer.stem`: removes the first suffix of the first group that matches.
pub fn bengali_stem(term: &str) -> String {
    let chars: Vec<char> = term.chars().collect();
    for (longer_than, remove, suffixes) in BENGALI_SUFFIXES {
        if chars.len() > longer_than
            && suffixes.iter().any(|suffix| chars.ends_with(&suffix.chars().collect::<Vec<_>>()))
        {
            return chars[..chars.len() - remove].iter().collect();
        }
    }
    term.to_owned()
}

fn normalization(name: &'static str, normalize: fn(&str) -> String, honours_keyword: bool) -> TokenOp {
    TokenOp::new(name, true, move |token: &mut TokenState| {
        if !(honours_keyword && token.keyword) {
            token.term = normalize(&token.term);
        }
        true
    })
}

/// The `indic_normalization` filter.
pub fn indic_normalization() -> TokenOp {
    normalization("indic_normalization", indic_normalize, false)
}

/// The `hindi_normalization` filter (keyword-marked tokens are left alone, as in Lucene).
pub fn hindi_normalization() -> TokenOp {
    normalization("hindi_normalization", hindi_normalize, true)
}

/// The `bengali_normalization` filter (keyword-marked tokens are left alone, as in Lucene).
pub fn bengali_normalization() -> TokenOp {
    normalization("bengali_normalization", bengali_normalize, true)
}

#[cfg(test)]
mod tests;
