//! Lucene's `StandardTokenizer`: UAX #29 word boundaries, keeping the segments that contain
//! letters, digits, ideographs, kana, Southeast Asian letters or emoji, typed as Lucene types them.
//!
//! How Lucene's JFlex grammar (`StandardTokenizerImpl.jflex`) maps onto the segments of the
//! `unicode-segmentation` crate:
//! - a segment containing a letter, digit or katakana (joined by WB5–WB13b) is one token:
//!   `<NUM>` when it has no letter or katakana, `<HANGUL>`/`<KATAKANA>` when every character is a
//!   Hangul letter/katakana (ignoring Extend/Format/ZWJ), `<ALPHANUM>` otherwise; `_` alone is not
//!   a token;
//! - each Han or Hiragana character (with its Extend marks) is an `<IDEOGRAPHIC>`/`<HIRAGANA>`
//!   token (WB999);
//! - a run of `Line_Break=Complex_Context` characters (Thai, Lao, Khmer, Myanmar...) and their
//!   marks is one `<SOUTHEAST_ASIAN>` token, spanning several UAX #29 segments as in ICU;
//! - pictographs with their modifiers and ZWJ sequences, keycaps (`#⃣`, `1️⃣`), flag pairs and
//!   lone skin-tone modifiers are `<EMOJI>`; a text presentation selector (U+FE0E) ends the token;
//! - everything else (whitespace, punctuation, symbols, a lone regional indicator) is dropped.
//!
//! After each token the scan restarts from scratch at its end, as JFlex does.
//!
//! `max_token_length` counts UTF-16 code units (Java chars), like Lucene: a longer token is cut to
//! the longest token that fits in that many units from its start (JFlex's buffer), and scanning
//! restarts right after it (`jumped` with 5 gives `jumpe`, `d`).
//!
//! ASCII stretches take a byte-level fast path that implements the ASCII subset of the same rules
//! (letters, digits, `_`, and `: . '` between letters, `, ; . '` between digits) and hands over
//! to the general path for any token a non-ASCII character could touch; property tests check it
//! against the general path on ASCII and on mixed text.
//!
//! Known divergence: the Unicode data is the crate's (Unicode 16) rather than Lucene 9's JFlex
//! tables (Unicode 12.1), so characters assigned or reclassified since differ.

use unicode_segmentation::UnicodeSegmentation;

use super::char_classes::{
    ascii_word_class, is_complex_context, is_emoji_modifier, is_han, is_hangul, is_hiragana, word_class, WordClass,
};
use super::token_stream::{TokenState, TokenStream};

/// Lucene's default `max_token_length`.
pub const DEFAULT_MAX_TOKEN_LENGTH: usize = 255;
/// Lucene's upper bound for `max_token_length` (1 Mi chars).
pub const MAX_TOKEN_LENGTH_LIMIT: usize = 1024 * 1024;

/// The token types of Lucene's `StandardTokenizer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenType {
    /// `<ALPHANUM>`: letters, possibly with digits.
    AlphaNum,
    /// `<NUM>`: a number.
    Num,
    /// `<SOUTHEAST_ASIAN>`: a run of Thai, Lao, Myanmar, Khmer... characters.
    SoutheastAsian,
    /// `<IDEOGRAPHIC>`: one Han character.
    Ideographic,
    /// `<HIRAGANA>`: one hiragana character.
    Hiragana,
    /// `<KATAKANA>`: a run of katakana.
    Katakana,
    /// `<HANGUL>`: a run of Hangul.
    Hangul,
    /// `<EMOJI>`: an emoji or emoji sequence.
    Emoji,
}

impl TokenType {
    /// The type name Lucene and OpenSearch report.
    pub fn name(self) -> &'static str {
        match self {
            TokenType::AlphaNum => "<ALPHANUM>",
            TokenType::Num => "<NUM>",
            TokenType::SoutheastAsian => "<SOUTHEAST_ASIAN>",
            TokenType::Ideographic => "<IDEOGRAPHIC>",
            TokenType::Hiragana => "<HIRAGANA>",
            TokenType::Katakana => "<KATAKANA>",
            TokenType::Hangul => "<HANGUL>",
            TokenType::Emoji => "<EMOJI>",
        }
    }
}

/// A token found by a scan: byte range and type.
type Found = (usize, usize, TokenType);

