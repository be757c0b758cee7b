//! `html_strip`: Lucene's `HTMLStripCharFilter` (a JFlex scanner), state for state:
//!
//! - `&name;` (the HTML 4 entities of [`super::html_entities`], longest name first), `&#123;`,
//!   `&#x7B;` (a surrogate code point becomes U+FFFD; a UTF-16 surrogate pair written as two
//!   references becomes one character) are decoded. Without the `;` a reference is kept as
//!   written, except at the end of the text.
//! - A start tag `<name attributes>` is removed when `name` is an inline element (`a`, `b`,
//!   `span`...), replaced by `"\n"` otherwise (any other name, known or not); so are end tags
//!   `</name >`, `<br>` and `</br>`. Attribute values may hold `<` and `>` when quoted.
//! - `<script ...>`/`<style ...>` and their content up to the end tag become one `"\n"`
//!   (comments and quoted strings inside are skipped whole).
//! - Comments `<!-- -->` (with server-side includes `<!--# -->`), `<!...>` declarations and
//!   processing instructions `<?...?>` are removed; `<![CDATA[...]]>` keeps its content.
//! - Tags named in `escaped_tags` are kept as written (for `br`, `script`, `style` the tags are
//!   kept and a script or style still loses its content).
//! - Anything that does not complete (`<a href="` at the end, `a < b`) is text. A construct cut by
//!   the end of the text is removed when Lucene is inside it (a comment, a script, a tag name).
//!
//! Offsets of the output map back to the input through [`OffsetCorrection`], at the same points as
//! Lucene's. Known divergences: the scan for the `>` closing a start tag stops after
//! [`MAX_TAG_SCAN`] bytes (Lucene's lookahead is unbounded), and `\s` is Unicode `White_Space`.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use super::char_filters::{CharFilter, OffsetCorrection};
use super::html_entities::{HTML_ENTITIES, LONGEST_ENTITY};

/// The longest stretch scanned for the `>` closing a start tag (inside a quoted attribute value
/// a start tag could otherwise run to the end of the text, for every tag).
pub const MAX_TAG_SCAN: usize = 64 * 1024;

/// Elements whose tags are removed without a newline (Lucene's `InlineElment`).
const INLINE_ELEMENTS: [&str; 31] = [
    "a", "b", "i", "q", "s", "u", "abbr", "acronym", "basefont", "bdo", "big", "cite", "code", "dfn", "em", "font",
    "img", "input", "kbd", "label", "samp", "select", "small", "span", "strike", "strong", "sub", "sup", "textarea",
    "tt", "var",
];

/// `html_strip` with its `escaped_tags`.
#[derive(Debug, Default)]
pub struct HtmlStripCharFilter {
    /// Lowercased names kept as written (other than br, script, style).
    escaped_tags: HashSet<String>,
    escape_br: bool,
    escape_script: bool,
    escape_style: bool,
}

impl HtmlStripCharFilter {
    /// A filter keeping the tags in `escaped_tags` (compared case-insensitively).
    pub fn new(escaped_tags: impl IntoIterator<Item = String>) -> Self {
        let mut filter = HtmlStripCharFilter::default();
        for tag in escaped_tags {
            match tag.to_lowercase().as_str() {
                "br" => filter.escape_br = true,
                "script" => filter.escape_script = true,
                "style" => filter.escape_style = true,
                other => {
                    filter.escaped_tags.insert(other.to_owned());
                }
            }
        }
        filter
    }
}

fn id_regexes() -> &'static (Regex, Regex) {
    static CELL: OnceLock<(Regex, Regex)> = OnceLock::new();
    CELL.get_or_init(|| {
        (
            Regex::new(r"^\p{ID_Start}$").expect("a constant, valid pattern"),
            Regex::new(r"^\p{ID_Continue}$").expect("a constant, valid pattern"),
        )
    })
}

fn is_name_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic() || c == ':' || c == '_';
    }
    let mut buf = [0u8; 4];
    id_regexes().0.is_match(c.encode_utf8(&mut buf))
}

fn is_name_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-' | '.');
    }
    let mut buf = [0u8; 4];
    id_regexes().1.is_match(c.encode_utf8(&mut buf))
}

/// The end of `text[from..]`'s leading whitespace.
fn skip_ws(text: &str, from: usize) -> usize {
    text[from..].find(|c: char| !c.is_whitespace()).map_or(text.len(), |i| from + i)
}

/// The end of a `Name` starting at `from` (`from` itself when there is none).
fn name_end(text: &str, from: usize) -> usize {
    let mut chars = text[from..].char_indices();
    match chars.next() {
        Some((_, c)) if is_name_start(c) => {}
        _ => return from,
    }
    chars.find(|(_, c)| !is_name_char(*c)).map_or(text.len(), |(i, _)| from + i)
}

