//! Character classes the tokenizers need: the UAX #29 word-break class of a character (asked of
//! the `unicode-segmentation` crate itself, so the two can never disagree) and the script and
//! line-break properties Lucene's grammar adds on top (Han, Hiragana, Hangul, Complex_Context).

use std::sync::atomic::{AtomicU8, Ordering};

use unicode_segmentation::UnicodeSegmentation;

/// The word-break classes the standard tokenizer distinguishes (a coarsening of UAX #29's
/// `Word_Break` property: Hebrew_Letter is folded into `Letter`, the Mid classes and the
/// breaking classes into `Other`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WordClass {
    /// ALetter or Hebrew_Letter.
    Letter,
    /// Numeric.
    Numeric,
    /// Katakana.
    Katakana,
    /// ExtendNumLet (`_` and connector punctuation).
    ExtendNumLet,
    /// Extend, Format or ZWJ: attaches to the character before it (WB4).
    Extend,
    /// Regional_Indicator (flag halves).
    RegionalIndicator,
    /// Extended_Pictographic (emoji and pictographs, including `©`, `®`, `™`).
    Pictographic,
    /// Anything else: whitespace, punctuation, symbols, Han, Hiragana, Complex_Context letters.
    Other,
}

const CLASSES: [WordClass; 8] = [
    WordClass::Letter,
    WordClass::Numeric,
    WordClass::Katakana,
    WordClass::ExtendNumLet,
    WordClass::Extend,
    WordClass::RegionalIndicator,
    WordClass::Pictographic,
    WordClass::Other,
];

/// Lazily filled cache of [`word_class`] for the BMP: 0 = not computed yet, else index + 1.
/// Races are benign: every thread computes the same value.
static BMP_CACHE: [AtomicU8; 0x1_0000] = [const { AtomicU8::new(0) }; 0x1_0000];

/// True when `s` is a single UAX #29 word segment.
fn one_segment(s: &str) -> bool {
    let mut bounds = s.split_word_bounds();
    bounds.next().is_some_and(|first| first.len() == s.len())
}

/// The word-break class of `c`, derived from how the segmenter joins it with probe characters:
/// WB6/7 join a letter with `.a`, WB11/12 a digit with `.0`; WB13 joins katakana, WB15 regional
/// indicators, WB3c pictographs after a ZWJ; WB4 attaches Extend/Format/ZWJ to a preceding letter
/// and WB13a/b join `_` on both sides. Computed once per BMP character, then cached.
pub(crate) fn word_class(c: char) -> WordClass {
    if c.is_ascii() {
        return ascii_word_class(c as u8);
    }
    let code = c as usize;
    if let Some(slot) = BMP_CACHE.get(code) {
        let cached = slot.load(Ordering::Relaxed);
        if let Some(class) = cached.checked_sub(1).and_then(|i| CLASSES.get(usize::from(i))) {
            return *class;
        }
        let class = probe_word_class(c);
        let index = CLASSES.iter().position(|k| *k == class).expect("every class is listed in CLASSES");
        slot.store(index as u8 + 1, Ordering::Relaxed);
        return class;
    }
    probe_word_class(c)
}

fn probe_word_class(c: char) -> WordClass {
    let mut buf = [0u8; 16];
    let mut probe = |before: &str, after: &str| -> bool {
        let mut len = 0;
        for part in [before, c.encode_utf8(&mut [0u8; 4]), after] {
            buf[len..len + part.len()].copy_from_slice(part.as_bytes());
            len += part.len();
        }
        one_segment(std::str::from_utf8(&buf[..len]).expect("concatenation of str is UTF-8"))
    };
    if probe("", ".a") {
        WordClass::Letter
    } else if probe("", ".0") {
        WordClass::Numeric
    } else if probe("a", "") {
        // Joins after a letter: Extend/Format/ZWJ (WB4) or ExtendNumLet (WB13a); only the latter
        // also joins a following letter (WB13b).
        if probe("", "a") {
            WordClass::ExtendNumLet
        } else {
            WordClass::Extend
        }
    } else if probe("\u{30A2}", "") {
        WordClass::Katakana
    } else if probe("\u{1F1E6}", "") {
        WordClass::RegionalIndicator
    } else if probe("\u{200D}", "") {
        WordClass::Pictographic
    } else {
        WordClass::Other
    }
}