/// The standard tokenizer over one text value.
#[derive(Debug)]
pub struct StandardTokenizer<'a> {
    text: &'a str,
    pos: usize,
    max_token_length: usize,
    /// False to force the general path (tests); true to take the ASCII path wherever it applies.
    ascii_fast_path: bool,
    /// End of the UAX #29 segment known to hold no token of its own that the scan is inside
    /// (0 when none): positions before it are scanned character by character (see
    /// [`inner_token`]) instead of asking the segmenter again, which keeps long runs linear.
    inside_until: usize,
    /// End of a token segment longer than `max_token_length` that the scan is inside (0 when
    /// none): there every scan is limited to a window of `max_token_length` units from where it
    /// starts, as JFlex's buffer limits it, so splitting a huge token stays linear.
    long_until: usize,
}

impl<'a> StandardTokenizer<'a> {
    /// A tokenizer over `text`; `max_token_length` (UTF-16 units) is clamped to
    /// `1..=MAX_TOKEN_LENGTH_LIMIT` (settings validation rejects values outside it).
    pub fn new(text: &'a str, max_token_length: usize) -> Self {
        StandardTokenizer {
            text,
            pos: 0,
            max_token_length: max_token_length.clamp(1, MAX_TOKEN_LENGTH_LIMIT),
            ascii_fast_path: true,
            inside_until: 0,
            long_until: 0,
        }
    }

    /// Forces the general (Unicode) path even for ASCII text; for tests.
    pub fn with_general_path(mut self) -> Self {
        self.ascii_fast_path = false;
        self
    }

    /// The next token as (start byte, end byte, type).
    pub fn next_token(&mut self) -> Option<Found> {
        let text = self.text;
        loop {
            if self.pos < self.long_until {
                // JFlex's view: the longest token that fits in the window from here, or skip one
                // character (a token starting later is tried with its own window then).
                let from = self.pos;
                let window = window_end(text, from, self.max_token_length);
                match self.scan(&text[..window], from) {
                    Some((s, e, k)) if s == from => {
                        self.pos = e;
                        return Some((s, e, k));
                    }
                    _ => self.pos = from + text[from..].chars().next().map_or(1, char::len_utf8),
                }
                continue;
            }
            let (start, end, kind) = self.scan(text, self.pos)?;
            if utf16_len_at_most(&text[start..end], self.max_token_length) {
                self.pos = end;
                return Some((start, end, kind));
            }
            self.long_until = end;
            self.pos = start;
        }
    }

    fn scan(&mut self, text: &str, from: usize) -> Option<Found> {
        let truncated = text.len() < self.text.len();
        if !self.ascii_fast_path {
            return scan_general(text, from, truncated, &mut self.inside_until);
        }
        match scan_ascii(text.as_bytes(), from) {
            AsciiScan::Token(found) => Some(found),
            AsciiScan::End => None,
            AsciiScan::NonAscii(at) => scan_general(text, at, truncated, &mut self.inside_until),
        }
    }
}

impl TokenStream for StandardTokenizer<'_> {
    fn increment_token(&mut self, token: &mut TokenState) -> bool {
        match self.next_token() {
            Some((start, end, kind)) => {
                token.set(&self.text[start..end], start, end, kind.name());
                true
            }
            None => false,
        }
    }
}

/// True when `s` is at most `max` UTF-16 code units long.
fn utf16_len_at_most(s: &str, max: usize) -> bool {
    // A UTF-16 length is at most the byte length: skip the count for short tokens.
    s.len() <= max || s.chars().map(char::len_utf16).sum::<usize>() <= max
}

/// The byte offset `max` UTF-16 units after `start` (rounded down to a character boundary).
fn window_end(text: &str, start: usize, max: usize) -> usize {
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        units += c.len_utf16();
        if units > max {
            return start + i;
        }
    }
    text.len()
}

/// What the ASCII path found.
enum AsciiScan {
    Token(Found),
    End,
    /// A non-ASCII byte could take part in the next token: scan with the general path from this
    /// (ASCII, so character-boundary) offset.
    NonAscii(usize),
}