fn starts_with_ignore_case(text: &str, at: usize, word: &str) -> bool {
    text.as_bytes().get(at..at + word.len()).is_some_and(|b| b.eq_ignore_ascii_case(word.as_bytes()))
}

#[path = "html_tag_tail.rs"]
mod tail;

/// What happens to a tag.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TagAction {
    Keep,
    Remove,
    Newline,
}

/// The regions after `<!--`, `<script>`, `<style>` that are skipped whole (Lucene's states).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Skip {
    Comment,
    Script,
    ScriptComment,
    Style,
    StyleComment,
    ServerSideInclude,
    SingleQuoted,
    DoubleQuoted,
}

struct Strip<'a> {
    filter: &'a HtmlStripCharFilter,
    text: &'a str,
    out: String,
    correction: OffsetCorrection,
}

impl<'a> Strip<'a> {
    fn raw(&mut self, from: usize, to: usize) {
        self.out.push_str(&self.text[from..to]);
    }

    fn replace(&mut self, from: usize, to: usize, with: &str) {
        self.correction.replaced(self.out.len(), to - from, with.len());
        self.out.push_str(with);
    }

    fn act(&mut self, action: TagAction, from: usize, to: usize) {
        match action {
            TagAction::Keep => self.raw(from, to),
            TagAction::Remove => self.replace(from, to, ""),
            TagAction::Newline => self.replace(from, to, "\n"),
        }
    }

    fn tag_action(&self, name: &str, removed: TagAction) -> TagAction {
        let lower = name.to_lowercase();
        if self.filter.escaped_tags.contains(&lower) {
            TagAction::Keep
        } else if INLINE_ELEMENTS.contains(&lower.as_str()) {
            TagAction::Remove
        } else {
            removed
        }
    }

    fn run(&mut self) {
        let text = self.text;
        let mut pos = 0;
        while pos < text.len() {
            pos = match text[pos..].find(['&', '<']) {
                Some(0) if text.as_bytes()[pos] == b'&' => self.ampersand(pos),
                Some(0) => self.angle(pos),
                Some(i) => {
                    self.raw(pos, pos + i);
                    pos + i
                }
                None => {
                    self.raw(pos, text.len());
                    text.len()
                }
            };
        }
    }

    /// `&` at `p`: a character reference, or the `&` itself. Returns where scanning resumes.
    fn ampersand(&mut self, p: usize) -> usize {
        let text = self.text;
        let q = p + 1;
        if text.as_bytes().get(q) == Some(&b'#') {
            if let Some((pair, end)) = surrogate_pair(&text[q..]) {
                let mut buf = [0u8; 4];
                self.replace(p, q + end, pair.encode_utf8(&mut buf));
                return q + end;
            }
            let digits_from = q + 1;
            let hex = matches!(text.as_bytes().get(digits_from), Some(b'x' | b'X'));
            let start = if hex { digits_from + 1 } else { digits_from };
            let digits = text[start..]
                .find(|c: char| if hex { !c.is_ascii_hexdigit() } else { !c.is_ascii_digit() })
                .unwrap_or(text.len() - start);
            if digits == 0 {
                self.raw(p, digits_from);
                return digits_from;
            }
            let end = start + digits;
            let value = if digits + usize::from(hex) <= if hex { 6 } else { 7 } {
                u32::from_str_radix(&text[start..end], if hex { 16 } else { 10 }).ok().filter(|c| *c <= 0x10FFFF)
            } else {
                None
            };
            return match value {
                Some(code) => self.reference_tail(p, end, char::from_u32(code).unwrap_or('\u{FFFD}')),
                None => {
                    self.raw(p, end);
                    end
                }
            };
        }
        let longest = (1..=LONGEST_ENTITY.min(text.len() - q))
            .rev()
            .filter(|&len| text.is_char_boundary(q + len))
            .find_map(|len| {
                let name = &text[q..q + len];
                HTML_ENTITIES
                    .binary_search_by_key(&name, |e| e.0)
                    .ok()
                    .and_then(|i| HTML_ENTITIES.get(i))
                    .map(|e| (len, e.1))
            });
        match longest {
            Some((len, value)) => self.reference_tail(p, q + len, value),
            None => {
                self.raw(p, q);
                q
            }
        }
    }

    /// After a reference's name or number: decoded with `;` (or at the end), else kept.
    fn reference_tail(&mut self, p: usize, end: usize, value: char) -> usize {
        let mut buf = [0u8; 4];
        let value = &*value.encode_utf8(&mut buf);
        if self.text.as_bytes().get(end) == Some(&b';') {
            self.replace(p, end + 1, value);
            end + 1
        } else if end == self.text.len() {
            self.replace(p, end, value);
            end
        } else {
            self.raw(p, end);
            end
        }
    }

