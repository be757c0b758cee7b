//! Offsets for the API: tokens carry byte offsets (for slicing and highlighting in Rust), while
//! OpenSearch reports `start_offset`/`end_offset` in UTF-16 code units (Java chars).

/// Converts increasing byte offsets of one text to UTF-16 offsets in one pass overall.
#[derive(Debug)]
pub struct Utf16Offsets<'a> {
    text: &'a str,
    byte: usize,
    units: usize,
}

impl<'a> Utf16Offsets<'a> {
    /// A converter for `text`, positioned at its start.
    pub fn new(text: &'a str) -> Self {
        Utf16Offsets { text, byte: 0, units: 0 }
    }

    /// The UTF-16 offset of byte offset `byte` (clamped to the text, rounded down to a character
    /// boundary). Cheapest when called with non-decreasing offsets; a smaller one restarts.
    pub fn to_utf16(&mut self, byte: usize) -> usize {
        let mut byte = byte.min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        if byte < self.byte {
            self.byte = 0;
            self.units = 0;
        }
        self.units += utf16_len(&self.text[self.byte..byte]);
        self.byte = byte;
        self.units
    }
}

/// The UTF-16 length of `s` (Java's `String.length()`).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

/// The UTF-16 offset of byte offset `byte` in `text` (see [`Utf16Offsets::to_utf16`]).
pub fn utf16_offset(text: &str, byte: usize) -> usize {
    Utf16Offsets::new(text).to_utf16(byte)
}