/// The ASCII fast path: the first token at or after `from`, as long as every byte that decides it
/// (the token, the byte after it and, after a mid character, the one after that) is ASCII.
/// Otherwise it hands over to the general path: from the token's start, or from the skipped
/// character before a non-ASCII one (which may start a keycap `#⃣` with it). Every skipped ASCII
/// character is a fresh start in Lucene too, so the hand-over loses no context.
fn scan_ascii(bytes: &[u8], from: usize) -> AsciiScan {
    let is_start = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = from;
    loop {
        while i < bytes.len() && !is_start(bytes[i]) {
            if !bytes[i].is_ascii() {
                return AsciiScan::NonAscii(if i > from { i - 1 } else { i });
            }
            i += 1;
        }
        if i >= bytes.len() {
            return AsciiScan::End;
        }
        let start = i;
        let (mut letter, mut digit) = (false, false);
        while let Some(&b) = bytes.get(i) {
            match ascii_word_class(b) {
                WordClass::Letter => letter = true,
                WordClass::Numeric => digit = true,
                _ => {}
            }
            i += 1;
            let (Some(&next), after) = (bytes.get(i), bytes.get(i + 1).copied()) else { break };
            if !next.is_ascii()
                || after.is_some_and(|a| !a.is_ascii() && matches!(next, b':' | b'.' | b'\'' | b',' | b';'))
            {
                return AsciiScan::NonAscii(start);
            }
            if is_start(next) {
                continue; // WB5, WB8, WB9, WB10, WB13a, WB13b
            }
            let joins = match (ascii_word_class(b), after.map(ascii_word_class)) {
                // WB6, WB7: MidLetter `:`, MidNumLet `.`, Single_Quote `'` between letters.
                (WordClass::Letter, Some(WordClass::Letter)) => matches!(next, b':' | b'.' | b'\''),
                // WB11, WB12: MidNum `,` `;`, MidNumLet `.`, Single_Quote `'` between digits.
                (WordClass::Numeric, Some(WordClass::Numeric)) => matches!(next, b',' | b';' | b'.' | b'\''),
                _ => false,
            };
            if !joins {
                break;
            }
            i += 1;
        }
        if letter {
            return AsciiScan::Token((start, i, TokenType::AlphaNum));
        }
        if digit {
            return AsciiScan::Token((start, i, TokenType::Num));
        }
        // Only `_`: not a token.
    }
}

/// The general path: the first token at or after `from` in `text`.
///
/// JFlex skips a character that starts no token and tries again at the next one, so a
/// multi-character segment that is not a token (`" \u{200D}⭕"` joined by WB4 and WB3c, `_` with
/// marks) may still hold tokens after its first character; those are found by [`inner_token`],
/// and `inside_until` remembers the segment's end across calls. When `text` is a window cut
/// from a longer value (`truncated`), a segment reaching its end may be cut short, so it is not
/// remembered: its second character is simply scanned afresh.
fn scan_general(text: &str, from: usize, truncated: bool, inside_until: &mut usize) -> Option<Found> {
    let mut pos = from;
    'restart: loop {
        if pos < *inside_until {
            let segment_end = (*inside_until).min(text.len());
            if let Some(found) = inner_token(text, pos, segment_end) {
                return Some(found);
            }
            if *inside_until > text.len() {
                return None; // the segment goes on past this window
            }
            pos = segment_end;
            *inside_until = 0;
        }
        for (offset, segment) in text[pos..].split_word_bound_indices() {
            let start = pos + offset;
            if let Some((len, kind)) = classify(segment, &text[start..]) {
                return Some((start, start + len, kind));
            }
            let first_len = segment.chars().next().map_or(segment.len(), char::len_utf8);
            if first_len < segment.len() {
                if !(truncated && start + segment.len() == text.len()) {
                    *inside_until = start + segment.len();
                }
                pos = start + first_len;
                continue 'restart;
            }
        }
        return None;
    }
}

/// The first token starting in `text[from..segment_end]`, inside a segment that is not a token:
/// such a segment holds only whitespace, CR LF, `_` and Extend/Format/ZWJ characters (and
/// pictographs after a ZWJ), so the only tokens Lucene's grammar can start there are
/// Complex_Context runs (their marks are Extend) and emoji (a skin-tone modifier, or ZWJs then a
/// pictograph).
fn inner_token(text: &str, from: usize, segment_end: usize) -> Option<Found> {
    let region = &text[from..segment_end];
    for (offset, c) in region.char_indices() {
        let start = from + offset;
        if is_complex_context(c) {
            let tail = &text[start..];
            let len = tail
                .char_indices()
                .find(|&(_, c)| !is_complex_context(c) && word_class(c) != WordClass::Extend)
                .map_or(tail.len(), |(i, _)| i);
            return Some((start, start + len, TokenType::SoutheastAsian));
        }
        if is_emoji_modifier(c) || c == '\u{200D}' {
            let len = emoji_sequence_len(&text[start..segment_end]);
            if len > 0 {
                return Some((start, start + len, TokenType::Emoji));
            }
        }
    }
    None
}

/// The length of the emoji sequence at the start of `s` (0 if none): ZWJs, a pictograph or
/// skin-tone modifier, then its Extend/Format characters and further ZWJ + pictograph links,
/// ending before a text presentation selector (U+FE0E).
fn emoji_sequence_len(s: &str) -> usize {
    let mut chars = s.char_indices().skip_while(|&(_, c)| c == '\u{200D}').peekable();
    match chars.next() {
        Some((_, c)) if is_emoji_modifier(c) || word_class(c) == WordClass::Pictographic => {}
        _ => return 0,
    }
    let mut end = s.len();
    while let Some((i, c)) = chars.next() {
        let pictograph_follows = chars.peek().is_some_and(|&(_, n)| word_class(n) == WordClass::Pictographic);
        if c == '\u{200D}' && pictograph_follows {
            chars.next();
        } else if c == '\u{FE0E}' || word_class(c) != WordClass::Extend {
            end = i;
            break;
        }
    }
    end
}