    /// `<` at `p`. Returns where scanning resumes.
    fn angle(&mut self, p: usize) -> usize {
        let text = self.text;
        let q = p + 1;
        match text.as_bytes().get(q) {
            None => {
                self.raw(p, q);
                return q;
            }
            Some(b'!') => return self.bang(p),
            Some(b'/') => return self.end_tag(p),
            Some(b'?') => {
                // "?" [^>]* [/?] ">"
                if let Some(gt) = text[q + 1..].find('>').map(|i| q + 1 + i) {
                    if gt > q + 1 && matches!(text.as_bytes().get(gt - 1), Some(b'/' | b'?')) {
                        self.replace(p, gt + 1, "");
                        return gt + 1;
                    }
                }
                self.raw(p, q);
                return q;
            }
            Some(_) => {}
        }
        let word = skip_ws(text, q);
        for (special, escaped) in
            [("br", self.filter.escape_br), ("script", self.filter.escape_script), ("style", self.filter.escape_style)]
        {
            if !starts_with_ignore_case(text, word, special) {
                continue;
            }
            let Some(end) = tail::start_tag_end(text, word + special.len()) else { continue };
            if special == "br" {
                self.act(if escaped { TagAction::Keep } else { TagAction::Newline }, p, end);
                return end;
            }
            let (skip, close) = if special == "script" { (Skip::Script, "script") } else { (Skip::Style, "style") };
            return self.skip_element(p, end, escaped, skip, close);
        }
        let name_start = if word > q { word } else { q };
        let name_stop = name_end(text, name_start);
        if name_stop == name_start {
            self.raw(p, name_start);
            return name_start;
        }
        let action = self.tag_action(&text[name_start..name_stop], TagAction::Newline);
        match tail::start_tag_end(text, name_stop) {
            Some(end) => {
                self.act(action, p, end);
                end
            }
            None if name_stop == text.len() => {
                self.act(if action == TagAction::Keep { TagAction::Keep } else { TagAction::Remove }, p, name_stop);
                name_stop
            }
            None => {
                self.raw(p, name_stop);
                name_stop
            }
        }
    }

    /// `</` at `p`.
    fn end_tag(&mut self, p: usize) -> usize {
        let text = self.text;
        let word = skip_ws(text, p + 2);
        if starts_with_ignore_case(text, word, "br") {
            let gt = skip_ws(text, word + 2);
            if text.as_bytes().get(gt) == Some(&b'>') {
                let action = if self.filter.escape_br { TagAction::Keep } else { TagAction::Newline };
                self.act(action, p, gt + 1);
                return gt + 1;
            }
        }
        let name_stop = name_end(text, word);
        if name_stop == word {
            self.raw(p, word);
            return word;
        }
        let action = self.tag_action(&text[word..name_stop], TagAction::Newline);
        let gt = skip_ws(text, name_stop);
        if text.as_bytes().get(gt) == Some(&b'>') {
            self.act(action, p, gt + 1);
            gt + 1
        } else if name_stop == text.len() {
            self.act(if action == TagAction::Keep { TagAction::Keep } else { TagAction::Remove }, p, name_stop);
            name_stop
        } else {
            self.raw(p, name_stop);
            name_stop
        }
    }

    /// `<!` at `p`: a comment, a CDATA section or a declaration.
    fn bang(&mut self, p: usize) -> usize {
        let text = self.text;
        let r = p + 2;
        if text[r..].starts_with("--") {
            return match skip_region(text, r + 2, Skip::Comment, "") {
                Some((_, end)) => {
                    self.replace(p, end, "");
                    end
                }
                None => {
                    self.replace(p, text.len(), "");
                    text.len()
                }
            };
        }
        if text[r..].starts_with("[CDATA[") {
            let content = r + 7;
            self.replace(p, content, "");
            return match text[content..].find("]]>") {
                Some(i) => {
                    self.raw(content, content + i);
                    self.replace(content + i, content + i + 3, "");
                    content + i + 3
                }
                None => {
                    self.raw(content, text.len());
                    text.len()
                }
            };
        }
        match text[r..].find('>') {
            Some(i) => {
                self.replace(p, r + i + 1, "");
                r + i + 1
            }
            None => {
                self.raw(p, text.len());
                text.len()
            }
        }
    }

    /// A `<script>`/`<style>` start tag `p..tag_end`: the tags and content become one newline,
    /// or with `escaped` the tags stay and the content goes.
    fn skip_element(&mut self, p: usize, tag_end: usize, escaped: bool, skip: Skip, close: &str) -> usize {
        let text = self.text;
        let content = if escaped {
            self.raw(p, tag_end);
            tag_end
        } else {
            p
        };
        match skip_region(text, tag_end, skip, close) {
            Some((close_start, end)) if escaped => {
                self.replace(content, close_start, "");
                self.raw(close_start, end);
                end
            }
            Some((_, end)) => {
                self.replace(p, end, "\n");
                end
            }
            None => {
                self.replace(content, text.len(), "");
                text.len()
            }
        }
    }
}

