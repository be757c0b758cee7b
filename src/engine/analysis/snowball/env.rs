//! The Snowball runtime: the state a generated stemmer works on and the primitives it calls,
//! with the semantics of Lucene's `org.tartarus.snowball.SnowballProgram`.
//!
//! The buffer is UTF-16 code units, as Java's `char[]`: cursor arithmetic (`hop`, `next`) and
//! grouping tests are per unit, so a supplementary character counts two, exactly as in Lucene.
//! Positions are `i32` like Java's `int`; every access to the buffer is checked, and the primitives
//! return false instead of panicking when a position is out of range (Java would assert).
//! Generated `repeat`/`goto` loops spend [`Env::out_of_fuel`], so no input can loop forever.

/// One entry of an `among` table: a string, the index of the longest entry that is a proper
/// suffix (backward) or prefix (forward) of it or -1, and the result returned when it matches.
#[derive(Debug)]
pub struct Among {
    /// The string, in UTF-16 units.
    pub s: &'static [u16],
    /// The entry this one falls back to, or -1.
    pub substring_i: i32,
    /// The value `find_among` returns for this entry.
    pub result: i32,
}

/// `among!(['a', 'b'], -1, 1)`: an [`Among`] from BMP characters.
macro_rules! among {
    ([$($c:literal),*], $sub:expr, $res:expr) => {
        $crate::engine::analysis::snowball::env::Among { s: &[$($c as u16),*], substring_i: $sub, result: $res }
    };
}
pub(crate) use among;

/// Loop iterations allowed per UTF-16 unit of the word (plus a constant): generated loops
/// advance the cursor or shorten the word on every iteration, so this is never reached by a
/// correct program; it only bounds a faulty one.
const FUEL_PER_UNIT: u32 = 64;

/// The string being stemmed and Snowball's cursor state.
#[derive(Debug)]
pub struct Env {
    current: Vec<u16>,
    /// The cursor `c`.
    pub cursor: i32,
    /// The forward limit `l`.
    pub limit: i32,
    /// The backward limit `lb`.
    pub limit_backward: i32,
    /// The slice start `[`.
    pub bra: i32,
    /// The slice end `]`.
    pub ket: i32,
    fuel: u32,
}

impl Env {
    /// The state for `word`: cursor at 0, limit at its end, the slice the whole word.
    pub fn new(word: &str) -> Self {
        let current: Vec<u16> = word.encode_utf16().collect();
        let len = i32::try_from(current.len()).unwrap_or(i32::MAX);
        let fuel = u32::try_from(current.len()).unwrap_or(u32::MAX).saturating_add(16).saturating_mul(FUEL_PER_UNIT);
        Env { current, cursor: 0, limit: len, limit_backward: 0, bra: 0, ket: len, fuel }
    }

    /// The current string (unpaired surrogates, which only a supplementary character cut in
    /// half can leave, become U+FFFD as in Lucene's UTF-8 conversion).
    pub fn into_string(self) -> String {
        String::from_utf16_lossy(&self.current)
    }

    /// Spends one loop iteration; true when the budget is exhausted (the program then stops).
    pub fn out_of_fuel(&mut self) -> bool {
        match self.fuel.checked_sub(1) {
            Some(left) => {
                self.fuel = left;
                false
            }
            None => true,
        }
    }

    fn unit(&self, at: i32) -> Option<u16> {
        usize::try_from(at).ok().and_then(|i| self.current.get(i).copied())
    }

    fn len(&self) -> i32 {
        i32::try_from(self.current.len()).unwrap_or(i32::MAX)
    }

    /// Snowball's `len`: the length of the current string in UTF-16 units (Java's `length`).
    pub fn length(&self) -> i32 {
        self.len()
    }

    /// Whether the unit at `at` is one of `set`.
    fn in_set(&self, at: i32, set: &[u16]) -> Option<bool> {
        self.unit(at).map(|ch| set.contains(&ch))
    }

    /// Moves over one unit in `set`.
    pub fn in_grouping(&mut self, set: &[u16]) -> bool {
        if self.cursor >= self.limit || self.in_set(self.cursor, set) != Some(true) {
            return false;
        }
        self.cursor += 1;
        true
    }