/// Whether a UAX #29 segment (followed by `tail`, which starts with it) begins a token, and if so
/// its byte length and type.
fn classify(segment: &str, tail: &str) -> Option<(usize, TokenType)> {
    let mut chars = segment.chars();
    let first = chars.next()?;
    if is_complex_context(first) {
        let len = tail
            .char_indices()
            .find(|&(_, c)| !is_complex_context(c) && word_class(c) != WordClass::Extend)
            .map_or(tail.len(), |(i, _)| i);
        return Some((len, TokenType::SoutheastAsian));
    }
    match word_class(first) {
        WordClass::Letter | WordClass::Numeric | WordClass::Katakana | WordClass::ExtendNumLet => {
            if let Some(len) = keycap_len(segment) {
                return Some((len, TokenType::Emoji));
            }
            classify_word(segment)
        }
        WordClass::Pictographic => Some((emoji_len(segment), TokenType::Emoji)),
        WordClass::Extend => {
            if is_emoji_modifier(first) {
                return Some((emoji_len(segment), TokenType::Emoji));
            }
            // ZWJ* pictograph: WB3c joins them, Lucene's emoji rule allows leading ZWJs.
            let leading = segment.char_indices().find(|&(_, c)| c != '\u{200D}')?;
            (word_class(leading.1) == WordClass::Pictographic).then(|| (emoji_len(segment), TokenType::Emoji))
        }
        WordClass::RegionalIndicator => {
            let flags = segment.chars().filter(|&c| word_class(c) == WordClass::RegionalIndicator).count();
            (flags >= 2).then_some((segment.len(), TokenType::Emoji))
        }
        WordClass::Other => {
            if is_han(first) {
                Some((segment.len(), TokenType::Ideographic))
            } else if is_hiragana(first) {
                Some((segment.len(), TokenType::Hiragana))
            } else {
                keycap_len(segment).map(|len| (len, TokenType::Emoji))
            }
        }
    }
}

/// A segment of letters, digits, katakana and their joiners.
fn classify_word(segment: &str) -> Option<(usize, TokenType)> {
    let (mut letter, mut digit, mut katakana) = (false, false, false);
    let (mut all_hangul, mut all_katakana) = (true, true);
    let mut previous_zwj = None;
    for (i, c) in segment.char_indices() {
        let class = word_class(c);
        match class {
            WordClass::Letter => letter = true,
            WordClass::Numeric => digit = true,
            WordClass::Katakana => katakana = true,
            // WB3c joined "letter ZWJ pictograph"; Lucene's word rule stops after the ZWJ.
            WordClass::Pictographic if previous_zwj.is_some() => {
                return classify_word(&segment[..i]);
            }
            _ => {}
        }
        previous_zwj = (c == '\u{200D}').then_some(i);
        if class != WordClass::Extend {
            all_hangul &= class == WordClass::Letter && is_hangul(c);
            all_katakana &= class == WordClass::Katakana;
        }
    }
    let kind = if letter {
        if all_hangul {
            TokenType::Hangul
        } else {
            TokenType::AlphaNum
        }
    } else if katakana {
        if all_katakana {
            TokenType::Katakana
        } else {
            TokenType::AlphaNum
        }
    } else if digit {
        TokenType::Num
    } else {
        return None;
    };
    Some((segment.len(), kind))
}

/// The length of an emoji token within its segment: up to a text presentation selector.
fn emoji_len(segment: &str) -> usize {
    segment.char_indices().skip(1).find(|&(_, c)| c == '\u{FE0E}').map_or(segment.len(), |(i, _)| i)
}

/// A keycap sequence `[0-9#*] U+FE0F? U+20E3 (Extend)*` filling the whole segment.
fn keycap_len(segment: &str) -> Option<usize> {
    let mut chars = segment.chars();
    if !matches!(chars.next()?, '0'..='9' | '#' | '*') {
        return None;
    }
    let mut next = chars.next()?;
    if next == '\u{FE0F}' {
        next = chars.next()?;
    }
    if next != '\u{20E3}' {
        return None;
    }
    chars.all(|c| word_class(c) == WordClass::Extend && c != '\u{FE0E}' && c != '\u{FE0F}').then_some(segment.len())
}