/// Skips from `from` in state `state` until the region closes: `-->` of a comment, or the end
/// tag `</close\s*>` of a script or style. Returns the closing match's span, None at the end.
fn skip_region(text: &str, from: usize, mut state: Skip, close: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut restore, mut previous_restore) = (state, state);
    let mut i = from;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let next = i + 1;
        match state {
            Skip::Comment | Skip::ScriptComment | Skip::StyleComment if rest.starts_with(b"<!--#") => {
                restore = state;
                state = Skip::ServerSideInclude;
                i += 5;
                continue;
            }
            Skip::Comment if rest.starts_with(b"-->") => return Some((i, i + 3)),
            Skip::ScriptComment | Skip::StyleComment if rest.starts_with(b"-->") => {
                state = if state == Skip::ScriptComment { Skip::Script } else { Skip::Style };
                i += 3;
                continue;
            }
            Skip::ScriptComment | Skip::StyleComment if matches!(rest[0], b'\'' | b'"') => {
                restore = state;
                state = if rest[0] == b'\'' { Skip::SingleQuoted } else { Skip::DoubleQuoted };
            }
            Skip::Script | Skip::Style if rest.starts_with(b"<!--") => {
                state = if state == Skip::Script { Skip::ScriptComment } else { Skip::StyleComment };
                i += 4;
                continue;
            }
            Skip::Script | Skip::Style if rest.starts_with(b"</") => {
                let word = skip_ws(text, i + 2);
                if starts_with_ignore_case(text, word, close) {
                    let gt = skip_ws(text, word + close.len());
                    if bytes.get(gt) == Some(&b'>') {
                        return Some((i, gt + 1));
                    }
                }
            }
            Skip::ServerSideInclude if rest.starts_with(b"-->") => {
                state = restore;
                i += 3;
                continue;
            }
            Skip::ServerSideInclude if matches!(rest[0], b'\'' | b'"') => {
                previous_restore = restore;
                restore = Skip::ServerSideInclude;
                state = if rest[0] == b'\'' { Skip::SingleQuoted } else { Skip::DoubleQuoted };
            }
            Skip::SingleQuoted | Skip::DoubleQuoted if rest[0] == b'\\' => {
                // "\\" [^]: the escaped character is skipped with the backslash
                i = text[next..].chars().next().map_or(text.len(), |c| next + c.len_utf8());
                continue;
            }
            Skip::SingleQuoted | Skip::DoubleQuoted
                if rest[0] == if state == Skip::SingleQuoted { b'\'' } else { b'"' } =>
            {
                state = restore;
                restore = previous_restore;
            }
            _ => {}
        }
        i = next;
    }
    None
}

/// Two references forming a UTF-16 surrogate pair (`#xD83D;&#xDE00;`, decimal halves too),
/// starting at the `#`: the character and the length consumed.
fn surrogate_pair(s: &str) -> Option<(char, usize)> {
    fn half(s: &str, high: bool) -> Option<(u32, usize)> {
        let b = s.as_bytes();
        if matches!(b.first(), Some(b'x' | b'X')) {
            let hex = s.get(1..5)?;
            let value = u32::from_str_radix(hex, 16).ok().filter(|_| hex.bytes().all(|c| c.is_ascii_hexdigit()))?;
            let range = if high { 0xD800..=0xDBFF } else { 0xDC00..=0xDFFF };
            return range.contains(&value).then_some((value, 5));
        }
        let dec = s.get(0..5).filter(|d| d.bytes().all(|c| c.is_ascii_digit()))?;
        let prefix_ok = if high { matches!(&dec[..2], "55" | "56") } else { matches!(&dec[..2], "56" | "57") };
        let value: u32 = dec.parse().ok().filter(|_| prefix_ok)?;
        let range = if high { 0xD800..=0xDBFF } else { 0xDC00..=0xDFFF };
        range.contains(&value).then_some((value, 5))
    }
    let rest = s.strip_prefix('#')?;
    let (high, n) = half(rest, true)?;
    let rest = rest.get(n..)?.strip_prefix(";&#")?;
    let (low, m) = half(rest, false)?;
    rest.get(m..)?.strip_prefix(';')?;
    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    Some((char::from_u32(code)?, 1 + n + 3 + m + 1))
}

impl CharFilter for HtmlStripCharFilter {
    fn filter(&self, text: &str) -> (String, OffsetCorrection) {
        let mut strip = Strip {
            filter: self,
            text,
            out: String::with_capacity(text.len()),
            correction: OffsetCorrection::default(),
        };
        strip.run();
        (strip.out, strip.correction)
    }
}

#[cfg(test)]
#[path = "html_strip_tests.rs"]
mod tests;