    /// Moves back over one unit in `set`.
    pub fn in_grouping_b(&mut self, set: &[u16]) -> bool {
        if self.cursor <= self.limit_backward || self.in_set(self.cursor - 1, set) != Some(true) {
            return false;
        }
        self.cursor -= 1;
        true
    }

    /// Moves over one unit not in `set`.
    pub fn out_grouping(&mut self, set: &[u16]) -> bool {
        if self.cursor >= self.limit || self.in_set(self.cursor, set) != Some(false) {
            return false;
        }
        self.cursor += 1;
        true
    }

    /// Moves back over one unit not in `set`.
    pub fn out_grouping_b(&mut self, set: &[u16]) -> bool {
        if self.cursor <= self.limit_backward || self.in_set(self.cursor - 1, set) != Some(false) {
            return false;
        }
        self.cursor -= 1;
        true
    }

    /// Moves over units in `set`; true when it stops before one that is not (false at the limit).
    pub fn go_in_grouping(&mut self, set: &[u16]) -> bool {
        while self.cursor < self.limit {
            if self.in_set(self.cursor, set) != Some(true) {
                return true;
            }
            self.cursor += 1;
        }
        false
    }

    /// Moves back over units in `set`; true when it stops after one that is not.
    pub fn go_in_grouping_b(&mut self, set: &[u16]) -> bool {
        while self.cursor > self.limit_backward {
            if self.in_set(self.cursor - 1, set) != Some(true) {
                return true;
            }
            self.cursor -= 1;
        }
        false
    }

    /// Moves over units not in `set`; true when it stops before one that is.
    pub fn go_out_grouping(&mut self, set: &[u16]) -> bool {
        while self.cursor < self.limit {
            if self.in_set(self.cursor, set) != Some(false) {
                return true;
            }
            self.cursor += 1;
        }
        false
    }

    /// Moves back over units not in `set`; true when it stops after one that is.
    pub fn go_out_grouping_b(&mut self, set: &[u16]) -> bool {
        while self.cursor > self.limit_backward {
            if self.in_set(self.cursor - 1, set) != Some(false) {
                return true;
            }
            self.cursor -= 1;
        }
        false
    }

    /// Moves over `s` if the text at the cursor is `s`.
    pub fn eq_s(&mut self, s: &str) -> bool {
        let mut at = self.cursor;
        for u in s.encode_utf16() {
            if at >= self.limit || self.unit(at) != Some(u) {
                return false;
            }
            at += 1;
        }
        self.cursor = at;
        true
    }

    /// Moves back over `s` if the text before the cursor is `s`.
    pub fn eq_s_b(&mut self, s: &str) -> bool {
        let n = i32::try_from(s.encode_utf16().count()).unwrap_or(i32::MAX);
        if self.cursor - self.limit_backward < n {
            return false;
        }
        let start = self.cursor - n;
        for (i, u) in (0..).zip(s.encode_utf16()) {
            if self.unit(start + i) != Some(u) {
                return false;
            }
        }
        self.cursor = start;
        true
    }

    /// The longest entry of `v` at the cursor (`v` sorted as the Snowball compiler emits it);
    /// moves over it and returns its result, or returns 0.
    pub fn find_among(&mut self, v: &[Among]) -> i32 {
        let (c, l) = (self.cursor, self.limit);
        self.search(v, |env, common, w, _| {
            let i2 = usize::try_from(common).ok()?;
            let want = *w.s.get(i2)?;
            Some(if c + common == l { -1 } else { i32::from(env.unit(c + common).unwrap_or(0)) - i32::from(want) })
        })
        .map_or(0, |w| {
            self.cursor = c + w.len();
            w.result
        })
    }