/// The ASCII part of the `Word_Break` property (WordBreakProperty.txt) as the fast path sees it.
pub(crate) fn ascii_word_class(b: u8) -> WordClass {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => WordClass::Letter,
        b'0'..=b'9' => WordClass::Numeric,
        b'_' => WordClass::ExtendNumLet,
        _ => WordClass::Other,
    }
}

/// `Script=Han` (Lucene's `\p{Script:Han}`): each such character is one `<IDEOGRAPHIC>` token.
pub(crate) fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2E99 | 0x2E9B..=0x2EF3 | 0x2F00..=0x2FD5 | 0x3005 | 0x3007 | 0x3021..=0x3029
        | 0x3038..=0x303B | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFA6D | 0xFA70..=0xFAD9
        | 0x16FE2..=0x16FE3 | 0x16FF0..=0x16FF1 | 0x20000..=0x2A6DF | 0x2A700..=0x2EE5D
        | 0x2F800..=0x2FA1D | 0x30000..=0x323AF)
}

/// `Script=Hiragana`: each such character is one `<HIRAGANA>` token.
pub(crate) fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3041..=0x3096 | 0x309D..=0x309F | 0x1B001..=0x1B11F | 0x1B132 | 0x1B150..=0x1B152 | 0x1F200)
}

/// `Script=Hangul` (to be intersected with [`WordClass::Letter`]): runs are `<HANGUL>` tokens.
pub(crate) fn is_hangul(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x302E..=0x302F | 0x3131..=0x318E | 0x3200..=0x321E | 0x3260..=0x327E
        | 0xA960..=0xA97C | 0xAC00..=0xD7A3 | 0xD7B0..=0xD7C6 | 0xD7CB..=0xD7FB | 0xFFA0..=0xFFDC)
}

/// `Line_Break=Complex_Context` (SA: Thai, Lao, Myanmar, Khmer, Tai scripts, Ahom), from
/// LineBreak.txt without the digits and punctuation of those blocks. Runs of them are one
/// `<SOUTHEAST_ASIAN>` token, as in ICU and Lucene.
pub(crate) fn is_complex_context(c: char) -> bool {
    matches!(c as u32,
        0x0E01..=0x0E3A | 0x0E40..=0x0E4E | 0x0E81..=0x0ECF | 0x0EDC..=0x0EDF
        | 0x1000..=0x103F | 0x1050..=0x108F | 0x109A..=0x109F
        | 0x1780..=0x17D3 | 0x17D7 | 0x17DC..=0x17DD
        | 0x1950..=0x196D | 0x1970..=0x1974 | 0x1980..=0x19AB | 0x19B0..=0x19C9 | 0x19DA | 0x19DE..=0x19DF
        | 0x1A20..=0x1A5E | 0x1A60..=0x1A7C | 0x1AA0..=0x1AAD
        | 0xA9E0..=0xA9EF | 0xA9FA..=0xA9FE | 0xAA60..=0xAAC2 | 0xAADB..=0xAADF
        | 0x11700..=0x1171A | 0x1171D..=0x1172B | 0x1173A..=0x1173B | 0x1173F..=0x11746)
}

/// `Emoji_Modifier` (skin tones): a lone one is an `<EMOJI>` token in Lucene's grammar.
pub(crate) fn is_emoji_modifier(c: char) -> bool {
    matches!(c as u32, 0x1F3FB..=0x1F3FF)
}

/// Java's `Character.isLetter` (general category L*), approximated from std's `Alphabetic`
/// without numbers (Nl), combining marks (Other_Alphabetic marks are WB Extend) and the circled
/// and squared letter symbols (So with Other_Alphabetic).
pub(crate) fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    c.is_alphabetic()
        && !c.is_numeric()
        && !matches!(c as u32, 0x24B6..=0x24E9 | 0x1F130..=0x1F149 | 0x1F150..=0x1F169 | 0x1F170..=0x1F189)
        && word_class(c) != WordClass::Extend
}

/// Java's `Character.isWhitespace`: space separators except the no-break ones, and the ASCII and
/// information-separator controls.
pub(crate) fn is_java_whitespace(c: char) -> bool {
    match c {
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{1C}'..='\u{1F}' => true,
        '\u{00A0}' | '\u{2007}' | '\u{202F}' => false,
        _ => {
            matches!(c, ' ' | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{205F}' | '\u{3000}')
        }
    }
}