    /// The longest entry of `v` ending at the cursor; moves back over it and returns its
    /// result, or returns 0.
    pub fn find_among_b(&mut self, v: &[Among]) -> i32 {
        let (c, lb) = (self.cursor, self.limit_backward);
        self.search(v, |env, common, w, len| {
            let i2 = usize::try_from(len - 1 - common).ok()?;
            let want = *w.s.get(i2)?;
            Some(if c - common == lb { -1 } else { i32::from(env.unit(c - 1 - common).unwrap_or(0)) - i32::from(want) })
        })
        .map_or(0, |w| {
            self.cursor = c - w.len();
            w.result
        })
    }

    /// Snowball's binary search over `v`: `diff(env, common, entry, entry_len)` compares the
    /// text with the entry's unit after `common` matched ones (None once the entry is used up).
    /// Returns the matching entry, following `substring_i` from the closest one.
    fn search<'a>(&self, v: &'a [Among], diff_at: impl Fn(&Env, i32, &Among, i32) -> Option<i32>) -> Option<&'a Among> {
        let mut i: i32 = 0;
        let mut j = i32::try_from(v.len()).ok()?;
        let (mut common_i, mut common_j) = (0i32, 0i32);
        let mut first_key_inspected = false;
        if j == 0 {
            return None;
        }
        // each round halves [i, j): at most 32 rounds plus the final re-inspection
        for _ in 0..64 {
            let k = i + ((j - i) >> 1);
            let mut diff = 0;
            let mut common = common_i.min(common_j);
            let w = v.get(usize::try_from(k).ok()?)?;
            let len = w.len();
            while common < len {
                match diff_at(self, common, w, len) {
                    Some(d) => diff = d,
                    None => break,
                }
                if diff != 0 {
                    break;
                }
                common += 1;
            }
            if diff < 0 {
                j = k;
                common_j = common;
            } else {
                i = k;
                common_i = common;
            }
            if j - i <= 1 {
                if i > 0 || j == i || first_key_inspected {
                    break;
                }
                first_key_inspected = true;
            }
        }
        // follow the chain of shorter entries: substring_i always points to an earlier entry
        for _ in 0..v.len() {
            let w = v.get(usize::try_from(i).ok()?)?;
            if common_i >= w.len() {
                return Some(w);
            }
            if w.substring_i < 0 || w.substring_i >= i {
                return None;
            }
            i = w.substring_i;
        }
        None
    }

    /// Replaces the units `[c_bra, c_ket)` with `s`, moving the limit and the cursor as
    /// Lucene's `replace_s` does; None when the range is not inside the buffer.
    fn replace_s(&mut self, c_bra: i32, c_ket: i32, s: &str) -> Option<i32> {
        let (from, to) = (usize::try_from(c_bra).ok()?, usize::try_from(c_ket).ok()?);
        if from > to || to > self.current.len() {
            return None;
        }
        let before = self.len();
        self.current.splice(from..to, s.encode_utf16());
        let adjustment = self.len() - before;
        self.limit += adjustment;
        if self.cursor >= c_ket {
            self.cursor += adjustment;
        } else if self.cursor > c_bra {
            self.cursor = c_bra;
        }
        Some(adjustment)
    }

    /// Replaces the slice `[bra, ket)` with `s`.
    pub fn slice_from(&mut self, s: &str) -> bool {
        if self.bra < 0 || self.bra > self.ket || self.ket > self.limit || self.limit > self.len() {
            return false;
        }
        if self.replace_s(self.bra, self.ket, s).is_none() {
            return false;
        }
        self.ket = self.bra + i32::try_from(s.encode_utf16().count()).unwrap_or(0);
        true
    }

    /// Deletes the slice `[bra, ket)`.
    pub fn slice_del(&mut self) -> bool {
        self.slice_from("")
    }

    /// Inserts `s` in place of `[c_bra, c_ket)`, moving the slice ends after it.
    pub fn insert(&mut self, c_bra: i32, c_ket: i32, s: &str) -> bool {
        let Some(adjustment) = self.replace_s(c_bra, c_ket, s) else {
            return false;
        };
        if c_bra <= self.bra {
            self.bra += adjustment;
        }
        if c_bra <= self.ket {
            self.ket += adjustment;
        }
        true
    }
}

impl Among {
    fn len(&self) -> i32 {
        i32::try_from(self.s.len()).unwrap_or(i32::MAX)
    }
}
